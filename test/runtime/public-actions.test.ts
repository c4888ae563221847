// Issue 14, defect 10: an action declared `public: true` skips the app-wide
// authenticators (and the gates that need their identity); its own `auth`
// hooks still run, admitting callers without a credential. The document
// says the same.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type App, apiKey, bearer, type Hook, requireRole } from '@mfx/runtime';
import { SECRET, bearerHeader, token } from '../support/auth.js';
import { eachBackend, useServer } from '../support/suite.js';

const KEY = 'key-0123456789abcdef';

/** An app-wide Auth hook without metadata: not an authenticator, so public actions keep it. */
const stamp: Hook = async (ctx, next) => {
  await next();
  ctx.headers['X-Stamped'] = 'yes';
};

function declare(app: App): void {
  app.use('auth', bearer({ secret: SECRET }));
  app.use('auth', requireRole('member'));
  app.use('auth', stamp, { ops: ['action'] });
  app.action({ method: 'GET', path: '/status', public: true, handler: (ctx) => ({ caller: ctx.identity?.userId ?? null }) });
  app.action({ method: 'POST', path: '/signals', public: true, auth: [apiKey({ keys: { [KEY]: { userId: 'svc' } } })], handler: (ctx) => ({ caller: ctx.identity?.userId ?? null }) });
  app.action({ method: 'GET', path: '/private', handler: (ctx) => ({ caller: ctx.identity?.userId ?? null }) });
}

eachBackend('public actions under an app-wide bearer()', (backend) => {
  const server = useServer(backend, { setup: declare });

  it('serves a public action to anonymous callers; app-wide hooks that are not authenticators still run', async () => {
    const res = await server.request('GET', '/status');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: { caller: null } });
    assert.equal(res.headers.get('x-stamped'), 'yes');
    assert.equal((await server.request('HEAD', '/status')).status, 200);
  });

  it('does not read an app-wide credential on a public action: a bad token is not its concern', async () => {
    const res = await server.request('GET', '/status', { headers: bearerHeader('x.y.z') });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: { caller: null } });
  });

  it("runs a public action's own authenticators: no credential passes, a good one identifies, a bad one is 401", async () => {
    assert.deepEqual((await server.request('POST', '/signals')).body, { data: { caller: null } });
    assert.deepEqual((await server.request('POST', '/signals', { headers: { 'x-api-key': KEY } })).body, { data: { caller: 'svc' } });
    const bad = await server.request('POST', '/signals', { headers: { 'x-api-key': 'key-wrong-wrong-wrong' } });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error.code, 'UNAUTHORIZED');
  });

  it('keeps the app-wide authenticator and gate on actions that are not public', async () => {
    const anonymous = await server.request('GET', '/private');
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'UNAUTHORIZED');
    const member = await server.request('GET', '/private', { headers: bearerHeader(token({ sub: 'ada', roles: ['member'] })) });
    assert.deepEqual(member.body, { data: { caller: 'ada' } });
    const stranger = await server.request('GET', '/private', { headers: bearerHeader(token({ sub: 'bob' })) });
    assert.equal(stranger.status, 403);
  });

  it('documents what the server does: anonymous allowed, own schemes only', async () => {
    const doc = (await server.request('GET', '/openapi.json', { headers: bearerHeader(token({ roles: ['member'] })) })).body;
    assert.deepEqual(doc.paths['/status'].get.security, []);
    assert.equal(doc.paths['/status'].get.responses['401'], undefined);
    assert.deepEqual(doc.paths['/signals'].post.security, [{ apiKeyAuth: [] }, {}]);
    assert.deepEqual(doc.paths['/private'].get.security, [{ bearerAuth: [] }]);
  });
});
