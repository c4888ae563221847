// The documentation page in a real browser (Debian's chromium driven by
// playwright-core): it renders the model's operations from the server's own
// files, under the page's Content-Security-Policy, and no request leaves
// the loopback server.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { type BrowserContext, chromium } from 'playwright-core';
import { eachBackend, useServer } from '../support/suite.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// A missing browser is a failure in CI (.ci/run installs it) and a loud skip elsewhere.
const missing = existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}: apt-get install -y chromium`;
if (missing && process.env.CI === 'true') throw new Error(missing);

eachBackend('the documentation page in a browser', (backend) => {
  const server = useServer(backend);
  let profile: string;
  let browser: BrowserContext;
  before(async () => {
    if (missing) return;
    profile = mkdtempSync(join(tmpdir(), 'mfx-docs-chromium-'));
    // A persistent context is how playwright takes a fresh --user-data-dir.
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('renders every model route of the document, loading only files from this server', { skip: missing, timeout: 120_000 }, async () => {
    const origin = new URL(server.url).origin;
    const requested: string[] = [];
    const refused: string[] = [];
    // Every request the page makes passes here: loopback ones go on, anything else is stopped and recorded.
    await browser.route('**/*', async (route) => {
      const url = route.request().url();
      requested.push(url);
      if (url.startsWith(`${origin}/`)) await route.continue();
      else {
        refused.push(url);
        await route.abort();
      }
    });
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });

    // The browser reports each CSP violation as an event; the page keeps them for the test to read.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { violations: string[] }).violations = seen;
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });

    const response = await page.goto(`${server.url}/docs`);
    assert.equal(response?.status(), 200);
    // Swagger UI lists each operation with its path; the blog's posts and users are among them.
    const paths = page.locator('.opblock-summary-path');
    await paths.filter({ hasText: /^\/posts$/ }).first().waitFor();
    await paths.filter({ hasText: /^\/users\/\{id\}$/ }).first().waitFor();
    const shown = new Set((await paths.allTextContents()).map((text) => text.trim()));
    const doc = (await server.request('GET', '/openapi.json')).body;
    for (const path of Object.keys(doc.paths)) assert.ok(shown.has(path), `the page shows ${path}`);
    assert.equal((await page.locator('.info .title').first().textContent())?.trim().startsWith('mfx API'), true);

    assert.deepEqual(refused, [], 'no request leaves the loopback server');
    const loaded = new Set(requested.map((url) => new URL(url).pathname));
    for (const path of ['/api/docs', '/api/docs/assets/swagger-ui.css', '/api/docs/assets/swagger-ui-bundle.js', '/api/docs/assets/mfx-docs.js', '/api/openapi.json']) {
      assert.ok(loaded.has(path), `the page loaded ${path}`);
    }
    assert.deepEqual(await page.evaluate(() => (window as unknown as { violations: string[] }).violations), [], 'no Content-Security-Policy violation');
    assert.deepEqual(problems, [], 'no script error');
    await page.close();
  });
});
