// Issue 20, item 2: csrf(), double-submit-cookie protection for browser
// clients with cookie sessions. Safe methods issue the token cookie; unsafe
// ones need the header equal to the cookie and an allowed Origin/Referer;
// bearer callers are exempt; every refusal is a 403 with nothing written.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type App, bearer, csrf, identity, markInProcess } from '@mfx/runtime';
import { inject } from 'light-my-request';
import { bearerHeader, SECRET, token } from '../support/auth.js';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

const APP = 'https://app.example.com';
const TOKEN = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);

/** A cookie-session authenticator (a `session=ok` cookie), then bearer() for API clients' writes (reads are public), then csrf(). */
function setup(options: Parameters<typeof csrf>[0]) {
  return (app: App) => {
    app.use('auth', async (ctx, next) => {
      if (/(?:^|;\s*)session=ok(?:;|$)/.test(ctx.req.headers.cookie ?? '')) ctx.identity = identity({ userId: 'u1', authMethod: 'session' });
      await next();
    });
    app.use('auth', bearer({ secret: SECRET }), { ops: ['create', 'update', 'delete'] });
    app.use('auth', csrf(options));
  };
}

const cookies = (...pairs: string[]) => ({ cookie: ['session=ok', ...pairs].join('; ') });

eachBackend('csrf()', (backend) => {
  const server = useServer(backend, { setup: setup({ origins: [APP] }) });
  const tags = async () => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM tags'))[0]!.n);

  /** A refused write: 403 with the code and message, and no row added, changed or removed. */
  async function refused(method: string, path: string, headers: Record<string, string>, code: string, message: string) {
    const before = await tags();
    const names = (await server.app.db.raw('SELECT name FROM tags ORDER BY name')).map((r) => r.name);
    const res = await server.request(method, path, { headers, ...(method === 'DELETE' ? {} : { body: { name: `refused-${Math.random()}` } }) });
    assert.equal(res.status, 403, res.text);
    assert.deepEqual(res.body, { error: { code, message } });
    assert.equal(await tags(), before, 'nothing was written');
    assert.deepEqual((await server.app.db.raw('SELECT name FROM tags ORDER BY name')).map((r) => r.name), names);
  }

  it('a safe request without the cookie is given one: 32 random bytes in hex, SameSite=Lax, Secure, not HttpOnly, Path the prefix', async () => {
    const first = await server.request('GET', '/tags');
    const second = await server.request('GET', '/tags');
    const prefix = server.app.config.pathPrefix || '/';
    const pattern = new RegExp(`^csrf_token=([0-9a-f]{64}); Path=${prefix.replaceAll('/', '\\/')}; SameSite=Lax; Secure$`);
    const a = pattern.exec(first.headers.get('set-cookie') ?? '');
    const b = pattern.exec(second.headers.get('set-cookie') ?? '');
    assert.ok(a && b, first.headers.get('set-cookie') ?? 'no Set-Cookie');
    assert.notEqual(a[1], b[1], 'random per issue');
    assert.doesNotMatch(first.headers.get('set-cookie')!, /HttpOnly/i);
  });

  it('a safe request that has a token keeps it (no new cookie)', async () => {
    const res = await server.request('GET', '/tags', { headers: cookies(`csrf_token=${TOKEN}`) });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('set-cookie'), null);
  });

  it('an unsafe request with the header equal to the cookie passes', async () => {
    const res = await server.request('POST', '/tags', { headers: { ...cookies(`csrf_token=${TOKEN}`), 'x-csrf-token': TOKEN, origin: APP }, body: { name: 'ok-1' } });
    assert.equal(res.status, 201, res.text);
    const id = res.body.data.id;
    const patched = await server.request('PATCH', `/tags/${id}`, { headers: { ...cookies(`csrf_token=${TOKEN}`), 'x-csrf-token': TOKEN }, body: { name: 'ok-2' } });
    assert.equal(patched.status, 200, 'no Origin or Referer: the token decides');
  });

  it('no header: 403 CSRF_TOKEN_MISSING on POST, PATCH and DELETE', async () => {
    const id = (await server.request('POST', '/tags', { headers: bearerHeader(token()), body: { name: 'target-1' } })).body.data.id;
    const message = 'missing X-CSRF-Token header: send the value of the csrf_token cookie in it';
    await refused('POST', '/tags', cookies(`csrf_token=${TOKEN}`), 'CSRF_TOKEN_MISSING', message);
    await refused('PATCH', `/tags/${id}`, cookies(`csrf_token=${TOKEN}`), 'CSRF_TOKEN_MISSING', message);
    await refused('DELETE', `/tags/${id}`, { ...cookies(`csrf_token=${TOKEN}`), 'x-csrf-token': '' }, 'CSRF_TOKEN_MISSING', message);
  });

  it('no cookie: 403 CSRF_COOKIE_MISSING', async () => {
    await refused('POST', '/tags', { ...cookies(), 'x-csrf-token': TOKEN }, 'CSRF_COOKIE_MISSING', 'missing csrf_token cookie: make a GET request first to receive it, then send its value in X-CSRF-Token');
  });

  it('a header that differs from the cookie: 403 CSRF_TOKEN_MISMATCH (any length)', async () => {
    const message = 'the X-CSRF-Token header does not match the csrf_token cookie';
    await refused('POST', '/tags', { ...cookies(`csrf_token=${TOKEN}`), 'x-csrf-token': OTHER }, 'CSRF_TOKEN_MISMATCH', message);
    await refused('POST', '/tags', { ...cookies(`csrf_token=${TOKEN}`), 'x-csrf-token': 'short' }, 'CSRF_TOKEN_MISMATCH', message);
  });

  it('an Origin, or without one a Referer, outside origins: 403 CSRF_ORIGIN_REJECTED even with a matching token', async () => {
    const good = { ...cookies(`csrf_token=${TOKEN}`), 'x-csrf-token': TOKEN };
    const message = (from: string) => `requests from origin ${from} are not accepted; allowed origins: ${APP}`;
    await refused('POST', '/tags', { ...good, origin: 'https://evil.example' }, 'CSRF_ORIGIN_REJECTED', message('https://evil.example'));
    await refused('POST', '/tags', { ...good, origin: 'null' }, 'CSRF_ORIGIN_REJECTED', message('null'));
    await refused('POST', '/tags', { ...good, referer: 'https://evil.example/page?x=1' }, 'CSRF_ORIGIN_REJECTED', message('https://evil.example'));
    const fromApp = await server.request('POST', '/tags', { headers: { ...good, referer: `${APP}/settings` }, body: { name: 'from-app' } });
    assert.equal(fromApp.status, 201, fromApp.text);
  });

  it('a bearer-authenticated request is exempt: no cookie, no header', async () => {
    const res = await server.request('POST', '/tags', { headers: bearerHeader(token()), body: { name: 'bearer-1' } });
    assert.equal(res.status, 201, res.text);
  });

  it('a request marked in-process (the admin panel\'s calls) passes without the token; the same request from outside is refused', async () => {
    const handler = server.app.handler();
    const prefix = server.app.config.pathPrefix;
    const send = (marked: boolean) =>
      inject(
        (req, res) => {
          if (marked) markInProcess(req, { identity: identity({ userId: 'panel-user', authMethod: 'basic' }) });
          handler(req, res);
        },
        { method: 'POST', url: `${prefix}/tags`, headers: { 'content-type': 'application/json', ...cookies() }, payload: JSON.stringify({ name: `in-process-${marked}` }) },
      );
    const outside = await send(false);
    assert.equal(outside.statusCode, 403);
    assert.deepEqual(JSON.parse(outside.payload), { error: { code: 'CSRF_TOKEN_MISSING', message: 'missing X-CSRF-Token header: send the value of the csrf_token cookie in it' } });
    assert.equal((await server.request('GET', '/tags?filter=name:eq:in-process-false')).body.meta.total, 0);
    const inside = await send(true);
    assert.equal(inside.statusCode, 201, inside.payload);
    assert.equal(JSON.parse(inside.payload).data.name, 'in-process-true');
  });

  it('a bad bearer token is still 401 (the authenticator decides first)', async () => {
    const res = await server.request('POST', '/tags', { headers: bearerHeader('nope'), body: { name: 'bearer-2' } });
    assert.equal(res.status, 401);
  });

  it('OpenAPI: the header parameter and the 403 on unsafe routes, neither on reads', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    for (const op of [doc.paths['/tags'].post, doc.paths['/tags/{id}'].patch, doc.paths['/tags/{id}'].delete]) {
      assert.ok(op.parameters.some((p: { name: string; in: string }) => p.name === 'X-CSRF-Token' && p.in === 'header'));
      assert.ok(op.responses['403']);
    }
    assert.ok(!(doc.paths['/tags'].get.parameters ?? []).some((p: { name: string }) => p.name === 'X-CSRF-Token'));
  });
});

