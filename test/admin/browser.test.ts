// The admin panel in a real browser (Debian's chromium driven by playwright-core): signing in with
// HTTP Basic against the user model, creating through the form (a refusal, then its correction, with a
// relation select), sorting and filtering, editing, deleting; axe-core on every page type; screenshots at
// desktop and phone widths (test/admin/screenshots/, ignored by git); stored scripts staying inert.
// The browser's behaviour does not depend on the database: this suite runs on SQLite, and the HTTP
// suite (panel.test.ts) covers every route on both databases.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { admin, basicAuth } from '@mfx/admin';
import { diskStorage, findOneBy, hashPassword, identity, requireRole, verifyPassword } from '@mfx/runtime';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { SAMPLES } from '../support/file-storage.js';
import { sqlite, useServer } from '../support/suite.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// A missing browser is a failure in CI (.ci/run installs it) and a loud skip elsewhere.
const missing = existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}: apt-get install -y chromium`;
if (missing && process.env.CI === 'true') throw new Error(missing);

const SCREENSHOTS = new URL('./screenshots/', import.meta.url).pathname;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const VIEWPORTS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } } as const;
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';

describe('the admin panel in a browser', { skip: missing }, () => {
  const server = useServer(sqlite, {
    setup(app) {
      app.use('service', hashPassword({ field: 'password', rounds: 4 }), { models: ['User'], ops: ['create', 'update'] });
      void app.plugin(
        admin({
          title: 'Blog admin',
          secure: false,
          auth: [
            basicAuth({
              verify: async (email, password) => {
                const user = await findOneBy(app.store('User'), app.db, 'email', email);
                if (!user || !(await verifyPassword(password, String(user.password)))) return null;
                return identity({ userId: String(user.id), roles: [String(user.role)], authMethod: 'basic' });
              },
            }),
            requireRole('admin'),
          ],
        }),
      );
    },
  });
  let profile: string;
  let browser: BrowserContext;
  let origin: string;
  let author: { id: string; name: string };

  before(async () => {
    origin = new URL(server.url).origin;
    const created = await server.request('POST', '/users', { body: { name: 'Ada Lovelace', email: EMAIL, password: PASSWORD, role: 'admin' } });
    assert.equal(created.status, 201);
    author = created.body.data;
    for (let i = 1; i <= 3; i++) {
      assert.equal((await server.request('POST', '/posts', { body: { title: `Seeded note ${i}`, userId: author.id, views: i * 10, status: 'published' } })).status, 201);
    }
    mkdirSync(SCREENSHOTS, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'mfx-admin-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: VIEWPORTS.desktop,
      httpCredentials: { username: EMAIL, password: PASSWORD },
    });
  });
  after(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  /** A page that records script errors and CSP violations; none may happen. */
  async function openPage(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/401|403|404|422|412/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        (window as unknown as { violations: string[] }).violations ??= [];
        (window as unknown as { violations: string[] }).violations.push(`${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    return { page, problems };
  }

  /** axe-core on the page as it is: no serious or critical violation. */
  async function checkAccessibility(page: Page, what: string): Promise<void> {
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run();
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
    assert.deepEqual(violations, [], `${what}: ${violations.join('; ')}`);
  }

  async function screenshots(page: Page, name: string): Promise<void> {
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size}.png`), fullPage: true });
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  }

  it('signs in, creates a post through the form after a refusal, sorts, filters, edits and deletes it', { timeout: 120_000 }, async () => {
    const { page, problems } = await openPage();
    const dashboard = await page.goto(`${origin}/admin/`);
    assert.equal(dashboard?.status(), 200);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    assert.match((await page.locator('.card', { hasText: 'Posts' }).textContent()) ?? '', /\d+ records/);

    // Create: an empty title is refused with the API's message beside the field, the entered values kept.
    await page.locator('.card', { hasText: 'Posts' }).getByRole('link', { name: 'New post' }).click();
    await page.getByLabel('Views').fill('42');
    await page.getByLabel('Author *').selectOption({ label: `Ada Lovelace (${author.id.slice(0, 8)})` });
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#f-title-error').waitFor();
    assert.equal(await page.locator('#f-title-error').textContent(), 'is required');
    assert.equal(await page.getByLabel('Views').inputValue(), '42');
    assert.equal(await page.getByLabel('Author *').inputValue(), author.id);

    await page.getByLabel('Title *').fill('Browser made post');
    await page.getByLabel('Keywords').fill('alpha, beta');
    await page.getByLabel('Published at').fill('2026-01-02T03:04');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/admin\/posts\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    const stored = (await server.request('GET', `/posts/${id}`)).body.data;
    assert.equal(stored.title, 'Browser made post');
    assert.equal(stored.views, 42);
    assert.equal(stored.userId, author.id);
    assert.deepEqual(stored.keywords, ['alpha', 'beta']);
    assert.equal(stored.publishedAt, '2026-01-02T03:04:00.000Z');

    // Sort by views (ascending, then descending), then filter by title.
    await page.goto(`${origin}/admin/posts`);
    await page.getByRole('link', { name: 'Views' }).click();
    await page.waitForURL(/sort=views$/);
    const titles = async () => page.locator('tbody td.title').allTextContents();
    assert.deepEqual((await titles()).slice(0, 3), ['Seeded note 1', 'Seeded note 2', 'Seeded note 3']);
    await page.getByRole('link', { name: /Views/ }).click();
    await page.waitForURL(/sort=-views$/);
    assert.equal((await titles())[0], 'Browser made post');
    await page.getByText('Filters').click();
    await page.getByRole('search').getByLabel('Title').fill('browser made');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/f_title=browser\+made/);
    assert.deepEqual(await titles(), ['Browser made post']);

    // Edit.
    await page.getByRole('link', { name: 'Browser made post' }).click();
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Title *').fill('Browser edited post');
    await page.getByLabel('Status').selectOption('archived');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(new RegExp(`/admin/posts/${id}$`));
    await page.getByRole('heading', { name: 'Post: Browser edited post' }).waitFor();
    assert.equal((await server.request('GET', `/posts/${id}`)).body.data.status, 'archived');

    // Delete.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/admin\/posts$/);
    assert.equal((await server.request('GET', `/posts/${id}`)).status, 404);

    assert.deepEqual(await page.evaluate(() => (window as unknown as { violations?: string[] }).violations ?? []), []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('finds a company past the first 100 by typing part of its name in the relation search, and saves it', { timeout: 120_000 }, async () => {
    for (let i = 0; i < 105; i++) assert.equal((await server.request('POST', '/companies', { body: { name: `Company ${String(i).padStart(3, '0')}` } })).status, 201);
    const far = (await server.request('POST', '/companies', { body: { name: 'Zeta Widgets' } })).body.data;
    const { page, problems } = await openPage();
    await page.goto(`${origin}/admin/users/new`);
    const select = page.getByLabel('Company', { exact: true });
    assert.equal(await select.locator('option', { hasText: 'Zeta Widgets' }).count(), 0, 'not among the first 100');
    assert.match((await page.getByRole('status').textContent()) ?? '', /^The first 100 of 106 companies\. Search to find another\.$/);
    await checkAccessibility(page, 'form with a relation search');
    await screenshots(page, 'form-relation-search');

    // The script asks the panel's JSON choices as the words are typed and narrows the select.
    await page.getByLabel('Search companies').pressSequentially('zeta wid');
    await page.locator('#f-companyId[data-query="zeta wid"]').waitFor();
    assert.deepEqual(await select.locator('option').allTextContents(), ['—', `Zeta Widgets (${far.id.slice(0, 8)})`]);
    assert.equal(await page.getByRole('status').textContent(), '1 match for “zeta wid”.');
    await select.selectOption({ label: `Zeta Widgets (${far.id.slice(0, 8)})` });
    await page.locator('#f-name').fill('Searched Sam');
    await page.locator('#f-email').fill('sam@example.com');
    await page.locator('#f-password').fill('long enough');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/admin\/users\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    assert.equal((await server.request('GET', `/users/${id}`)).body.data.companyId, far.id);

    // Its edit form shows the far company selected, by name.
    await page.goto(`${origin}/admin/users/${id}/edit`);
    assert.equal(await select.inputValue(), far.id);
    assert.equal(await select.locator('option:checked').textContent(), `Zeta Widgets (${far.id.slice(0, 8)})`);
    // Enter in the search box searches in place too (the script stops the page reload).
    await page.getByLabel('Search companies').fill('company 10');
    await page.getByLabel('Search companies').press('Enter');
    await page.locator('#f-companyId[data-query="company 10"]').waitFor();
    assert.deepEqual((await select.locator('option').allTextContents()).slice(0, 2), ['—', `Zeta Widgets (${far.id.slice(0, 8)})`], 'the current choice stays');
    assert.equal(await select.locator('option').count(), 7, 'the empty choice, the current one, and Company 100 to 104');
    assert.equal(await page.getByRole('status').textContent(), '5 matches for “company 10”.');
    assert.equal(page.url(), `${origin}/admin/users/${id}/edit`);
    assert.deepEqual(await page.evaluate(() => (window as unknown as { violations?: string[] }).violations ?? []), []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('passes axe-core on every page type and saves their screenshots at desktop and phone widths', { timeout: 180_000 }, async () => {
    const { page, problems } = await openPage();
    const post = (await server.request('GET', '/posts?limit=1&sort=views:desc')).body.data[0];
    const pages: Array<[string, string]> = [
      ['dashboard', '/admin/'],
      ['list', '/admin/posts'],
      ['list-empty', '/admin/comments'],
      ['detail', `/admin/posts/${post.id}`],
      ['detail-user', `/admin/users/${author.id}`],
      ['form-create', '/admin/posts/new'],
      ['form-edit', `/admin/posts/${post.id}/edit`],
      ['error', '/admin/posts/00000000-0000-4000-8000-000000000000'],
    ];
    for (const [name, path] of pages) {
      await page.goto(`${origin}${path}`);
      await checkAccessibility(page, name);
      await screenshots(page, name);
    }
    // The refused form, with its inline messages.
    await page.goto(`${origin}/admin/users/new`);
    await page.getByLabel('Name *').fill('A');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#f-name-error').waitFor();
    await checkAccessibility(page, 'form with errors');
    await screenshots(page, 'form-errors');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('keeps stored scripts and event handlers inert in every page that shows them', { timeout: 120_000 }, async () => {
    const attack = `<script>window.__xss = 1</script>"><img src=x onerror="window.__xss = 2">`;
    const user = (await server.request('POST', '/users', { body: { name: attack, email: 'mallory@example.com', password: 'long enough', bio: attack } })).body.data;
    const post = (await server.request('POST', '/posts', { body: { title: attack, body: attack, slug: attack, keywords: [attack], metadata: { note: attack }, userId: user.id } })).body.data;
    const { page } = await openPage();
    for (const path of [`/admin/users/${user.id}`, `/admin/users/${user.id}/edit`, `/admin/posts/${post.id}`, `/admin/posts/${post.id}/edit`, '/admin/posts', '/admin/posts/new', '/admin/users']) {
      await page.goto(`${origin}${path}`);
      assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, path);
      assert.equal(await page.locator('main img, main script').count(), 0, path);
    }
    await page.goto(`${origin}/admin/posts/${post.id}`);
    assert.match((await page.locator('.record').textContent()) ?? '', /<script>window\.__xss = 1<\/script>/);
    await page.close();
  });
});

