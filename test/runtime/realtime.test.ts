// The realtime hub end to end: a running server with realtime(bus) on the
// Redis Streams bus of this machine, read by an SSE client over node:http and
// by the `ws` client. Admission (credential, origin, patterns, the connection
// limit), the message shape, Last-Event-ID resume, the WebSocket protocol of
// docs/realtime.md, a slow consumer dropped, stop() saying goodbye, and the
// hub's bus subscription leaving no consumer group behind.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connect as tcpConnect } from 'node:net';
import { after, before, it } from 'node:test';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { bearer, type EventBus, realtime, type RealtimeOptions } from '@mfx/runtime';
import { redisStreamBus } from '@mfx/events-redis';
import { makeEvent } from '../support/bus-contract.js';
import { SECRET, token } from '../support/auth.js';
import type { Backend } from '../support/backends.js';
import { startServer, type TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';
import { eachBackend, sqlite } from '../support/suite.js';
import { Recorder } from '../support/wait.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const streams: string[] = [];
after(async () => {
  const admin = new Redis(REDIS_URL);
  if (streams.length > 0) await admin.del(...streams);
  await admin.quit();
});

const ORIGIN = 'https://app.example';
const t1 = token({ org: 't1' });

interface Hub {
  server: TestServer;
  bus: EventBus;
  sse: string;
  ws: string;
  close(): Promise<void>;
}

async function hub(backend: Backend, options: RealtimeOptions = {}): Promise<Hub> {
  const stream = `mfx:test:realtime:${randomUUID()}`;
  streams.push(stream);
  const bus = redisStreamBus({ url: REDIS_URL, stream, blockMs: 100 });
  const server = await startServer(backend, {
    setup: async (app) => {
      app.use('auth', bearer({ secret: SECRET, tenantClaim: 'org' }));
      await app.plugin(realtime(bus, { origins: [ORIGIN], ...options }));
    },
  });
  const base = server.url.replace(/^http/, 'ws');
  return {
    server,
    bus,
    sse: `${server.url}/realtime/sse`,
    ws: `${base}/realtime/ws`,
    close: async () => {
      await server.close();
      await bus.close();
    },
  };
}

interface WsClient {
  ws: WebSocket;
  messages: Recorder<any>;
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
}

/** Connects a `ws` client; rejects with { status, body } when the upgrade is refused. */
function openWs(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const messages = new Recorder<any>();
    const closed = new Promise<{ code: number; reason: string }>((done) => ws.on('close', (code, reason) => done({ code, reason: String(reason) })));
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk));
      res.on('end', () => reject(Object.assign(new Error('refused'), { status: res.statusCode, headers: res.headers, body: JSON.parse(body) })));
    });
    ws.on('error', (error) => reject(error));
    ws.on('open', () => resolve({ ws, messages, closed, send: (m) => ws.send(JSON.stringify(m)) }));
  });
}

const message = (event: ReturnType<typeof makeEvent>) => ({ id: event.id, type: event.type, model: event.model, record_id: event.recordId, data: event.data });