describe('csrf() options', () => {
  it('exemptBearer: false checks bearer callers too; secure: false drops Secure; cookie and header are renamed', async () => {
    const server = await startServer(sqlite, { setup: setup({ exemptBearer: false, secure: false, cookie: 'xsrf', header: 'X-XSRF' }) });
    try {
      const got = await server.request('GET', '/tags');
      assert.match(got.headers.get('set-cookie') ?? '', /^xsrf=[0-9a-f]{64}; Path=[^;]+; SameSite=Lax$/);
      const res = await server.request('POST', '/tags', { headers: bearerHeader(token()), body: { name: 'b' } });
      assert.deepEqual([res.status, res.body], [403, { error: { code: 'CSRF_TOKEN_MISSING', message: 'missing X-XSRF header: send the value of the xsrf cookie in it' } }]);
      const ok = await server.request('POST', '/tags', { headers: { ...bearerHeader(token()), cookie: `xsrf=${TOKEN}`, 'x-xsrf': TOKEN }, body: { name: 'b' } });
      assert.equal(ok.status, 201);
    } finally {
      await server.close();
    }
  });

  /** Starting fails (startServer's start throws; the in-memory database goes with the process). */
  const boot = (register: (app: App) => void) => startServer(sqlite, { setup: register });

  it('registered before the authenticator, at another step, or with a bad origin: refused at startup', async () => {
    await assert.rejects(boot((app) => (app.use('auth', csrf()), app.use('auth', bearer({ secret: SECRET })))), {
      message: 'mfx: csrf() is registered before bearer(), so it cannot see a bearer caller to exempt; register csrf() after the authenticator',
    });
    await assert.rejects(boot((app) => app.use('validate', csrf())), { message: 'mfx: csrf() belongs at the auth step, registered after the authenticator, not at validate' });
    assert.throws(() => csrf({ origins: ['https://app.example.com/'] }), { message: 'mfx: csrf(): origin "https://app.example.com/" must be scheme://host[:port] with no path or trailing slash' });
    assert.throws(() => csrf({ cookie: 'a b' }), /is not a cookie name/);
  });
});