describe('the admin panel in a browser, uploading a file', { skip: missing }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-admin-browser-files-'));
  const server = useServer(sqlite, { fixture: 'files', config: { files: { storage: diskStorage({ dir }) } }, setup: (app) => void app.plugin(admin({ allowUnauthenticated: true, secure: false })) });
  let profile: string;
  let browser: BrowserContext;
  before(async () => {
    profile = mkdtempSync(join(tmpdir(), 'mfx-admin-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: VIEWPORTS.desktop });
  });
  after(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a record with a file chosen in the form, refusing a wrong type first, and links the stored file', { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    await page.goto(`${new URL(server.url).origin}/admin/profiles/new`);
    await page.getByLabel('Name *').fill('Grace');
    await page.getByLabel('Avatar').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: SAMPLES.text });
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#f-avatar-error').waitFor();
    assert.match((await page.locator('#f-avatar-error').textContent()) ?? '', /the field accepts image\/\*/);
    assert.equal(await page.getByLabel('Name *').inputValue(), 'Grace');
    await page.getByLabel('Avatar').setInputFiles({ name: 'grace.png', mimeType: 'image/png', buffer: SAMPLES.png });
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/admin\/profiles\/[0-9a-f-]{36}$/);
    const link = page.locator('.record a[href*="/files/"]');
    const href = await link.getAttribute('href');
    const download = await page.request.get(`${new URL(server.url).origin}${href}`);
    assert.equal(download.status(), 200);
    assert.ok((await download.body()).equals(SAMPLES.png));
    await page.close();
  });
});
