// Authentication and access control: authenticators, the default public Auth
// step, anonymous access, public reads, role and scope gates and block.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, allowAnonymous, apiKey, authenticator, bearer, block, identity, publicRead, requireAnyScope, requireRole, requireScopes } from '@mfx/runtime';
import { SECRET, bearerHeader, token } from '../support/auth.js';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

const SERVICE_KEY = 'service-key-0123456789abcdef';
const ISSUER = 'mfx-test';
const jwtAuth = () => bearer({ secret: SECRET, issuer: ISSUER, tenantClaim: 'org' });
const keyAuth = () => apiKey({ keys: { [SERVICE_KEY]: { userId: 'svc', roles: ['admin'], scopes: ['tags:admin'] } } });
const editor = () => bearerHeader(token({ roles: ['editor'], scope: 'tags:write', jti: 'session-9', org: 'acme' }, { issuer: ISSUER }));
const member = () => bearerHeader(token({ roles: 'member', scope: 'tags:read tags:write' }, { issuer: ISSUER }));

eachBackend('authentication and access control', (backend) => {
  const count = async (table: string) => (await server.request('GET', `/${table}`)).body.meta.total as number;

  const server = useServer(backend, {
    setup(app) {
      // Tag: public reads, writes need a token or an API key, and gates.
      app.use('auth', allowAnonymous(), { models: ['Tag'], ops: ['list', 'read'] });
      app.use('auth', jwtAuth(), { models: ['Tag'] });
      app.use('auth', keyAuth(), { models: ['Tag'] });
      app.use('auth', requireRole('editor', 'admin'), { models: ['Tag'], ops: ['create'] });
      app.use('auth', requireScopes('tags:write', 'tags:read'), { models: ['Tag'], ops: ['update'] });
      app.use('auth', requireAnyScope('tags:delete', 'tags:admin'), { models: ['Tag'], ops: ['delete'] });
      // Post: anonymous allowed, then publicRead makes writes need a credential.
      app.use('auth', allowAnonymous(), { models: ['Post'] });
      app.use('auth', jwtAuth(), { models: ['Post'] });
      app.use('auth', publicRead(), { models: ['Post'] });
      // Comment: deletes are blocked for everyone.
      app.use('auth', block('delete'), { models: ['Comment'] });
      // User: every operation needs a token.
      app.use('auth', jwtAuth(), { models: ['User'] });
      app.action({ method: 'GET', path: '/whoami', auth: [jwtAuth(), keyAuth()], handler: (ctx) => ctx.identity });
    },
  });

  it('leaves operations without an authenticator public (the default Auth step is a passthrough)', async () => {
    const created = await server.request('POST', '/companies', { body: { name: 'Open Co' } });
    assert.equal(created.status, 201);
    assert.equal((await server.request('GET', '/companies')).status, 200);
  });

  it('answers 401 UNAUTHORIZED without a credential, and writes nothing', async () => {
    const res = await server.request('POST', '/tags', { body: { name: 'nope' } });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { error: { code: 'UNAUTHORIZED', message: 'missing bearer token: send Authorization: Bearer <token>' } });
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    assert.equal(await count('tags'), 0);
    const users = await server.request('GET', '/users');
    assert.equal(users.status, 401);
    assert.equal(users.body.error.code, 'UNAUTHORIZED');
  });

  it('fills the identity from a bearer token: sub, roles, scope, jti, tenant claim, every claim', async () => {
    const res = await server.request('GET', '/whoami', { headers: editor() });
    assert.equal(res.status, 200);
    const id = res.body.data;
    assert.equal(id.userId, 'user-1');
    assert.deepEqual(id.roles, ['editor']);
    assert.deepEqual(id.scopes, ['tags:write']);
    assert.equal(id.sessionId, 'session-9');
    assert.equal(id.tenantId, 'acme');
    assert.equal(id.identityType, 'human');
    assert.equal(id.authMethod, 'jwt');
    assert.equal(id.claims.iss, ISSUER);
    // roles as a space-separated string, scopes as a space-separated list
    const other = await server.request('GET', '/whoami', { headers: member() });
    assert.deepEqual(other.body.data.roles, ['member']);
    assert.deepEqual(other.body.data.scopes, ['tags:read', 'tags:write']);
    assert.equal(other.body.data.tenantId, null);
  });

  it('maps API keys to preset service-account identities; an unknown key is 401', async () => {
    const res = await server.request('GET', '/whoami', { headers: { 'x-api-key': SERVICE_KEY } });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.userId, 'svc');
    assert.equal(res.body.data.identityType, 'service_account');
    assert.equal(res.body.data.authMethod, 'api_key');
    const bad = await server.request('POST', '/tags', { headers: { 'x-api-key': 'wrong-key-0123456789' }, body: { name: 'x' } });
    assert.equal(bad.status, 401);
    assert.deepEqual(bad.body.error, { code: 'UNAUTHORIZED', message: 'the API key in X-API-Key is not valid' });
    assert.equal(await count('tags'), 0);
  });

  it('role gate: 403 FORBIDDEN without the role; passes with one of the roles', async () => {
    const refused = await server.request('POST', '/tags', { headers: member(), body: { name: 'member-tag' } });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body.error, { code: 'FORBIDDEN', message: 'this operation needs the role editor or admin' });
    assert.equal(await count('tags'), 0);
    const byEditor = await server.request('POST', '/tags', { headers: editor(), body: { name: 'editor-tag' } });
    assert.equal(byEditor.status, 201);
    const byKey = await server.request('POST', '/tags', { headers: { 'x-api-key': SERVICE_KEY }, body: { name: 'service-tag' } });
    assert.equal(byKey.status, 201);
  });

  it('requireScopes needs every scope; requireAnyScope one of them', async () => {
    const tag = (await server.request('POST', '/tags', { headers: editor(), body: { name: 'scoped' } })).body.data;
    const partial = await server.request('PATCH', `/tags/${tag.id}`, { headers: editor(), body: { name: 'renamed' } });
    assert.equal(partial.status, 403);
    assert.deepEqual(partial.body.error, { code: 'FORBIDDEN', message: 'this operation needs the scopes tags:write, tags:read' });
    assert.equal((await server.request('GET', `/tags/${tag.id}`)).body.data.name, 'scoped');
    const full = await server.request('PATCH', `/tags/${tag.id}`, { headers: member(), body: { name: 'renamed' } });
    assert.equal(full.status, 200);
    const noScope = await server.request('DELETE', `/tags/${tag.id}`, { headers: editor() });
    assert.equal(noScope.status, 403);
    assert.deepEqual(noScope.body.error, { code: 'FORBIDDEN', message: 'this operation needs one of the scopes tags:delete, tags:admin' });
    assert.equal((await server.request('GET', `/tags/${tag.id}`)).status, 200);
    const anyScope = await server.request('DELETE', `/tags/${tag.id}`, { headers: { 'x-api-key': SERVICE_KEY } });
    assert.equal(anyScope.status, 204);
  });

  it('allowAnonymous: no credential is served with no identity; a bad credential is still 401', async () => {
    assert.equal((await server.request('GET', '/tags')).status, 200);
    const bad = await server.request('GET', '/tags', { headers: bearerHeader('not.a.token') });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error.code, 'UNAUTHORIZED');
    const badKey = await server.request('GET', '/tags', { headers: { 'x-api-key': 'wrong-key-0123456789' } });
    assert.equal(badKey.status, 401);
  });

  it('publicRead behind allowAnonymous: anonymous list and read; anonymous writes 401', async () => {
    assert.equal((await server.request('GET', '/posts')).status, 200);
    const users = await server.request('POST', '/companies', { body: { name: 'Writers' } });
    assert.equal(users.status, 201);
    const anonymous = await server.request('POST', '/posts', { body: { title: 'Anonymous', userId: '00000000-0000-4000-8000-000000000000' } });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body.error, { code: 'UNAUTHORIZED', message: 'create on Post needs a credential; only list and read are public' });
    assert.equal(await count('posts'), 0);
    const badToken = await server.request('GET', '/posts', { headers: bearerHeader(token({}, { issuer: 'someone-else' })) });
    assert.equal(badToken.status, 401);
    assert.deepEqual(badToken.body.error, { code: 'UNAUTHORIZED', message: 'the bearer token has the wrong issuer' });
  });

  it('block refuses the listed operations with 403 FORBIDDEN whoever calls', async () => {
    const res = await server.request('DELETE', '/comments/00000000-0000-4000-8000-000000000000', { headers: editor() });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body.error, { code: 'FORBIDDEN', message: 'delete is blocked on Comment' });
    assert.equal((await server.request('GET', '/comments')).status, 200);
  });
});

