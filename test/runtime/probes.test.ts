// Operational routes, deadlines, client disconnects and graceful shutdown.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { get as httpGet, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { type Context, createServer, type HttpMiddleware } from '@mfx/runtime';
import { loadFixture } from '../support/fixtures.js';
import { memoryLogger, request } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';
import { type Gate, gate, Recorder } from '../support/wait.js';

/** Resolves once the request is cancelled: its deadline passed or its client left. */
/** A GET over node:http (fetch hides Connection): status, the Connection header and the JSON body. */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; connection: string | undefined; body: any }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: JSON.parse(text) }));
    }).on('error', reject);
  });
}

const cancelled = async (ctx: Context) => {
  if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
};

eachBackend('probes', (backend) => {
  let cacheHealthy = true;
  let checkRuns = 0;
  /** While set, checks wait for it: concurrent requests overlap however slow the machine is. */
  let held: Gate | null = null;
  const seen = new Recorder<string>();
  const tag = (label: string): HttpMiddleware => (req, _res, next) => {
    seen.push(`${label}:${req.url}`);
    next();
  };
  const server = useServer(backend, {
    config: {
      healthCheckDB: true,
      readinessChecks: [
        {
          name: 'cache',
          check: async () => {
            checkRuns++;
            await held?.opened;
            if (!cacheHealthy) throw new Error('cache down: secret detail');
          },
        },
      ],
      probes: { publishReadinessChecks: true, middleware: [tag('shared')], ready: { middleware: [tag('ready')] }, health: { disabled: true } },
    },
  });

  it('/live answers 200 without I/O', async () => {
    const res = await server.request('GET', '/live');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
    assert.ok(res.headers.get('x-request-id'));
  });

  it('/ready reports the database and every check, with a checks map when published', async () => {
    cacheHealthy = true;
    const ok = await server.request('GET', '/ready');
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { status: 'ok', checks: { db: 'ok', cache: 'ok' } });
    cacheHealthy = false;
    const down = await server.request('GET', '/ready');
    assert.equal(down.status, 503);
    assert.deepEqual(down.body, { status: 'not_ready', checks: { db: 'ok', cache: 'error' } });
    assert.doesNotMatch(down.text, /secret/, 'check errors are logged, never returned');
    assert.ok(server.logs.some((l) => String(l.fields.err).includes('cache down')));
    cacheHealthy = true;
  });

  it('shares one run of the checks between concurrent /ready requests', async () => {
    const before = checkRuns;
    const release = gate();
    held = release;
    seen.seen.length = 0;
    const pending = Promise.all(Array.from({ length: 10 }, () => server.request('GET', '/ready')));
    // Hold the checks until all ten requests have reached the probe.
    await seen.count(10, (s) => s.startsWith('ready:'));
    release.open();
    held = null;
    const results = await pending;
    assert.deepEqual(results.map((r) => r.status), Array(10).fill(200));
    assert.equal(checkRuns - before, 1);
  });

  it('runs the shared probe middleware, then the per-probe one; a disabled probe is 404', async () => {
    seen.seen.length = 0;
    await server.request('GET', '/ready');
    assert.deepEqual(seen.seen, ['shared:/api/ready', 'ready:/api/ready']);
    seen.seen.length = 0;
    await server.request('GET', '/live');
    assert.deepEqual(seen.seen, ['shared:/api/live']);
    assert.equal((await server.request('GET', '/health')).status, 404);
  });
});

