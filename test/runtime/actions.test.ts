// Custom actions: own method, path parameters, handler, hooks between Auth and
// the handler, the trimmed pipeline, collisions and their declared metadata.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ApiError, type App, actionPaths, allowAnonymous, apiKey, bearer, type Hook, requireRole } from '@mfx/runtime';
import { SECRET, bearerHeader, token } from '../support/auth.js';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

const mark = (label: string): Hook => async (ctx, next) => {
  ((ctx.state.order ??= []) as string[]).push(label);
  await next();
};

function declare(app: App): void {
  // App-wide hooks on steps that actions must skip, and on those they keep.
  app.use('auth', mark('app-auth'), { ops: ['action'] });
  app.use('deserialize', mark('deserialize'));
  app.use('validate', mark('validate'));
  app.use('service', mark('service'));
  app.use('db', mark('db'));
  app.use('response', async (ctx, next) => {
    await next();
    ctx.headers['X-Order'] = ((ctx.state.order ?? []) as string[]).join(',');
  }, { position: 'after' });

  app.action({
    method: 'POST',
    path: '/posts/:id/publish',
    name: 'publishPost',
    summary: 'Publish a post',
    auth: [bearer({ secret: SECRET }), requireRole('editor')],
    hooks: [mark('action-hook')],
    parameters: [{ name: 'notify', description: 'send e-mails' }, { name: 'X-Trace', in: 'header' }],
    request: { schema: { type: 'object', properties: { note: { type: 'string' } } } },
    response: { schema: { type: 'object', properties: { id: { type: 'string' }, status: { type: 'string' } } } },
    async handler(ctx, input) {
      ((ctx.state.order ??= []) as string[]).push('handler');
      const body = await input.json();
      const store = app.store('Post');
      const post = await store.findById(ctx.db, ctx.params.id);
      if (!post) throw new ApiError('NOT_FOUND', `no Post with id "${ctx.params.id}"`);
      const updated = await store.update(ctx.db, ctx.params.id, { status: 'published' });
      return { id: updated!.id, status: updated!.status, note: body.note ?? null, notify: ctx.searchParams.get('notify') };
    },
  });
  app.action({ method: 'GET', path: '/stats', public: true, handler: async (ctx) => ({ posts: (await app.store('Post').list(ctx.db, { filters: [], sorts: [], page: 1, limit: 1, include: [], select: null, q: null, cursor: null, locale: null })).total }) });
  app.action({ method: 'DELETE', path: '/cache', public: true, handler: () => undefined });
  app.action({ method: 'POST', path: '/teapot', public: true, status: 202, handler: (ctx) => void ctx.respond(418, { short: 'and stout' }) });
  app.action({ method: 'POST', path: '/fail', public: true, handler: () => { throw new Error('secret detail'); } });
  // A model-scoped authenticator never runs for actions; an action can allow anonymous callers itself.
  app.use('auth', bearer({ secret: SECRET }), { models: ['Tag'] });
  app.action({ method: 'GET', path: '/greeting', auth: [allowAnonymous(), bearer({ secret: SECRET })], handler: (ctx) => ({ hello: ctx.identity?.userId ?? 'stranger' }) });
  app.action({ method: 'GET', path: '/users/me', auth: [apiKey({ keys: { 'key-0123456789abcdef': { userId: 'svc' } } })], handler: (ctx) => ({ userId: ctx.identity?.userId }) });
}

