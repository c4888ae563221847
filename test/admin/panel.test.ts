// The admin panel over HTTP: every route, status, redirect and CSRF outcome, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { admin, basicAuth } from '@mfx/admin';
import { ApiError, bearer, ConfigError, csrf, diskStorage, hashPassword, identity, requireRole } from '@mfx/runtime';
import { SAMPLES } from '../support/file-storage.js';
import { bearerHeader, SECRET, token } from '../support/auth.js';
import { sqlite } from '../support/suite.js';
import { eachBackend, useServer } from '../support/suite.js';
import type { ServerHandle } from '../support/server.js';
import { csrfOf, mainText, originOf, panel } from './support.js';

const ADMIN = bearerHeader(token({ sub: 'admin-1', roles: ['admin'] }));
const MEMBER = bearerHeader(token({ sub: 'member-1', roles: ['member'] }));
/** The models the main suite's panel shows; Tag stays served by the API only. */
const SHOWN = ['Company', 'User', 'Post', 'Comment'];

/** Creates rows through the API (writes need a bearer token there). */
async function create(server: ServerHandle, table: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await server.request('POST', `/${table}`, { body, headers: ADMIN });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data;
}

async function count(server: ServerHandle, table: string, filter?: string): Promise<number> {
  const response = await server.request('GET', `/${table}?limit=1${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`);
  return response.body.meta.total;
}

/** A form page's token, and the cookie it goes with. */
async function formToken(server: ServerHandle, path: string): Promise<{ cookie: string; token: string }> {
  const page = await panel(server, path, { headers: ADMIN });
  assert.equal(page.status, 200, page.html);
  return csrfOf(page);
}