describe('health and readiness states', () => {
  it('/health follows HealthCheckDB; /ready is 503 while starting and stopping; /live stays 200', async () => {
    const logger = memoryLogger();
    // Requests marked x-hold wait here (in a probe's middleware or a service hook) until released: they are in flight when the drain begins.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived = 0;
    let allArrived!: () => void;
    const threeArrived = new Promise<void>((resolve) => (allArrived = resolve));
    const hold = async (req: { headers: Record<string, unknown> }) => {
      if (!req.headers['x-hold']) return;
      if (++arrived === 3) allArrived();
      await released;
    };
    const app = createServer({
      port: 0,
      host: '127.0.0.1',
      handleSignals: false,
      logger,
      healthCheckDB: false,
      shutdownTimeout: '30s',
      probes: { middleware: [(req, _res, next) => void hold(req).then(() => next())] },
    });
    app.register(await loadFixture('blog'));
    const { adapter } = await sqlite.open(app.registry);
    app.setDB(adapter);
    app.use('service', async (ctx, next) => {
      await hold(ctx.req);
      await next();
    });
    const handler = app.handler();
    // Before start the handler already answers, and readiness says "starting".
    const { createServer: http } = await import('node:http');
    const early = http(handler).listen(0, '127.0.0.1');
    await new Promise((r) => early.once('listening', r));
    const earlyPort = (early.address() as { port: number }).port;
    const starting = await request(`http://127.0.0.1:${earlyPort}/api/ready`, 'GET');
    assert.equal(starting.status, 503);
    assert.deepEqual(starting.body, { status: 'starting' });
    early.close();

    const { port } = await app.start();
    const base = `http://127.0.0.1:${port}/api`;
    assert.deepEqual((await request(`${base}/health`, 'GET')).body, { status: 'ok' });
    assert.equal((await request(`${base}/ready`, 'GET')).status, 200);

    // Probes on connections open during the drain still answer (ready 503, live 200); new connections are refused.
    const held = (path: string) => get(`${base}${path}`, { 'x-hold': '1' });
    const [ready, live, tags] = [held('/ready'), held('/live'), held('/tags')];
    await threeArrived;
    const stopping = app.stop();
    const refused = await new Promise((resolve) => connect(port, '127.0.0.1').once('connect', resolve).once('error', (e: NodeJS.ErrnoException) => resolve(e.code)));
    assert.equal(refused, 'ECONNREFUSED', 'no new connection is accepted once the drain began');
    release();
    assert.deepEqual(await ready, { status: 503, connection: 'close', body: { status: 'stopping' } });
    assert.deepEqual(await live, { status: 200, connection: 'close', body: { status: 'ok' } }, 'liveness stays 200 during the drain');
    const finished = await tags;
    assert.equal(finished.status, 200, 'the in-flight request finished during the drain');
    assert.equal(finished.connection, 'close');
    await stopping;
    assert.ok(!logger.lines.some((l) => l.message?.startsWith('shutdown timeout')), 'the drain ended with the last request, not at the timeout');
    await assert.rejects(request(`${base}/live`, 'GET'), 'the listener is closed after stop');
  });

  it('/health pings the database when HealthCheckDB is set and reports degraded when it fails', async () => {
    const app = createServer({ port: 0, host: '127.0.0.1', handleSignals: false, logger: memoryLogger(), healthCheckDB: true });
    app.register(await loadFixture('blog'));
    const { adapter } = await sqlite.open(app.registry);
    app.setDB(adapter);
    const { port } = await app.start();
    const base = `http://127.0.0.1:${port}/api`;
    assert.deepEqual((await request(`${base}/health`, 'GET')).body, { status: 'ok' });
    const ping = adapter.ping.bind(adapter);
    (adapter as { ping: typeof adapter.ping }).ping = async () => {
      throw new Error('database unreachable');
    };
    const degraded = await request(`${base}/health`, 'GET');
    assert.equal(degraded.status, 503);
    assert.deepEqual(degraded.body, { status: 'degraded' });
    const ready = await request(`${base}/ready`, 'GET');
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.body, { status: 'not_ready' });
    (adapter as { ping: typeof adapter.ping }).ping = ping;
    await app.stop();
  });

  it('refuses readiness check names that are empty, duplicated or "db"', () => {
    const check = async () => {};
    assert.throws(() => createServer({ readinessChecks: [{ name: '', check }] }), /empty name/);
    assert.throws(() => createServer({ readinessChecks: [{ name: 'db', check }] }), /reserved/);
    assert.throws(() => createServer({ readinessChecks: [{ name: 'a', check }, { name: 'a', check }] }), /registered twice/);
  });
});

eachBackend('deadlines and disconnects', (backend) => {
  const reached = new Recorder<string>();
  // Long enough for any ordinary request of the suite on a loaded machine; only the held ones reach it.
  const server = useServer(backend, {
    config: { queryTimeout: '1s' },
    setup(app) {
      // x-hold: the work waits until the request is cancelled, then goes on to write.
      app.use('service', async (ctx, next) => {
        if (ctx.req.headers['x-hold']) {
          reached.push(ctx.requestId);
          await cancelled(ctx);
        }
        await next();
      });
    },
  });
  /** The access line of a request, written once its work has ended. */
  const accessLine = (requestId: string) => server.logLine((l) => l.message === 'request' && l.fields.requestId === requestId);

  it('answers 504 TIMEOUT when a request passes its deadline, and does not write', async () => {
    const res = await server.request('POST', '/tags', { body: { name: 'too slow' }, headers: { 'x-hold': 'yes', 'x-request-id': 'too-slow' } });
    assert.equal(res.status, 504);
    assert.deepEqual(res.body, { error: { code: 'TIMEOUT', message: 'gateway timeout' } });
    // The 504 is sent at the deadline; the cancelled work goes on to its write attempt after it.
    await accessLine('too-slow');
    const rows = await server.app.db.raw('SELECT id FROM tags WHERE name = ?', ['too slow']);
    assert.equal(rows.length, 0, 'the cancelled work did not write');
    assert.equal((await server.request('POST', '/tags', { body: { name: 'fast enough' } })).status, 201);
  });

  it('logs a client that disconnects as 499 and cancels its work', async () => {
    const id = 'disconnect-1';
    const req = httpRequest(`${server.url}/tags`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hold': 'yes', 'x-request-id': id } });
    req.on('error', () => {});
    req.end(JSON.stringify({ name: 'abandoned' }));
    // The client leaves while its request is in the service step.
    await reached.next((requestId) => requestId === id);
    req.destroy();
    const line = await accessLine(id);
    assert.equal(line?.fields.status, 499);
    const rows = await server.app.db.raw('SELECT id FROM tags WHERE name = ?', ['abandoned']);
    assert.equal(rows.length, 0, 'the abandoned request wrote nothing');
  });
});