describe('authentication hooks at startup', () => {
  it('refuses allowAnonymous() registered after the authenticator, and without a scope', async () => {
    await assert.rejects(
      startServer(sqlite, {
        setup(app) {
          app.use('auth', jwtAuth(), { models: ['Tag'] });
          app.use('auth', allowAnonymous(), { models: ['Tag'], ops: ['list'] });
        },
      }),
      /allowAnonymous\(\) is registered after bearer\(\) for the same routes; register allowAnonymous\(\) first/,
    );
    await assert.rejects(startServer(sqlite, { setup: (app) => void app.use('auth', allowAnonymous()) }), /allowAnonymous\(\) needs a scope/);
  });

  it('refuses a gate registered before the authenticator of the same routes', async () => {
    await assert.rejects(
      startServer(sqlite, {
        setup(app) {
          app.use('auth', requireRole('admin'), { models: ['Tag'] });
          app.use('auth', jwtAuth(), { models: ['Tag', 'Post'] });
        },
      }),
      /requireRole\(admin\) is registered before bearer\(\) on the same routes; register the gate after the authenticator/,
    );
  });

  it('refuses publicRead() without allowAnonymous() before it', async () => {
    await assert.rejects(
      startServer(sqlite, { setup: (app) => void app.use('auth', publicRead(), { models: ['Post'] }) }),
      /publicRead\(\) covers Post list but no allowAnonymous\(\) runs before it there/,
    );
  });

  it('serves custom authenticators built with authenticator() like the ready-made ones', async () => {
    const session = authenticator({
      label: 'session()',
      scheme: { type: 'apiKey', in: 'header', name: 'X-Session' },
      missing: 'missing X-Session header',
      present: (req) => req.headers['x-session'] !== undefined,
      authenticate(ctx) {
        if (ctx.req.headers['x-session'] !== 'valid-session') throw new ApiError('UNAUTHORIZED', 'the session has ended; sign in again');
        return identity({ userId: 'from-session', authMethod: 'session' });
      },
    });
    const server = await startServer(sqlite, { setup: (app) => void app.use('auth', session, { models: ['Tag'] }) });
    try {
      assert.deepEqual((await server.request('GET', '/tags')).body.error, { code: 'UNAUTHORIZED', message: 'missing X-Session header' });
      assert.deepEqual((await server.request('GET', '/tags', { headers: { 'x-session': 'old' } })).body.error, { code: 'UNAUTHORIZED', message: 'the session has ended; sign in again' });
      assert.equal((await server.request('GET', '/tags', { headers: { 'x-session': 'valid-session' } })).status, 200);
      const security = server.app.describeSecurity();
      assert.deepEqual(security.schemes, { apiKeyAuth_X_Session: { type: 'apiKey', in: 'header', name: 'X-Session' } });
      assert.deepEqual(security.operations.find((o) => o.model === 'Tag' && o.op === 'list')!.security, ['apiKeyAuth_X_Session']);
    } finally {
      await server.close();
    }
  });

  it('refuses bad authenticator options', () => {
    assert.throws(() => bearer({}), /bearer\(\) needs a secret \(HS256\/384\/512\) or a publicKey/);
    assert.throws(() => bearer({ secret: '' }), /empty secret/);
    assert.throws(() => bearer({ secret: 'x', algorithms: ['RS256'] }), /algorithms RS256 do not fit the key; this key allows HS256, HS384, HS512/);
    assert.throws(() => apiKey({ keys: {} }), /at least one key/);
    assert.throws(() => apiKey({ keys: { short: {} } }), /at least 16 characters/);
    assert.throws(() => requireRole(), /requireRole\(\) needs at least one non-empty name/);
  });
});
