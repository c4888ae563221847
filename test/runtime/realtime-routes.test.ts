// The realtime routes as routes of the app: the SSE path is a route-table
// entry (app.rawRoute), not router middleware, so the other routes run as in
// an app without realtime; both routes are in the OpenAPI document only when
// the plugin is mounted, and every answer here is checked against it.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { bearer, createServer, type EventBus, memoryBus, realtime } from '@mfx/runtime';
import { SECRET, token } from '../support/auth.js';
import { loadFixture } from '../support/fixtures.js';
import { ResponseValidator } from '../support/response-validator.js';
import { memoryLogger, startServer, type TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';
import { eachBackend } from '../support/suite.js';

const ORIGIN = 'https://app.example';

eachBackend('realtime routes', (backend) => {
  let server: TestServer;
  let bus: EventBus;
  let doc: any;
  before(async () => {
    bus = memoryBus();
    server = await startServer(backend, {
      setup: async (app) => {
        // Scoped to reads: realtime admission runs the Auth-step hooks of a read on no model; writes stay open.
        app.use('auth', bearer({ secret: SECRET }), { ops: ['read'] });
        await app.plugin(realtime(bus, { origins: [ORIGIN], maxConnections: 1 }));
      },
    });
    doc = server.app.document();
  });
  after(async () => {
    await server.close();
    await bus.close();
  });

  it('serves the other routes as an app without realtime does: no router middleware, writes and reads answered', async () => {
    assert.deepEqual(server.app.config.httpMiddlewares, []);
    const created = await server.request('POST', '/tags', { body: { name: 'beside realtime' } });
    assert.equal(created.status, 201);
    const listed = await server.request('GET', '/tags');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((t: { name: string }) => t.name), ['beside realtime']);
    const missing = await server.request('GET', '/realtime/nothing');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { error: { code: 'NOT_FOUND', message: 'no route for GET /api/realtime/nothing' } });
  });

  it('documents the SSE stream and the WebSocket upgrade in a valid OpenAPI document', async () => {
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors)?.slice(0, 2000));
    const sse = doc.paths['/realtime/sse'];
    assert.deepEqual(Object.keys(sse), ['get']);
    assert.equal(sse.get.operationId, 'realtimeEvents');
    assert.deepEqual(sse.get.tags, ['realtime']);
    assert.deepEqual(
      sse.get.parameters.map((p: { name: string; in: string; required?: boolean }) => [p.name, p.in, p.required ?? false]),
      [
        ['subscribe', 'query', true],
        ['access_token', 'query', false],
        ['last_event_id', 'query', false],
        ['Last-Event-ID', 'header', false],
      ],
    );
    assert.deepEqual(Object.keys(sse.get.responses), ['200', '400', '401', '403', '500', '503']);
    assert.deepEqual(Object.keys(sse.get.responses['200'].content), ['text/event-stream']);
    assert.deepEqual(sse.get.responses['503'], { $ref: '#/components/responses/ServiceUnavailable' });
    assert.match(doc.components.responses.ServiceUnavailable.description, /REALTIME_BUSY: realtime\(\): maxConnections streams are open/);
    assert.deepEqual(sse.get.security, [{ bearerAuth: [] }]);
    assert.match(sse.get.description, /405 METHOD_NOT_ALLOWED with Allow: GET/);

    const ws = doc.paths['/realtime/ws'];
    assert.deepEqual(Object.keys(ws), ['get']);
    assert.equal(ws.get.operationId, 'realtimeWebSocket');
    assert.deepEqual(Object.keys(ws.get.responses), ['101', '400', '401', '403', '500', '503']);
    assert.deepEqual(Object.keys(ws.get.responses['101'].headers), ['Upgrade', 'Connection', 'Sec-WebSocket-Accept']);
    const wsParameters = ws.get.parameters.map((p: { name: string; required?: boolean }) => `${p.name}${p.required ? '!' : ''}`);
    assert.deepEqual(wsParameters, ['subscribe', 'access_token', 'last_event_id', 'Last-Event-ID', 'Upgrade!', 'Connection!', 'Sec-WebSocket-Key!', 'Sec-WebSocket-Version!']);
    assert.ok(doc.tags.some((t: { name: string; description?: string }) => t.name === 'realtime' && t.description));
  });

  it('answers every refusal as documented: 400, 401, 403, 405 with Allow: GET, 503 REALTIME_BUSY', async () => {
    const auth = { authorization: `Bearer ${token()}` };
    const none = await server.request('GET', '/realtime/sse?subscribe=post.*');
    assert.equal(none.status, 401);
    assert.deepEqual(none.body, { error: { code: 'UNAUTHORIZED', message: 'missing bearer token: send Authorization: Bearer <token>' } });
    const unnamed = await server.request('GET', '/realtime/sse', { headers: auth });
    assert.equal(unnamed.status, 400);
    assert.equal(unnamed.body.error.code, 'INVALID_QUERY');
    const foreign = await server.request('GET', '/realtime/sse?subscribe=post.*', { headers: { ...auth, origin: 'https://evil.example' } });
    assert.equal(foreign.status, 403);
    assert.deepEqual(foreign.body, { error: { code: 'FORBIDDEN', message: 'the origin https://evil.example may not open realtime streams' } });
    for (const method of ['POST', 'PUT', 'DELETE', 'HEAD']) {
      const refused = await server.request(method, '/realtime/sse?subscribe=post.*', { headers: auth });
      assert.equal(refused.status, 405, method);
      assert.equal(refused.headers.get('allow'), 'GET');
      if (method !== 'HEAD') assert.deepEqual(refused.body, { error: { code: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed here; allowed: GET` } });
    }

    // The one stream maxConnections allows: its 200 is the documented event stream.
    const stream = await openSse(`${server.url}/realtime/sse?subscribe=post.*&access_token=${token()}`);
    assert.equal(stream.status, 200);
    const validator = new ResponseValidator(doc);
    assert.equal(validator.check('GET', '/realtime/sse?subscribe=post.*', 200, '', stream.headers['content-type']), null);
    await stream.frames.next((f) => f.comment === 'connected');
    const busy = await server.request('GET', '/realtime/sse?subscribe=post.*', { headers: auth });
    assert.equal(busy.status, 503);
    assert.equal(busy.headers.get('retry-after'), '1');
    assert.deepEqual(busy.body, { error: { code: 'REALTIME_BUSY', message: 'service unavailable' } });
    stream.close();
    await stream.ended;
  });
});

eachBackend('app.rawRoute', (backend) => {
  it('leaves realtime out of the document of an app without it', async () => {
    const plain = await startServer(backend);
    try {
      const doc = plain.app.document() as any;
      assert.equal(doc.paths['/realtime/sse'], undefined);
      assert.equal(doc.paths['/realtime/ws'], undefined);
      assert.equal(doc.tags.some((t: { name: string }) => t.name === 'realtime'), false);
    } finally {
      await plain.close();
    }
  });

  it('serves a raw route from the table, with 405 for other methods and the generated routes untouched', async () => {
    const served = await startServer(backend, {
      setup: (app) => {
        app.rawRoute('GET', '/api/ping-raw', (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('pong');
        });
      },
      validateResponses: false,
    });
    try {
      const pong = await fetch(`${served.url}/ping-raw?x=1`);
      assert.equal(pong.status, 200);
      assert.equal(await pong.text(), 'pong');
      const post = await fetch(`${served.url}/ping-raw`, { method: 'POST' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET');
      assert.deepEqual(await post.json(), { error: { code: 'METHOD_NOT_ALLOWED', message: 'POST is not allowed here; allowed: GET' } });
      assert.equal((await served.request('POST', '/tags', { body: { name: 'still served' } })).status, 201);
    } finally {
      await served.close();
    }
  });

  it('refuses a bad method, a path with parameters, a second registration, a served route, and late registration', async () => {
    const app = createServer({ logger: memoryLogger(), handleSignals: false });
    app.register(await loadFixture('blog'));
    const handler = () => {};
    assert.throws(() => app.rawRoute('FETCH', '/api/x', handler), { name: 'ConfigError', message: 'mfx: app.rawRoute: the method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, not "FETCH"' });
    assert.throws(() => app.rawRoute('GET', '/api/x/:id', handler), {
      name: 'ConfigError',
      message: 'mfx: app.rawRoute: the path must be an exact path starting with / (no :param or *rest segments), not "/api/x/:id"',
    });
    assert.throws(() => app.rawRoute('GET', 'api/x', handler), { name: 'ConfigError', message: /not "api\/x"$/ });
    assert.throws(() => app.rawRoute('GET', '/api/x', null as never), { name: 'ConfigError', message: 'mfx: app.rawRoute: the handler must be a function (req, res) => void' });
    app.rawRoute('GET', '/api/x', handler);
    assert.throws(() => app.rawRoute('GET', '/api/x', handler), { name: 'ConfigError', message: 'mfx: app.rawRoute: GET /api/x is already registered' });
    app.rawRoute('GET', '/api/tags', handler);
    const { adapter, drop } = await backend.open(app.registry);
    try {
      app.setDB(adapter);
      assert.throws(() => app.handler(), { name: 'ConfigError', message: 'mfx: app.rawRoute: GET /api/tags is already served by a generated route, an action or another feature' });
    } finally {
      await adapter.close();
      await drop();
    }
    const sealed = createServer({ logger: memoryLogger(), handleSignals: false });
    sealed.register(await loadFixture('blog'));
    const { adapter: other, drop: dropOther } = await backend.open(sealed.registry);
    try {
      sealed.setDB(other);
      sealed.handler();
      assert.throws(() => sealed.rawRoute('GET', '/api/y', handler), { name: 'RegistrationClosedError' });
    } finally {
      await other.close();
      await dropOther();
    }
  });
});