eachBackend('realtime over SSE', (backend) => {
  let h: Hub;
  before(async () => {
    h = await hub(backend, { bufferSize: 6 });
  });
  after(() => h.close());

  it('streams the subscribed events with id lines and {id, type, model, record_id, data}', async () => {
    const stream = await openSse(`${h.sse}?subscribe=post.*&subscribe=*.deleted`, { authorization: `Bearer ${t1}` });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(stream.headers['cache-control'], 'no-cache, no-transform');
    assert.ok(stream.headers['x-request-id']);
    await stream.frames.next((f) => f.comment === 'connected');
    const events = [makeEvent('post.created'), makeEvent('user.created'), makeEvent('user.deleted'), makeEvent('post.updated')];
    await h.bus.publish(events);
    const frames = await stream.frames.count(3, (f) => f.data !== undefined);
    assert.deepEqual(
      frames.map((f) => ({ id: f.id, event: f.event, message: JSON.parse(f.data!) })),
      [events[0], events[2], events[3]].map((e) => ({ id: e!.id, event: undefined, message: message(e!) })),
    );
    stream.close();
  });

  it('takes the token from ?access_token=, and shows a caller only its tenant’s events (and tenantless ones)', async () => {
    const other = await openSse(`${h.sse}?subscribe=post.*&access_token=${token({ org: 't2' })}`);
    assert.equal(other.status, 200);
    await other.frames.next((f) => f.comment === 'connected');
    const mine = makeEvent('post.created', { tenantId: 't2' });
    const theirs = makeEvent('post.created', { tenantId: 't1' });
    const shared = makeEvent('post.created', { tenantId: null });
    await h.bus.publish([theirs, mine, shared]);
    const frames = await other.frames.count(2, (f) => f.data !== undefined);
    assert.deepEqual(frames.map((f) => f.id), [mine.id, shared.id]);
    other.close();
  });

  it('resumes after a reconnect from Last-Event-ID, and says gap when that id is no longer kept', { timeout: 10_000 }, async () => {
    const first = await openSse(`${h.sse}?subscribe=post.*`, { authorization: `Bearer ${t1}` });
    await first.frames.next((f) => f.comment === 'connected');
    const seen = makeEvent('post.created');
    await h.bus.publish([seen]);
    const last = await first.frames.next((f) => f.id === seen.id);
    first.close();
    const missed = [makeEvent('post.updated'), makeEvent('user.updated'), makeEvent('post.deleted')];
    await h.bus.publish(missed);
    // The stream that comes back gets what it missed before anything new.
    const probe = await openSse(`${h.sse}?subscribe=user.*`, { authorization: `Bearer ${t1}` });
    await h.bus.publish([makeEvent('user.marker')]);
    await probe.frames.next((f) => f.data !== undefined && JSON.parse(f.data).type === 'user.marker');
    probe.close();
    const again = await openSse(`${h.sse}?subscribe=post.*`, { authorization: `Bearer ${t1}`, 'last-event-id': last.id! });
    const replayed = await again.frames.count(2, (f) => f.data !== undefined);
    assert.ok(again.frames.seen.every((f) => f.event === undefined), 'no gap: the last event seen is still kept');
    assert.deepEqual(replayed.map((f) => f.id), [missed[0]!.id, missed[2]!.id]);
    again.close();

    // bufferSize is 6: the first event is gone after five more.
    await h.bus.publish([makeEvent('post.a'), makeEvent('post.b'), makeEvent('post.c'), makeEvent('post.d')]);
    const probe2 = await openSse(`${h.sse}?subscribe=post.d`, { authorization: `Bearer ${t1}` });
    await probe2.frames.next((f) => f.comment === 'connected');
    await h.bus.publish([makeEvent('post.d')]);
    await probe2.frames.next((f) => f.data !== undefined);
    probe2.close();
    const late = await openSse(`${h.sse}?subscribe=post.*`, { authorization: `Bearer ${t1}`, 'last-event-id': seen.id });
    const gap = await late.frames.next((f) => f.event !== undefined);
    assert.deepEqual(gap, { event: 'gap', data: JSON.stringify({ last_event_id: seen.id }) });
    late.close();
  });

  it('refuses a missing or bad credential 401, a foreign origin 403, missing or bad patterns 400, and other methods 405', async () => {
    const none = await openSse(`${h.sse}?subscribe=post.*`);
    assert.equal(none.status, 401);
    assert.deepEqual(JSON.parse(none.body), { error: { code: 'UNAUTHORIZED', message: 'missing bearer token: send Authorization: Bearer <token>' } });
    const bad = await openSse(`${h.sse}?subscribe=post.*&access_token=nope`);
    assert.equal(bad.status, 401);
    assert.equal(JSON.parse(bad.body).error.code, 'UNAUTHORIZED');
    const foreign = await openSse(`${h.sse}?subscribe=post.*`, { authorization: `Bearer ${t1}`, origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.deepEqual(JSON.parse(foreign.body), { error: { code: 'FORBIDDEN', message: 'the origin https://evil.example may not open realtime streams' } });
    const allowed = await openSse(`${h.sse}?subscribe=post.*`, { authorization: `Bearer ${t1}`, origin: ORIGIN });
    assert.equal(allowed.status, 200);
    allowed.close();
    const unnamed = await openSse(h.sse, { authorization: `Bearer ${t1}` });
    assert.equal(unnamed.status, 400);
    assert.deepEqual(JSON.parse(unnamed.body), {
      error: { code: 'INVALID_QUERY', message: 'name the events to receive: ?subscribe=<pattern>, e.g. ?subscribe=post.* (repeat it or separate patterns with commas)' },
    });
    const wrong = await openSse(`${h.sse}?subscribe=post.%23`, { authorization: `Bearer ${t1}` });
    assert.equal(wrong.status, 400);
    assert.deepEqual(JSON.parse(wrong.body), {
      error: { code: 'INVALID_QUERY', message: `"post.#" is not an event pattern: write dotted segments of letters, digits, '_' or '-', with '*' for one whole segment (e.g. "post.*", "*.deleted")` },
    });
    const post = await fetch(`${h.sse}?subscribe=post.*`, { method: 'POST', headers: { authorization: `Bearer ${t1}` } });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET');
  });
});

eachBackend('realtime over WebSocket', (backend) => {
  let h: Hub;
  before(async () => {
    h = await hub(backend, { bufferSize: 10 });
  });
  after(() => h.close());

  it('speaks the documented protocol: subscribe/ack, event, ping/pong, unsubscribe, errors', async () => {
    const client = await openWs(`${h.ws}?access_token=${t1}`);
    client.send({ type: 'subscribe', id: 1, patterns: ['*.deleted'] });
    assert.deepEqual(await client.messages.next((m) => m.type === 'ack'), { type: 'ack', id: 1, patterns: ['*.deleted'] });
    const events = [makeEvent('post.created'), makeEvent('user.deleted')];
    await h.bus.publish(events);
    assert.deepEqual(await client.messages.next((m) => m.type === 'event'), { type: 'event', event: message(events[1]!) });
    client.send({ type: 'ping', id: 'p' });
    assert.deepEqual(await client.messages.next((m) => m.type === 'pong'), { type: 'pong', id: 'p' });
    client.send({ type: 'subscribe', id: 2, patterns: ['post.*'] });
    assert.deepEqual(await client.messages.next((m) => m.id === 2), { type: 'ack', id: 2, patterns: ['*.deleted', 'post.*'] });
    client.send({ type: 'unsubscribe', id: 3, patterns: ['*.deleted'] });
    assert.deepEqual(await client.messages.next((m) => m.id === 3), { type: 'ack', id: 3, patterns: ['post.*'] });
    client.send({ type: 'subscribe', id: 4, patterns: ['post.#'] });
    assert.deepEqual(await client.messages.next((m) => m.id === 4), {
      type: 'error',
      id: 4,
      code: 'INVALID_PATTERN',
      message: `"post.#" is not an event pattern: write dotted segments of letters, digits, '_' or '-', with '*' for one whole segment (e.g. "post.*", "*.deleted")`,
    });
    client.send({ type: 'shout', id: 5 });
    assert.deepEqual(await client.messages.next((m) => m.id === 5), { type: 'error', id: 5, code: 'INVALID_MESSAGE', message: 'unknown message type "shout"; types are subscribe, unsubscribe and ping' });
    client.ws.send('not json');
    assert.deepEqual(await client.messages.next((m) => m.type === 'error' && m.id === undefined), {
      type: 'error',
      code: 'INVALID_MESSAGE',
      message: 'send a JSON object with a type: subscribe, unsubscribe or ping',
    });
    const later = [makeEvent('user.deleted'), makeEvent('post.updated')];
    await h.bus.publish(later);
    const next = await client.messages.next((m) => m.type === 'event' && m.event.id !== events[1]!.id);
    assert.deepEqual(next.event, message(later[1]!));
    client.ws.close();
    await client.closed;
  });

  it('subscribes from ?subscribe= at connect and resumes from last_event_id after a reconnect', async () => {
    const first = await openWs(`${h.ws}?subscribe=post.*`, { authorization: `Bearer ${t1}` });
    const seen = makeEvent('post.created');
    await h.bus.publish([seen]);
    await first.messages.next((m) => m.type === 'event');
    first.ws.terminate();
    await first.closed;
    const missed = [makeEvent('post.updated'), makeEvent('post.deleted')];
    await h.bus.publish(missed);
    const probe = await openWs(`${h.ws}?subscribe=post.deleted`, { authorization: `Bearer ${t1}` });
    await h.bus.publish([makeEvent('post.deleted')]);
    await probe.messages.next((m) => m.type === 'event' && m.event.id !== missed[1]!.id);
    probe.ws.close();
    const again = await openWs(h.ws, { authorization: `Bearer ${t1}` });
    again.send({ type: 'subscribe', id: 'r', patterns: ['post.*'], last_event_id: seen.id });
    await again.messages.next((m) => m.type === 'ack');
    const replayed = await again.messages.count(2, (m) => m.type === 'event');
    assert.deepEqual(replayed.map((m) => m.event.id), missed.map((e) => e.id));
    again.send({ type: 'subscribe', id: 'g', patterns: ['post.*'], last_event_id: 'unknown' });
    assert.deepEqual(await again.messages.next((m) => m.type === 'gap'), { type: 'gap', last_event_id: 'unknown' });
    again.ws.close();
  });

  it('refuses the upgrade with the API error: 401 without a credential, 403 for a foreign origin', async () => {
    await assert.rejects(openWs(h.ws), {
      status: 401,
      body: { error: { code: 'UNAUTHORIZED', message: 'missing bearer token: send Authorization: Bearer <token>' } },
    });
    await assert.rejects(openWs(`${h.ws}?access_token=${t1}`, { origin: 'https://evil.example' }), {
      status: 403,
      body: { error: { code: 'FORBIDDEN', message: 'the origin https://evil.example may not open realtime streams' } },
    });
    // An upgrade on another path is answered 404 and closed once the hub listens for upgrades.
    const socket = tcpConnect(h.server.app.port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(`GET ${new URL(h.server.url).pathname}/realtime/elsewhere HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`);
    await closed;
    assert.equal(answer.split('\r\n')[0], 'HTTP/1.1 404 Not Found');
  });
});

eachBackend('realtime limits and shutdown', (backend) => {
  let h: Hub;
  before(async () => {
    h = await hub(backend, { maxConnections: 2, maxBufferedBytes: 64 * 1024 });
  });

  it('answers 503 REALTIME_BUSY with Retry-After over maxConnections, SSE and WebSocket together', async () => {
    const a = await openSse(`${h.sse}?subscribe=post.*`, { authorization: `Bearer ${t1}` });
    const b = await openWs(h.ws, { authorization: `Bearer ${t1}` });
    const c = await openSse(`${h.sse}?subscribe=post.*`, { authorization: `Bearer ${t1}` });
    assert.equal(c.status, 503);
    assert.equal(c.headers['retry-after'], '1');
    assert.deepEqual(JSON.parse(c.body), { error: { code: 'REALTIME_BUSY', message: 'service unavailable' } });
    await assert.rejects(openWs(h.ws, { authorization: `Bearer ${t1}` }), { status: 503, body: { error: { code: 'REALTIME_BUSY', message: 'service unavailable' } } });
    a.close();
    await a.ended;
    b.ws.close();
    await b.closed;
  });

  it('drops a client that does not read once maxBufferedBytes wait for it, and keeps serving the others', { timeout: 20_000 }, async () => {
    const reader = await openSse(`${h.sse}?subscribe=post.*`, { authorization: `Bearer ${t1}` });
    await reader.frames.next((f) => f.comment === 'connected');
    // A client that sends its request and then never reads.
    const stalled = tcpConnect(h.server.app.port, '127.0.0.1');
    await new Promise((resolve) => stalled.once('connect', resolve));
    const dropped = h.server.logLine((l) => l.message === 'realtime: slow consumer dropped');
    stalled.write(`GET ${new URL(h.sse).pathname}?subscribe=post.*&access_token=${t1} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    stalled.pause();
    const big = 'x'.repeat(16 * 1024);
    let done = false;
    void dropped.then(() => (done = true));
    for (let batch = 0; !done && batch < 200; batch++) {
      await h.bus.publish(Array.from({ length: 10 }, () => makeEvent('post.created', { data: { big } })));
      // The reader keeps up: each batch reaches it before the next is sent.
      await reader.frames.count((batch + 1) * 10, (f) => f.data !== undefined);
    }
    const line = await dropped;
    assert.equal(line.fields.maxBufferedBytes, 64 * 1024);
    stalled.destroy();
    const after = makeEvent('post.updated');
    await h.bus.publish([after]);
    await reader.frames.next((f) => f.id === after.id);
    reader.close();
    await reader.ended;
  });

  it('stop() ends every stream with a goodbye: an SSE goodbye event, a WebSocket goodbye then close 1001', async () => {
    const sse = await openSse(`${h.sse}?subscribe=post.*`, { authorization: `Bearer ${t1}` });
    await sse.frames.next((f) => f.comment === 'connected');
    const ws = await openWs(h.ws, { authorization: `Bearer ${t1}` });
    await h.close();
    assert.deepEqual(await sse.frames.next((f) => f.event === 'goodbye'), { event: 'goodbye', data: JSON.stringify({ reason: 'server shutting down' }) });
    await sse.ended;
    assert.deepEqual(await ws.messages.next((m) => m.type === 'goodbye'), { type: 'goodbye', reason: 'server shutting down' });
    assert.deepEqual(await ws.closed, { code: 1001, reason: 'server shutting down' });
  });
});

// The subscription does not depend on the database: one backend is enough.
eachBackend(
  'realtime bus subscription',
  (backend) => {
    it('subscribes ephemeral under its per-process name, so the stream keeps no group of it once the server stopped; a name the app gives stays', async () => {
      const admin = new Redis(REDIS_URL);
      const groups = async (stream: string) => ((await admin.xinfo('GROUPS', stream)) as unknown[][]).map((g) => String(g[g.indexOf('name') + 1]));
      const own = await hub(backend);
      const stream = streams.at(-1)!;
      const [name, ...more] = await groups(stream);
      assert.match(name!, /^realtime-[A-Za-z0-9_-]+-\d+-[0-9a-f]{8}$/);
      assert.deepEqual(more, []);
      await own.close();
      assert.deepEqual(await groups(stream), []);
      assert.equal(await admin.exists(`${stream}:ephemeral:${name}`, `${stream}:ephemeral`), 0);

      const named = await hub(backend, { subscription: 'replica-a' });
      await named.close();
      assert.deepEqual(await groups(streams.at(-1)!), ['replica-a']);
      await admin.quit();
    });
  },
  [sqlite!],
);