eachBackend('custom actions', (backend) => {
  let postId: string;
  const server = useServer(backend, { setup: declare });
  before(async () => {
    const user = await server.request('POST', '/users', { body: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' } });
    postId = (await server.request('POST', '/posts', { body: { title: 'Draft', userId: user.body.data.id } })).body.data.id;
  });

  it('runs Auth, action hooks, handler, Response; never Deserialize, Validate, Service or DB hooks', async () => {
    const res = await server.request('POST', `/posts/${postId}/publish?notify=yes`, { headers: bearerHeader(token({ roles: ['editor'] })), body: { note: 'go' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { id: postId, status: 'published', note: 'go', notify: 'yes' });
    assert.equal(res.headers.get('x-order'), 'app-auth,action-hook,handler');
    assert.ok(res.headers.get('x-request-id'));
  });

  it('applies the action auth: 401 without a token, 403 without the role; nothing written', async () => {
    const draft = (await server.request('POST', '/posts', { body: { title: 'Other', userId: (await server.request('GET', '/users')).body.data[0].id } })).body.data;
    const anonymous = await server.request('POST', `/posts/${draft.id}/publish`, { body: {} });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'UNAUTHORIZED');
    const member = await server.request('POST', `/posts/${draft.id}/publish`, { headers: bearerHeader(token({ roles: ['member'] })), body: {} });
    assert.equal(member.status, 403);
    assert.deepEqual(member.body.error, { code: 'FORBIDDEN', message: 'this operation needs the role editor' });
    assert.equal((await server.request('GET', `/posts/${draft.id}`)).body.data.status, 'draft');
  });

  it('lets the handler own body parsing: bad JSON is 400 INVALID_JSON', async () => {
    const res = await server.request('POST', `/posts/${postId}/publish`, { headers: { ...bearerHeader(token({ roles: ['editor'] })), 'content-type': 'application/json' }, raw: '{nope' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'INVALID_JSON');
  });

  it('passes path parameters and answers errors the handler throws', async () => {
    const res = await server.request('POST', '/posts/missing-id/publish', { headers: bearerHeader(token({ roles: ['editor'] })), body: {} });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body.error, { code: 'NOT_FOUND', message: 'no Post with id "missing-id"' });
    const failed = await server.request('POST', '/fail');
    assert.equal(failed.status, 500);
    assert.deepEqual(failed.body.error, { code: 'INTERNAL', message: 'internal server error' });
  });

  it('wraps returned data, answers 204 for nothing, and keeps a response the handler set', async () => {
    const stats = await server.request('GET', '/stats');
    assert.equal(stats.status, 200);
    assert.equal(typeof stats.body.data.posts, 'number');
    assert.equal((await server.request('HEAD', '/stats')).status, 200);
    assert.equal((await server.request('DELETE', '/cache')).status, 204);
    const teapot = await server.request('POST', '/teapot', { unchecked: true }); // a status and shape the handler made up
    assert.equal(teapot.status, 418);
    assert.deepEqual(teapot.body, { short: 'and stout' });
    const wrong = await server.request('PUT', '/stats');
    assert.equal(wrong.status, 405);
  });

  it('lets an action allow anonymous callers; a bad token is still 401', async () => {
    assert.deepEqual((await server.request('GET', '/greeting')).body.data, { hello: 'stranger' });
    assert.deepEqual((await server.request('GET', '/greeting', { headers: bearerHeader(token({ sub: 'ada' })) })).body.data, { hello: 'ada' });
    const bad = await server.request('GET', '/greeting', { headers: bearerHeader('x.y.z') });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error.code, 'UNAUTHORIZED');
  });

  it('serves a static action segment beside a model :id route', async () => {
    const me = await server.request('GET', '/users/me', { headers: { 'x-api-key': 'key-0123456789abcdef' } });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body.data, { userId: 'svc' });
    const user = (await server.request('GET', '/users')).body.data[0];
    assert.equal((await server.request('GET', `/users/${user.id}`)).status, 200);
  });

  it('keeps declared metadata as plain data for the OpenAPI generator', () => {
    const security = server.app.describeSecurity();
    const publish = security.actions.find((a) => a.name === 'publishPost')!;
    assert.equal(publish.openapiPath, '/posts/{id}/publish');
    assert.deepEqual(publish.pathParameters, ['id']);
    assert.deepEqual(publish.parameters, [
      { name: 'notify', description: 'send e-mails', in: 'query', required: false },
      { name: 'X-Trace', in: 'header', required: false },
    ]);
    assert.deepEqual(publish.security, ['bearerAuth']);
    assert.equal(publish.public, false);
    assert.equal(publish.summary, 'Publish a post');
    assert.deepEqual(publish.request?.schema, { type: 'object', properties: { note: { type: 'string' } } });
    assert.deepEqual(security.schemes, { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' } });
    const stats = security.actions.find((a) => a.path === '/stats')!;
    assert.equal(stats.name, 'getStats');
    assert.equal(stats.public, true);
    assert.deepEqual(stats.security, []);
  });

  it('turns the declarations into OpenAPI path items (schemas, parameters, security)', () => {
    const paths = actionPaths(server.app.describeSecurity(), '/api');
    const publish = paths['/api/posts/{id}/publish'].post;
    assert.equal(publish.operationId, 'publishPost');
    assert.deepEqual(publish.parameters, [
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'notify', in: 'query', required: false, description: 'send e-mails', schema: { type: 'string' } },
      { name: 'X-Trace', in: 'header', required: false, schema: { type: 'string' } },
    ]);
    assert.deepEqual(publish.requestBody, { required: true, content: { 'application/json': { schema: { type: 'object', properties: { note: { type: 'string' } } } } } });
    assert.deepEqual(publish.security, [{ bearerAuth: [] }]);
    assert.deepEqual(Object.keys(publish.responses as object), ['200', '401', 'default']);
    assert.deepEqual(paths['/api/stats'].get.security, []);
    assert.equal(paths['/api/users/me'].get.security !== undefined, true);
  });
});

describe('custom actions at startup', () => {
  const startWith = async (setup: (app: App) => void) => startServer(sqlite, { setup });

  it('refuses an action colliding with a generated route', async () => {
    await assert.rejects(startWith((app) => void app.action({ method: 'POST', path: '/posts', handler: () => 1 })), /action POST \/api\/posts collides with the generated route POST \/api\/posts; give the action another path/);
    await assert.rejects(startWith((app) => void app.action({ method: 'GET', path: '/posts/:postId', handler: () => 1 })), /action GET \/api\/posts\/:postId collides with the generated route GET/);
    await assert.rejects(startWith((app) => void app.action({ method: 'POST', path: '/posts/:postId/publish', handler: () => 1 })), /cannot be routed: .*:postId.*:id; use the same parameter name/);
    await assert.rejects(startWith((app) => void app.action({ method: 'GET', path: '/live', handler: () => 1 })), /collides with the generated route GET \/api\/live/);
  });

  it('refuses malformed declarations when they are made', async () => {
    const app = (await startWith(() => {})).app;
    try {
      assert.throws(() => app.action({ method: 'GET', path: '/late', handler: () => 1 }), /registration is closed/);
    } finally {
      await app.stop();
    }
    const fresh = (await import('@mfx/runtime')).createServer({ handleSignals: false });
    assert.throws(() => fresh.action({ method: 'FETCH' as 'GET', path: '/x', handler: () => 1 }), /method must be one of GET, POST, PUT, PATCH, DELETE/);
    assert.throws(() => fresh.action({ method: 'GET', path: 'x', handler: () => 1 }), /path must start with "\/"/);
    assert.throws(() => fresh.action({ method: 'GET', path: '/a b', handler: () => 1 }), /segment "a b" must be a plain name or a :parameter/);
    assert.throws(() => fresh.action({ method: 'GET', path: '/x', handler: 'no' as never }), /handler must be a function/);
    fresh.action({ method: 'GET', path: '/x/:id', handler: () => 1 });
    assert.throws(() => fresh.action({ method: 'GET', path: '/x/:key', handler: () => 1 }), /action GET \/x\/:key is declared twice/);
  });
});