describe('admin panel mounting', () => {
  it('refuses a panel without a gate and without allowUnauthenticated at startup', () => {
    assert.throws(() => admin({}), (error: unknown) => error instanceof ConfigError && /admin: the panel needs a gate: pass auth: \[bearer/.test(error.message));
    assert.throws(() => admin({ auth: [] }), ConfigError);
  });

  it('refuses a path that is not a path, and templates that are not a directory', () => {
    assert.throws(() => admin({ allowUnauthenticated: true, path: 'admin' }), /admin: path must be a path such as \/admin, got "admin"/);
    assert.throws(() => admin({ allowUnauthenticated: true, templates: '/nonexistent-admin-templates' }), /admin: templates must be a directory/);
  });
});

eachBackend('admin panel', (backend) => {
  const writers: Array<string | null> = [];
  const server = useServer(backend, {
    setup(app) {
      app.use('auth', bearer({ secret: SECRET }), { ops: ['create', 'update', 'delete'] });
      app.use('service', hashPassword({ field: 'password', rounds: 4 }), { models: ['User'], ops: ['create', 'update'] });
      app.use(
        'service',
        async (ctx, next) => {
          writers.push(ctx.identity?.userId ?? null);
          await next();
        },
        { models: ['Company'], ops: ['create'] },
      );
      // Comments cannot be listed: the dashboard's card says so.
      app.use(
        'service',
        async () => {
          throw new ApiError('INTERNAL');
        },
        { models: ['Comment'], ops: ['list'] },
      );
      void app.plugin(admin({ auth: [bearer({ secret: SECRET }), requireRole('admin')], models: SHOWN, title: 'Blog <admin>' }));
    },
  });

  describe('gate', () => {
    it('answers 401 with the authenticator\'s challenge without a credential, and nothing else of the panel', async () => {
      const page = await panel(server, '/admin/');
      assert.equal(page.status, 401);
      assert.equal(page.headers.get('www-authenticate'), 'Bearer');
      assert.match(mainText(page.html), /401 Sign in required missing bearer token/);
      assert.equal(page.headers.get('set-cookie'), null);
    });

    it('answers 403 to a caller without the role the gate requires', async () => {
      const page = await panel(server, '/admin/posts', { headers: MEMBER });
      assert.equal(page.status, 403);
      assert.match(mainText(page.html), /403 Not allowed/);
    });

    it('serves the static files without the gate, with cache headers', async () => {
      const page = await panel(server, '/admin/static/admin.css');
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('content-type'), 'text/css; charset=utf-8');
      assert.equal(page.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const etag = page.headers.get('etag')!;
      assert.equal((await panel(server, '/admin/static/admin.css', { headers: { 'if-none-match': etag } })).status, 304);
      assert.equal((await panel(server, '/admin/static/nope.css')).status, 404);
      assert.equal((await panel(server, '/admin/static/../templates/layout.html')).status, 401);
    });
  });

  describe('dashboard', () => {
    it('shows one card per visible model with its row count, the security headers and the CSRF cookie', async () => {
      const company = await create(server, 'companies', { name: `Dash ${backend.name}` });
      const page = await panel(server, '/admin/', { headers: ADMIN });
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.equal(page.headers.get('content-security-policy'), "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
      assert.equal(page.headers.get('cache-control'), 'no-store');
      assert.match(page.headers.get('set-cookie')!, /^mfx_admin_csrf=[0-9a-f]{64}; Path=\/admin; HttpOnly; SameSite=Lax; Secure$/);
      const text = mainText(page.html);
      const companies = await count(server, 'companies');
      assert.match(text, new RegExp(`Companies ${companies} record`));
      for (const label of ['Users', 'Posts']) assert.match(text, new RegExp(label));
      assert.match(text, /Comments service unavailable/);
      assert.doesNotMatch(page.html, /\/admin\/tags/, 'Tag is outside the whitelist');
      assert.match(page.html, /<title>Dashboard · Blog &lt;admin&gt;<\/title>/);
      assert.doesNotMatch(page.html, /<script/i);
      assert.ok(company.id);
    });

    it('keeps the token of a request that has one (no new cookie)', async () => {
      const first = csrfOf(await panel(server, '/admin/companies/new', { headers: ADMIN }));
      const again = await panel(server, '/admin/companies/new', { headers: ADMIN, cookie: first.cookie });
      assert.equal(again.headers.get('set-cookie'), null);
      assert.match(again.html, new RegExp(`name="_csrf" value="${first.token}"`));
    });
  });

  describe('list', () => {
    it('pages by 20, sorts with sort=field and sort=-field, filters with f_<field>', async () => {
      const user = await create(server, 'users', { name: 'Lister', email: `lister-${backend.name}@example.com`, password: 'long enough' });
      const tag = `L${Date.now()}`;
      for (let i = 0; i < 23; i++) await create(server, 'posts', { title: `${tag} ${String(i).padStart(2, '0')}`, userId: user.id, views: i, status: i % 2 ? 'published' : 'draft' });
      const first = await panel(server, `/admin/posts?f_title=${tag}&sort=views`, { headers: ADMIN });
      assert.equal(first.status, 200);
      const rows = (html: string) => [...html.matchAll(/<td class="title"><a href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
      assert.equal(rows(first.html).length, 20);
      assert.equal(rows(first.html)[0], `${tag} 00`);
      assert.match(mainText(first.html), /Page 1 of 2 · 23 records/);
      assert.match(first.html, /aria-sort="ascending"/);
      assert.match(first.html, new RegExp(`href="/admin/posts\\?f_title=${tag}&amp;sort=views&amp;page=2" rel="next"`));
      const second = await panel(server, `/admin/posts?f_title=${tag}&sort=views&page=2`, { headers: ADMIN });
      assert.deepEqual(rows(second.html), [`${tag} 20`, `${tag} 21`, `${tag} 22`]);
      const descending = await panel(server, `/admin/posts?f_title=${tag}&sort=-views`, { headers: ADMIN });
      assert.equal(rows(descending.html)[0], `${tag} 22`);
      assert.match(descending.html, /aria-sort="descending"/);
      const published = await panel(server, `/admin/posts?f_title=${tag}&f_status=published`, { headers: ADMIN });
      assert.match(mainText(published.html), /11 records/);
      assert.match(published.html, /<option value="published" selected>/);
    });

    it('shows the empty state, and the API\'s refusal of a bad page or sort as an error state with its status', async () => {
      const empty = await panel(server, '/admin/posts?f_title=no-such-title-anywhere', { headers: ADMIN });
      assert.equal(empty.status, 200);
      assert.match(mainText(empty.html), /No records match these filters\./);
      const badPage = await panel(server, '/admin/posts?page=0', { headers: ADMIN });
      assert.equal(badPage.status, 400);
      assert.match(mainText(badPage.html), /Could not load the list\. page must be at least 1, got "0"/);
      const badSort = await panel(server, '/admin/posts?sort=body', { headers: ADMIN });
      assert.equal(badSort.status, 400);
      assert.match(mainText(badSort.html), /Could not load the list\./);
    });

    it('answers 404 for a model outside the whitelist, which the API still serves', async () => {
      assert.equal((await panel(server, '/admin/tags', { headers: ADMIN })).status, 404);
      assert.equal((await panel(server, '/admin/nothing', { headers: ADMIN })).status, 404);
      assert.equal((await server.request('GET', '/tags')).status, 200);
    });

    it('leaves hidden and writeonly fields out of the list and the detail', async () => {
      const user = await create(server, 'users', { name: 'Secretive', email: `secret-${backend.name}@example.com`, password: 'hunter2hunter2' });
      const list = await panel(server, `/admin/users?f_email=secret-${backend.name}`, { headers: ADMIN });
      const detail = await panel(server, `/admin/users/${user.id}`, { headers: ADMIN });
      for (const page of [list, detail]) {
        assert.equal(page.status, 200);
        assert.doesNotMatch(page.html, /Password|Login count|\$2[aby]\$/);
      }
    });
  });

  describe('relation inputs', () => {
    const options = (html: string, id: string) => [...(new RegExp(`<select id="${id}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? '').matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => ({ value: m[1]!, label: m[2]! }));

    it('offers a plain select of a small parent, and a search that narrows the select once the parent has more than 100 rows', async () => {
      const first = await create(server, 'companies', { name: `Parent ${backend.name} ${Date.now()}` });
      const small = await panel(server, '/admin/users/new', { headers: ADMIN });
      assert.match(small.html, new RegExp(`<select id="f-companyId" name="companyId">[\\s\\S]*<option value="${first.id}">`));
      assert.doesNotMatch(small.html, /name="q_companyId"|_choices/);
      const existing = await count(server, 'companies');
      for (let i = existing; i <= 100; i++) await create(server, 'companies', { name: `Many ${backend.name} ${String(i).padStart(3, '0')} ${Date.now()}` });
      // Sorted by name, a "Zz" company is past the first 100: only the search reaches it.
      const far = await create(server, 'companies', { name: `Zz Far Widgets ${backend.name}` });
      const total = await count(server, 'companies');
      const large = await panel(server, '/admin/users/new', { headers: ADMIN });
      assert.equal(large.status, 200);
      const listed = options(large.html, 'f-companyId');
      assert.equal(listed.length, 101, 'the empty choice and the first 100 by name');
      assert.ok(!listed.some((o) => o.value === far.id));
      assert.match(large.html, /<select id="f-companyId" name="companyId" aria-describedby="f-companyId-status">/);
      assert.match(large.html, /<label class="lookup-label" for="f-companyId-q">Search companies<\/label>/);
      assert.match(large.html, /<input type="search" id="f-companyId-q" name="q_companyId" value="" form="f-companyId-lookup" autocomplete="off" data-choices="\/admin\/companies\/_choices" data-select="f-companyId" data-status="f-companyId-status">/);
      assert.match(large.html, /<form id="f-companyId-lookup" class="lookup-form" method="get" action="\/admin\/users\/new"><\/form>/);
      assert.match(large.html, new RegExp(`<p class="hint" id="f-companyId-status" role="status">The first 100 of ${total} companies\\. Search to find another\\.</p>`));
      assert.match(large.html, /<script src="\/admin\/static\/admin\.js\?v=[0-9a-f]{12}" defer><\/script>/);

      // Without the script: the GET search reloads the form with the select narrowed.
      const narrowed = await panel(server, `/admin/users/new?q_companyId=${encodeURIComponent(`far widgets ${backend.name}`)}`, { headers: ADMIN });
      assert.equal(narrowed.status, 200);
      assert.deepEqual(options(narrowed.html, 'f-companyId'), [{ value: '', label: '—' }, { value: far.id, label: `Zz Far Widgets ${backend.name} (${far.id.slice(0, 8)})` }]);
      assert.match(narrowed.html, new RegExp(`name="q_companyId" value="far widgets ${backend.name}"`));
      assert.match(narrowed.html, new RegExp(`role="status">1 match for “far widgets ${backend.name}”\\.</p>`));
      const none = await panel(server, '/admin/users/new?q_companyId=no-such-company-anywhere', { headers: ADMIN });
      assert.deepEqual(options(none.html, 'f-companyId'), [{ value: '', label: '—' }]);
      assert.match(none.html, /role="status">No company matches “no-such-company-anywhere”\.<\/p>/);

      // With the script: the same search as JSON, gated like every page.
      const json = await fetch(`${originOf(server)}/admin/companies/_choices?q=${encodeURIComponent(`FAR WIDGETS ${backend.name}`)}`, { headers: ADMIN });
      assert.equal(json.status, 200);
      assert.equal(json.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(json.headers.get('cache-control'), 'no-store');
      assert.equal(json.headers.get('x-frame-options'), 'DENY');
      assert.deepEqual(await json.json(), { data: [{ value: far.id, label: `Zz Far Widgets ${backend.name} (${far.id.slice(0, 8)})` }], meta: { total: 1, message: `1 match for “FAR WIDGETS ${backend.name}”.` } });
      const firstPage = (await (await fetch(`${originOf(server)}/admin/companies/_choices`, { headers: ADMIN })).json()) as { data: unknown[]; meta: { total: number } };
      assert.equal(firstPage.data.length, 100);
      assert.equal(firstPage.meta.total, total);
      assert.equal((await fetch(`${originOf(server)}/admin/companies/_choices?q=far`)).status, 401);
      assert.equal((await fetch(`${originOf(server)}/admin/tags/_choices?q=x`, { headers: ADMIN })).status, 404);

      // Saving the far company, then editing: the select shows it by name although it is not among the first 100.
      const { cookie, token: csrf } = csrfOf(large);
      const saved = await panel(server, '/admin/users', { headers: ADMIN, cookie, form: { _csrf: csrf, name: 'Far worker', email: `far-${backend.name}@example.com`, password: 'long enough', companyId: far.id } });
      assert.equal(saved.status, 303, saved.html);
      const id = saved.headers.get('location')!.split('/').pop()!;
      assert.equal((await server.request('GET', `/users/${id}`)).body.data.companyId, far.id);
      const edit = await panel(server, `/admin/users/${id}/edit`, { headers: ADMIN });
      assert.match(edit.html, new RegExp(`<option value="${far.id}" selected>Zz Far Widgets ${backend.name} \\(${far.id.slice(0, 8)}\\)</option>`));
      assert.match(edit.html, new RegExp(`<form id="f-companyId-lookup" class="lookup-form" method="get" action="/admin/users/${id}/edit"></form>`));
    });
  });

  describe('detail', () => {
    it('links foreign keys to the parent and HasMany to the filtered child list', async () => {
      const company = await create(server, 'companies', { name: `Detail ${backend.name}` });
      const user = await create(server, 'users', { name: 'Linked', email: `linked-${backend.name}@example.com`, password: 'long enough', companyId: company.id });
      const page = await panel(server, `/admin/users/${user.id}`, { headers: ADMIN });
      assert.equal(page.status, 200);
      assert.match(page.html, new RegExp(`<a href="/admin/companies/${company.id}">${company.id}</a>`));
      assert.match(page.html, new RegExp(`<a href="/admin/posts\\?f_userId=${user.id}">Posts</a>`));
      assert.match(page.html, new RegExp(`action="/admin/users/${user.id}/delete"`));
    });

    it('answers 404 for an unknown record, an unknown path and an unknown action', async () => {
      for (const path of ['/admin/users/00000000-0000-4000-8000-000000000000', '/admin/users/x/y/z', '/admin/users/x/publish']) {
        const page = await panel(server, path, { headers: ADMIN });
        assert.equal(page.status, 404, path);
        assert.match(mainText(page.html), /404 Not found/);
      }
    });

    it('answers 405 to a method other than GET and POST', async () => {
      const page = await panel(server, '/admin/users', { method: 'PUT', headers: ADMIN });
      assert.equal(page.status, 405);
    });
  });

  describe('create', () => {
    it('creates through the API as the gate\'s caller and answers 303 to the detail', async () => {
      const { cookie, token: csrf } = await formToken(server, '/admin/companies/new');
      const name = `Acme ${backend.name} ${Date.now()}`;
      writers.length = 0;
      const page = await panel(server, '/admin/companies', { headers: ADMIN, cookie, form: { _csrf: csrf, name, country: 'NL' } });
      assert.equal(page.status, 303);
      const location = page.headers.get('location')!;
      assert.match(location, /^\/admin\/companies\/[0-9a-f-]{36}$/);
      const id = location.split('/').pop()!;
      const stored = await server.request('GET', `/companies/${id}`);
      assert.equal(stored.body.data.name, name);
      assert.equal(stored.body.data.country, 'NL');
      assert.deepEqual(writers, ['admin-1']);
    });

    it('refuses a POST without the cookie, without the field, or with different tokens (403) and writes nothing', async () => {
      const { cookie, token: csrf } = await formToken(server, '/admin/companies/new');
      const other = csrfOf(await panel(server, '/admin/companies/new', { headers: ADMIN }));
      const name = `Forged ${backend.name} ${Date.now()}`;
      const attempts: Array<{ cookie?: string; form: Record<string, string> }> = [
        { form: { _csrf: csrf, name } },
        { cookie, form: { name } },
        { cookie, form: { _csrf: other.token, name } },
        { cookie: 'mfx_admin_csrf=short', form: { _csrf: 'short', name } },
      ];
      for (const attempt of attempts) {
        const page = await panel(server, '/admin/companies', { headers: ADMIN, ...attempt });
        assert.equal(page.status, 403);
        assert.match(mainText(page.html), /403 Form expired The form could not be verified/);
      }
      assert.equal(await count(server, 'companies', `name:eq:${name}`), 0);
    });

    it('re-renders a refused form with inline messages and the entered values (422), writing nothing', async () => {
      const { cookie, token: csrf } = await formToken(server, '/admin/users/new');
      const email = `invalid-${backend.name}-${Date.now()}@example.com`;
      const page = await panel(server, '/admin/users', { headers: ADMIN, cookie, form: { _csrf: csrf, name: 'A', email, password: 'short', role: 'boss' } });
      assert.equal(page.status, 422);
      assert.match(page.html, /<p class="error" id="f-name-error">must be at least 2 characters long<\/p>/);
      assert.match(page.html, /<p class="error" id="f-password-error">must be at least 8 characters long<\/p>/);
      assert.match(page.html, /<option value="boss" selected>boss<\/option>/);
      assert.match(page.html, /<p class="error" id="f-role-error">must be one of: admin, editor, member<\/p>/);
      assert.match(page.html, new RegExp(`id="f-email" name="email" value="${email}"`));
      assert.match(page.html, /id="f-password" name="password" value=""/, 'a secret is never sent back');
      assert.equal(await count(server, 'users', `email:eq:${email}`), 0);
    });

    it('answers 415 to a form that is not urlencoded', async () => {
      const { cookie, token: csrf } = await formToken(server, '/admin/companies/new');
      const page = await panel(server, '/admin/companies', { headers: { ...ADMIN, 'content-type': 'application/json' }, cookie, method: 'POST' });
      assert.equal(page.status, 415);
      assert.ok(csrf);
    });
  });

  describe('edit and delete', () => {
    it('shows immutable fields disabled and writeonly fields empty on edit, and saves with 303', async () => {
      const user = await create(server, 'users', { name: 'Editor', email: `editor-${backend.name}@example.com`, password: 'long enough' });
      const post = await create(server, 'posts', { title: 'Before', userId: user.id, slug: 'fixed-slug' });
      const form = await panel(server, `/admin/posts/${post.id}/edit`, { headers: ADMIN });
      assert.equal(form.status, 200);
      assert.match(form.html, /id="f-slug" name="slug" value="fixed-slug" type="text" disabled/);
      assert.match(form.html, /name="_etag" value="&quot;[0-9a-f]+&quot;"/);
      const { cookie, token: csrf } = csrfOf(form);
      const etag = /name="_etag" value="&quot;([0-9a-f]+)&quot;"/.exec(form.html)![1];
      const saved = await panel(server, `/admin/posts/${post.id}`, { headers: ADMIN, cookie, form: { _csrf: csrf, _etag: `"${etag}"`, title: 'After', userId: user.id, status: 'published', slug: 'changed', views: '7' } });
      assert.equal(saved.status, 303);
      assert.equal(saved.headers.get('location'), `/admin/posts/${post.id}`);
      const stored = (await server.request('GET', `/posts/${post.id}`)).body.data;
      assert.equal(stored.title, 'After');
      assert.equal(stored.status, 'published');
      assert.equal(stored.views, 7);
      assert.equal(stored.slug, 'fixed-slug');
    });

    it('answers 412 with the form again when the record changed since the form was opened', async () => {
      const user = await create(server, 'users', { name: 'Racer', email: `racer-${backend.name}@example.com`, password: 'long enough' });
      const post = await create(server, 'posts', { title: 'Original', userId: user.id });
      const form = await panel(server, `/admin/posts/${post.id}/edit`, { headers: ADMIN });
      const { cookie, token: csrf } = csrfOf(form);
      const etag = /name="_etag" value="&quot;([0-9a-f]+)&quot;"/.exec(form.html)![1];
      assert.equal((await server.request('PATCH', `/posts/${post.id}`, { body: { title: 'Elsewhere' }, headers: ADMIN })).status, 200);
      const page = await panel(server, `/admin/posts/${post.id}`, { headers: ADMIN, cookie, form: { _csrf: csrf, _etag: `"${etag}"`, title: 'Mine', userId: user.id } });
      assert.equal(page.status, 412);
      assert.match(mainText(page.html), /The record was not saved\. If-Match does not match/);
      assert.equal((await server.request('GET', `/posts/${post.id}`)).body.data.title, 'Elsewhere');
    });

    it('refuses an update and a delete without a matching token (403), changing nothing', async () => {
      const company = await create(server, 'companies', { name: `Kept ${backend.name} ${Date.now()}` });
      const update = await panel(server, `/admin/companies/${company.id}`, { headers: ADMIN, form: { name: 'Changed' } });
      const remove = await panel(server, `/admin/companies/${company.id}/delete`, { headers: ADMIN, form: {} });
      assert.equal(update.status, 403);
      assert.equal(remove.status, 403);
      assert.equal((await server.request('GET', `/companies/${company.id}`)).body.data.name, company.name);
    });

    it('deletes with 303 to the list', async () => {
      const company = await create(server, 'companies', { name: `Gone ${backend.name} ${Date.now()}` });
      const { cookie, token: csrf } = await formToken(server, `/admin/companies/${company.id}`);
      const page = await panel(server, `/admin/companies/${company.id}/delete`, { headers: ADMIN, cookie, form: { _csrf: csrf } });
      assert.equal(page.status, 303);
      assert.equal(page.headers.get('location'), '/admin/companies');
      assert.equal((await server.request('GET', `/companies/${company.id}`)).status, 404);
      assert.equal((await panel(server, `/admin/companies/${company.id}`, { headers: ADMIN })).status, 404);
    });
  });

  describe('stored XSS', () => {
    it('renders every stored value inert in the list, the detail and the edit form', async () => {
      const attack = `<script>alert(1)</script>"><img src=x onerror=alert(2)>`;
      const user = await create(server, 'users', { name: attack, email: `xss-${backend.name}@example.com`, password: 'long enough', bio: attack });
      const post = await create(server, 'posts', { title: attack, body: attack, userId: user.id, keywords: [attack], metadata: { x: attack }, slug: attack });
      for (const path of [`/admin/users/${user.id}`, `/admin/users/${user.id}/edit`, `/admin/posts/${post.id}`, `/admin/posts/${post.id}/edit`, '/admin/posts?f_title=%3Cscript', '/admin/posts/new']) {
        const page = await panel(server, path, { headers: ADMIN });
        assert.equal(page.status, 200, path);
        // The forms' one script is the panel's own file; nothing else may be a tag.
        const html = page.html.replace(/<script src="\/admin\/static\/admin\.js\?v=[0-9a-f]{12}" defer><\/script>/, '');
        assert.doesNotMatch(html, /<script|<img/i, path);
        assert.match(page.html, /&lt;script&gt;|&lt;img/, path);
      }
    });
  });
});

eachBackend('admin panel, read-only with templates and HTTP Basic', (backend) => {
  const templates = mkdtempSync(join(tmpdir(), 'mfx-admin-templates-'));
  writeFileSync(join(templates, 'dashboard.html'), `<% layout('@layout') %><h1>Custom board</h1><p><%= it.cards.length %> models</p>`);
  const server = useServer(backend, {
    setup(app) {
      void app.plugin(
        admin({
          readOnly: true,
          templates,
          path: '/back-office',
          auth: [basicAuth({ verify: (user, password) => (user === 'ada' && password === 'correct horse' ? identity({ userId: 'ada', roles: ['admin'], authMethod: 'basic' }) : null) })],
        }),
      );
    },
  });
  const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

  it('asks the browser for credentials (401 with a Basic challenge) and refuses wrong ones', async () => {
    const none = await panel(server, '/back-office/');
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Basic realm="admin", charset="UTF-8"');
    const wrong = await panel(server, '/back-office/', { headers: basic('ada', 'nope') });
    assert.equal(wrong.status, 401);
    assert.match(mainText(wrong.html), /the user name or the password is wrong/);
  });

  it('renders an overriding template from the templates directory', async () => {
    const page = await panel(server, '/back-office/', { headers: basic('ada', 'correct horse') });
    assert.equal(page.status, 200);
    assert.match(mainText(page.html), /Custom board 6 models/);
    assert.equal((await panel(server, '/admin/', { headers: basic('ada', 'correct horse') })).status, 404, 'nothing at the default path');
  });

  it('mounts no create, edit or delete route when read-only', async () => {
    const tag = (await server.request('POST', '/tags', { body: { name: `ro-${Date.now()}` } })).body.data;
    const auth = basic('ada', 'correct horse');
    const detail = await panel(server, `/back-office/tags/${tag.id}`, { headers: auth });
    assert.equal(detail.status, 200);
    assert.doesNotMatch(detail.html, /Edit|Delete|_csrf/);
    const { cookie } = { cookie: `mfx_admin_csrf=${'a'.repeat(64)}` };
    for (const [path, form] of [
      ['/back-office/tags/new', undefined],
      [`/back-office/tags/${tag.id}/edit`, undefined],
      ['/back-office/tags', { _csrf: 'a'.repeat(64), name: 'x' }],
      [`/back-office/tags/${tag.id}`, { _csrf: 'a'.repeat(64), name: 'x' }],
      [`/back-office/tags/${tag.id}/delete`, { _csrf: 'a'.repeat(64) }],
    ] as const) {
      const page = await panel(server, path, { headers: auth, cookie, ...(form ? { form } : {}) });
      assert.equal(page.status, 404, path);
    }
    assert.equal((await server.request('GET', `/tags/${tag.id}`)).body.data.name, tag.name);
  });
});

describe('admin panel without a gate', () => {
  const server = useServer(sqlite, { setup: (app) => void app.plugin(admin({ allowUnauthenticated: true, secure: false })) });

  it('serves everyone when allowUnauthenticated is set, with a cookie that is not Secure when secure is false', async () => {
    const page = await panel(server, '/admin/tags/new');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('set-cookie')!, /^mfx_admin_csrf=[0-9a-f]{64}; Path=\/admin; HttpOnly; SameSite=Lax$/);
    const warned = await server.logLine((line) => line.message?.includes('mounted without a gate') === true);
    assert.equal(warned.level, 'warn');
  });
});

eachBackend('admin panel with file fields', (backend) => {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-admin-files-'));
  const server = useServer(backend, {
    fixture: 'files',
    config: { files: { storage: diskStorage({ dir }) } },
    setup: (app) => void app.plugin(admin({ allowUnauthenticated: true })),
  });
  const formOf = (fields: Record<string, string>, files: Record<string, { name: string; type: string; data: Buffer }>) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(fields)) data.append(name, value);
    for (const [name, file] of Object.entries(files)) data.append(name, new Blob([new Uint8Array(file.data)], { type: file.type }), file.name);
    return data;
  };

  it('uploads a file through the form (multipart), stores its key and links it from the detail and the edit form', async () => {
    const page = await panel(server, '/admin/profiles/new');
    assert.match(page.html, /enctype="multipart\/form-data"/);
    assert.match(page.html, /<input type="file" id="f-avatar" name="avatar" accept="image\/\*">/);
    const { cookie, token: csrf } = csrfOf(page);
    const created = await panel(server, '/admin/profiles', { cookie, multipart: formOf({ _csrf: csrf, name: `Filed ${backend.name}` }, { avatar: { name: 'ada.png', type: 'image/png', data: SAMPLES.png } }) });
    assert.equal(created.status, 303, created.html);
    const id = created.headers.get('location')!.split('/').pop()!;
    const record = (await server.request('GET', `/profiles/${id}`)).body.data;
    assert.match(record.avatar, /\S/);
    const download = await fetch(`${server.url}/files/${record.avatar}`);
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(SAMPLES.png));
    const detail = await panel(server, `/admin/profiles/${id}`);
    assert.match(detail.html, new RegExp(`href="/api/files/${record.avatar}"`));
    const edit = await panel(server, `/admin/profiles/${id}/edit`, { cookie });
    assert.match(edit.html, new RegExp(`Current file: <a href="/api/files/${record.avatar}"`));
    // Saved again without a new file: the key stays.
    const saved = await panel(server, `/admin/profiles/${id}`, { cookie, multipart: formOf({ _csrf: csrf, name: 'Renamed' }, {}) });
    assert.equal(saved.status, 303);
    const after = (await server.request('GET', `/profiles/${id}`)).body.data;
    assert.equal(after.name, 'Renamed');
    assert.equal(after.avatar, record.avatar);
  });

  it('re-renders the form with the API\'s refusal of a file of a type the field does not accept (415), writing nothing', async () => {
    const { cookie, token: csrf } = csrfOf(await panel(server, '/admin/profiles/new'));
    const name = `Refused ${backend.name} ${Date.now()}`;
    const page = await panel(server, '/admin/profiles', { cookie, multipart: formOf({ _csrf: csrf, name }, { avatar: { name: 'notes.txt', type: 'text/plain', data: SAMPLES.text } }) });
    assert.equal(page.status, 415);
    assert.match(page.html, /<p class="error" id="f-avatar-error">the file &quot;avatar&quot; \(&quot;notes.txt&quot;\) is declared as text\/plain; the field accepts image\/\*<\/p>/);
    assert.match(page.html, new RegExp(`name="name" value="${name}"`));
    const all = (await server.request('GET', '/profiles?limit=200')).body.data as Array<{ name: string }>;
    assert.equal(all.filter((p) => p.name === name).length, 0);
  });

  it('clears a nullable text field to null alike from a urlencoded form and from a multipart one carrying a file', async () => {
    const folder = (await server.request('POST', '/folders', { body: { name: `Cleared ${backend.name}` } })).body.data;
    const pages = [];
    for (const slug of ['kept-url', 'kept-multipart']) {
      const made = await server.request('POST', '/pages', { body: { folderId: folder.id, slug: `${slug}-${backend.name}-${Date.now()}` } });
      assert.equal(made.status, 201, made.text);
      pages.push(made.body.data);
    }
    const { cookie, token: csrf } = csrfOf(await panel(server, `/admin/pages/${pages[0].id}/edit`));
    const url = await panel(server, `/admin/pages/${pages[0].id}`, { cookie, form: { _csrf: csrf, folderId: folder.id, slug: '' } });
    assert.equal(url.status, 303, url.html);
    const multi = await panel(server, `/admin/pages/${pages[1].id}`, { cookie, multipart: formOf({ _csrf: csrf, folderId: folder.id, slug: '' }, { image: { name: 'p.png', type: 'image/png', data: SAMPLES.png } }) });
    assert.equal(multi.status, 303, multi.html);
    const [first, second] = await Promise.all(pages.map(async (p) => (await server.request('GET', `/pages/${p.id}`)).body.data));
    assert.equal(first.slug, null);
    assert.equal(second.slug, null);
    assert.match(second.image, /\S/, 'the file of the multipart save is stored');
  });

  it('refuses a multipart POST without the CSRF token (403)', async () => {
    const page = await panel(server, '/admin/profiles', { multipart: formOf({ name: 'x' }, { avatar: { name: 'a.png', type: 'image/png', data: SAMPLES.png } }) });
    assert.equal(page.status, 403);
  });
});

eachBackend('admin panel with localized fields', (backend) => {
  const server = useServer(backend, {
    fixture: 'i18n',
    config: { locales: { supported: ['en', 'de', 'fr'] } },
    setup: (app) => void app.plugin(admin({ allowUnauthenticated: true })),
  });

  it('takes one input per supported locale and prefills them on edit', async () => {
    const page = await panel(server, '/admin/articles/new');
    assert.match(page.html, /<legend>Title \*<\/legend>/);
    assert.match(page.html, /name="title\.en" value=""/);
    assert.match(page.html, /name="title\.de" value=""/);
    const { cookie, token: csrf } = csrfOf(page);
    const created = await panel(server, '/admin/articles', { cookie, form: { _csrf: csrf, 'title.en': `Hello ${backend.name}`, 'title.de': 'Hallo' } });
    assert.equal(created.status, 303, created.html);
    const id = created.headers.get('location')!.split('/').pop()!;
    assert.deepEqual((await server.request('GET', `/articles/${id}`)).body.data.title_i18n, { en: `Hello ${backend.name}`, de: 'Hallo' });
    const edit = await panel(server, `/admin/articles/${id}/edit`, { cookie });
    assert.match(edit.html, new RegExp(`name="title\\.en" value="Hello ${backend.name}"`));
    assert.match(edit.html, /name="title\.de" value="Hallo"/);
  });

  it('prefills every locale of resolve and dynamic fields on edit (the API answers them as maps to the panel only), and saves them back unchanged', async () => {
    const stored = { title: { en: `Maps ${backend.name}` }, summary: { en: 'Short', de: 'Kurz', fr: 'Court' }, body: { en: 'Body', de: 'Rumpf' } };
    const article = await server.request('POST', '/articles', { body: stored });
    assert.equal(article.status, 201, article.text);
    const id = article.body.data.id;
    // Over HTTP a resolve field is its string only.
    const read = (await server.request('GET', `/articles/${id}`)).body.data;
    assert.equal(read.summary, 'Short');
    assert.equal('summary_i18n' in read, false);
    const edit = await panel(server, `/admin/articles/${id}/edit`);
    assert.equal(edit.status, 200);
    for (const [name, value] of [['summary.en', 'Short'], ['summary.de', 'Kurz'], ['summary.fr', 'Court'], ['body.en', 'Body'], ['body.de', 'Rumpf'], ['body.fr', ''], ['title.en', `Maps ${backend.name}`]]) {
      assert.match(edit.html, new RegExp(`name="${name.replace('.', '\\.')}" value="${value}"`), name);
    }
    const page = await server.request('POST', '/pages', { body: { heading: { de: 'Startseite', en: 'Home' } } });
    assert.equal(page.status, 201, page.text);
    const pageEdit = await panel(server, `/admin/pages/${page.body.data.id}/edit`);
    assert.match(pageEdit.html, /name="heading\.de" value="Startseite"/);
    assert.match(pageEdit.html, /name="heading\.en" value="Home"/);
    // Saved as the form shows it: the maps are written back as they were.
    const { cookie, token: csrf } = csrfOf(edit);
    const form: Record<string, string> = { _csrf: csrf };
    for (const match of edit.html.matchAll(/name="((?:title|summary|body|motto)\.[a-z]{2})" value="([^"]*)"/g)) form[match[1]!] = match[2]!;
    const saved = await panel(server, `/admin/articles/${id}`, { cookie, form });
    assert.equal(saved.status, 303, saved.html);
    const after = await server.request('GET', `/articles/${id}`);
    assert.deepEqual(after.body.data.title_i18n, stored.title);
    assert.equal(after.body.data.summary, 'Short');
    assert.deepEqual((await server.request('GET', `/articles/${id}?locale=de`)).body.data.summary, 'Kurz');
    assert.deepEqual((await server.request('GET', `/articles/${id}`)).body.data.body, stored.body);
  });
});

eachBackend('admin panel beside the API\'s csrf()', (backend) => {
  const server = useServer(backend, {
    setup(app) {
      // A browser API with cookie sessions: every unsafe request needs the csrf() token, reads are public.
      app.use('auth', csrf({ secure: false }));
      void app.plugin(admin({ auth: [bearer({ secret: SECRET }), requireRole('admin')] }));
    },
  });

  it('creates, edits and deletes from the panel: its in-process calls are not refused by csrf()', async () => {
    const { cookie, token: field } = await formToken(server, '/admin/tags/new');
    const name = `csrf-both-${backend.name}-${Date.now()}`;
    const created = await panel(server, '/admin/tags', { headers: ADMIN, cookie, form: { _csrf: field, name } });
    assert.equal(created.status, 303, created.html);
    const id = created.headers.get('location')!.split('/').pop()!;
    const edited = await panel(server, `/admin/tags/${id}`, { headers: ADMIN, cookie, form: { _csrf: field, name: `${name}-edited` } });
    assert.equal(edited.status, 303, edited.html);
    assert.equal((await server.request('GET', `/tags/${id}`)).body.data.name, `${name}-edited`);
    const deleted = await panel(server, `/admin/tags/${id}/delete`, { headers: ADMIN, cookie, form: { _csrf: field } });
    assert.equal(deleted.status, 303, deleted.html);
    assert.equal((await server.request('GET', `/tags/${id}`)).status, 404);
  });

  it('still refuses a forged write over HTTP, at the API (csrf()) and at the panel (its own token), writing nothing', async () => {
    const name = `csrf-forged-${backend.name}-${Date.now()}`;
    const api = await server.request('POST', '/tags', { body: { name }, headers: { ...ADMIN, cookie: `csrf_token=${'a'.repeat(64)}` } });
    assert.equal(api.status, 403);
    assert.deepEqual(api.body.error, { code: 'CSRF_TOKEN_MISSING', message: 'missing X-CSRF-Token header: send the value of the csrf_token cookie in it' });
    const page = await panel(server, '/admin/tags', { headers: ADMIN, form: { name } });
    assert.equal(page.status, 403);
    assert.match(mainText(page.html), /403 Form expired/);
    assert.equal(await count(server, 'tags', `name:eq:${name}`), 0);
  });
});

eachBackend('admin panel field rules', (backend) => {
  const server = useServer(backend, { fixture: 'admin', setup: (app) => void app.plugin(admin({ allowUnauthenticated: true })) });

  it('leaves readonly and hidden fields out of the create form, checks a checkbox by its default, and keeps a bound number\'s limits', async () => {
    const page = await panel(server, '/admin/gadgets/new');
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.html, /name="importedFrom"|name="rank"/);
    assert.match(page.html, /<input type="checkbox" id="f-active" name="active" checked>/);
    assert.match(page.html, /id="f-size" name="size" value="" type="number" min=1 max=9 step=1/);
    assert.match(page.html, /id="f-pin" name="pin" value="" type="password"/);
    assert.match(page.html, /id="f-serial" name="serial" value="" type="text" maxlength=40>/);
  });

  it('shows readonly and immutable fields disabled on edit, unchecks a checkbox, and keeps a writeonly value left empty', async () => {
    const created = await server.request('POST', '/gadgets', { body: { name: `Gizmo ${backend.name}`, serial: 'S-1', pin: 'secret-pin', active: true } });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    const edit = await panel(server, `/admin/gadgets/${id}/edit`);
    assert.match(edit.html, /id="f-importedFrom" name="importedFrom" value="" type="text" maxlength=80 disabled aria-describedby="f-importedFrom-hint"/);
    assert.match(edit.html, /<p class="hint" id="f-importedFrom-hint">Read-only\.<\/p>/);
    assert.match(edit.html, /id="f-serial" name="serial" value="S-1" type="text" maxlength=40 disabled/);
    assert.match(edit.html, /id="f-pin" name="pin" value="" type="password"/);
    assert.doesNotMatch(edit.html, /secret-pin/);
    const { cookie, token: csrf } = csrfOf(edit);
    const saved = await panel(server, `/admin/gadgets/${id}`, { cookie, form: { _csrf: csrf, name: 'Renamed', serial: 'S-2', importedFrom: 'forged', pin: '', size: '3' } });
    assert.equal(saved.status, 303, saved.html);
    const stored = (await server.request('GET', `/gadgets/${id}`)).body.data;
    assert.equal(stored.name, 'Renamed');
    assert.equal(stored.active, false);
    assert.equal(stored.size, 3);
    assert.equal(stored.serial, 'S-1');
    assert.equal(stored.importedFrom, null);
    assert.equal('pin' in stored, false);
  });
});
