// Operational routes, deadlines, client disconnects and graceful shutdown.
import assert from 'node:assert/strict';
import { get as httpGet, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createServer, type HttpMiddleware } from '@mfx/runtime';
import { backends } from '../support/backends.js';
import { loadFixture } from '../support/fixtures.js';
import { memoryLogger, request, startServer, type TestServer } from '../support/server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

for (const backend of await backends()) {
  describe(`probes on ${backend.name}`, { skip: backend.skip }, () => {
    let server: TestServer;
    let cacheHealthy = true;
    let checkRuns = 0;
    /** While set, checks wait for it: concurrent requests overlap however slow the machine is. */
    let gate: Promise<void> | null = null;
    const seen: string[] = [];
    const tag = (label: string): HttpMiddleware => (req, _res, next) => {
      seen.push(`${label}:${req.url}`);
      next();
    };
    before(async () => {
      server = await startServer(backend, {
        config: {
          healthCheckDB: true,
          readinessChecks: [
            {
              name: 'cache',
              check: async () => {
                checkRuns++;
                await (gate ?? sleep(50));
                if (!cacheHealthy) throw new Error('cache down: secret detail');
              },
            },
          ],
          probes: { publishReadinessChecks: true, middleware: [tag('shared')], ready: { middleware: [tag('ready')] }, health: { disabled: true } },
        },
      });
    });
    after(async () => server?.close());

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
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      const arrived = seen.length;
      const pending = Promise.all(Array.from({ length: 10 }, () => server.request('GET', '/ready')));
      // Hold the checks until all ten requests have reached the probe.
      while (seen.filter((s, i) => i >= arrived && s.startsWith('ready:')).length < 10) await sleep(5);
      release();
      gate = null;
      const results = await pending;
      assert.deepEqual(results.map((r) => r.status), Array(10).fill(200));
      assert.equal(checkRuns - before, 1);
    });

    it('runs the shared probe middleware, then the per-probe one; a disabled probe is 404', async () => {
      seen.length = 0;
      await server.request('GET', '/ready');
      assert.deepEqual(seen, ['shared:/api/ready', 'ready:/api/ready']);
      seen.length = 0;
      await server.request('GET', '/live');
      assert.deepEqual(seen, ['shared:/api/live']);
      assert.equal((await server.request('GET', '/health')).status, 404);
    });
  });
}

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
    const { adapter } = await (await import('../support/backends.js')).backends().then((b) => b[0].open(app.registry));
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
    const { adapter } = await (await import('../support/backends.js')).backends().then((b) => b[0].open(app.registry));
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

for (const backend of await backends()) {
  describe(`deadlines and disconnects on ${backend.name}`, { skip: backend.skip }, () => {
    let server: TestServer;
    const finishedWork: string[] = [];
    before(async () => {
      server = await startServer(backend, {
        config: { queryTimeout: '200ms' },
        setup(app) {
          app.use('service', async (ctx, next) => {
            const wait = Number(ctx.req.headers['x-wait'] ?? 0);
            if (wait) await sleep(wait);
            await next();
            finishedWork.push(ctx.requestId);
          });
        },
      });
    });
    after(async () => server?.close());

    it('answers 504 TIMEOUT when a request passes its deadline, and does not write', async () => {
      const res = await server.request('POST', '/tags', { body: { name: 'too slow' }, headers: { 'x-wait': '400' } });
      assert.equal(res.status, 504);
      assert.deepEqual(res.body, { error: { code: 'TIMEOUT', message: 'gateway timeout' } });
      await sleep(400);
      const rows = await server.app.db.raw('SELECT id FROM tags WHERE name = ?', ['too slow']);
      assert.equal(rows.length, 0, 'the cancelled work did not write');
      assert.equal((await server.request('POST', '/tags', { body: { name: 'fast enough' } })).status, 201);
    });

    it('logs a client that disconnects as 499 and cancels its work', async () => {
      const id = `disconnect-${Date.now()}`;
      await new Promise<void>((resolve) => {
        const req = httpRequest(`${server.url}/tags`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wait': '150', 'x-request-id': id } });
        req.on('error', () => resolve());
        req.end(JSON.stringify({ name: 'abandoned' }));
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 50);
      });
      await sleep(300);
      const line = server.logs.find((l) => l.message === 'request' && l.fields.requestId === id);
      assert.equal(line?.fields.status, 499);
      const rows = await server.app.db.raw('SELECT id FROM tags WHERE name = ?', ['abandoned']);
      assert.equal(rows.length, 0, 'the abandoned request wrote nothing');
    });
  });
}
