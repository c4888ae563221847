// The idempotency hook: replay, key reuse, failures, concurrency, TTL, scoping and the SQL store.
import { AsyncLocalStorage } from 'node:async_hooks';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ApiError, describeHook, idempotency, type IdempotencyStore, MemoryIdempotencyStore, SqlIdempotencyStore, type App } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';
import { type Gate, gate, Recorder } from '../support/wait.js';

/** Long enough that no test sees a key expire unless it moves the (mocked) clock past it. */
const TTL_MS = 60_000;
/** The request a store call is made for: set by a hook just before idempotency(). */
const requestOf = new AsyncLocalStorage<string>();

for (const storeKind of ['memory', 'sql'] as const) {
  eachBackend(`idempotency (${storeKind} store)`, (backend) => {
    let executions = 0;
    let app: App;
    /** The x-slow request holds its key in the service step while this is set. */
    let held: Gate | null = null;
    const waits = new Recorder<string>();
    const server = useServer(backend, {
      fixture: 'lifecycle',
      setup(a) {
        app = a;
        a.use('deserialize', (ctx, next) => requestOf.run(ctx.requestId, next), { position: 'after', ops: ['create'] });
        const store = storeKind === 'sql' ? lazySqlStore(() => app) : new MemoryIdempotencyStore();
        a.use('deserialize', idempotency({ ttlMs: TTL_MS, store: reportingWaits(store, waits) }), { position: 'after', ops: ['create'] });
        a.use('auth', async (ctx, next) => {
          const user = ctx.req.headers['x-user'];
          if (typeof user === 'string') ctx.identity = { userId: user, roles: [], claims: {}, tenantId: null, identityType: 'human', scopes: [], sessionId: null, authMethod: 'test' };
          await next();
        });
        // Declared as a gate so the OpenAPI document lists its 403 (the harness checks every answer against it).
        a.use('service', describeHook(async (ctx, next) => {
          executions++;
          if (ctx.req.headers['x-slow'] === 'yes') await held?.opened;
          if (ctx.req.headers['x-fail'] === 'yes') throw new ApiError('FORBIDDEN', 'refused once');
          await next();
        }, { role: 'gate', label: 'x-fail gate' }), { models: ['Order'], ops: ['create'] });
      },
    });

    const orders = async (item: string) => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM orders WHERE item = ?', [item]))[0].n);

    it('replays the cached 2xx for the same key and body, with Idempotent-Replayed: true', async () => {
      const headers = { 'Idempotency-Key': `k-replay-${storeKind}` };
      const first = await server.request('POST', '/orders', { body: { item: 'replay', quantity: 1 }, headers });
      assert.equal(first.status, 201);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const second = await server.request('POST', '/orders', { body: { item: 'replay', quantity: 1 }, headers });
      assert.equal(second.status, 201);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(second.body, first.body);
      assert.equal(await orders('replay'), 1);
    });

    it('the same key with a different body is 422 IDEMPOTENCY_KEY_REUSED and writes nothing', async () => {
      const headers = { 'Idempotency-Key': `k-reuse-${storeKind}` };
      assert.equal((await server.request('POST', '/orders', { body: { item: 'reuse', quantity: 1 }, headers })).status, 201);
      const res = await server.request('POST', '/orders', { body: { item: 'reuse', quantity: 2 }, headers });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.error, {
        code: 'IDEMPOTENCY_KEY_REUSED',
        message: 'this Idempotency-Key was already used with a different request body; send a new key for a new request',
      });
      assert.equal(await orders('reuse'), 1);
    });

    it('does not cache non-2xx responses: the key can be retried', async () => {
      const headers = { 'Idempotency-Key': `k-fail-${storeKind}` };
      const failed = await server.request('POST', '/orders', { body: { item: 'retry', quantity: 1 }, headers: { ...headers, 'x-fail': 'yes' } });
      assert.equal(failed.status, 403);
      const invalid = await server.request('POST', '/orders', { body: { item: 'retry', quantity: 0 }, headers });
      assert.equal(invalid.status, 422);
      assert.equal(invalid.body.error.code, 'VALIDATION_ERROR');
      const ok = await server.request('POST', '/orders', { body: { item: 'retry', quantity: 1 }, headers });
      assert.equal(ok.status, 201);
      assert.equal(ok.headers.get('idempotent-replayed'), null);
      assert.equal(await orders('retry'), 1);
    });

    it('concurrent first requests with one key run the pipeline once and all get the same record', async () => {
      const before = executions;
      const headers = { 'Idempotency-Key': `k-race-${storeKind}`, 'x-slow': 'yes' };
      const release = gate();
      held = release;
      const pending = Promise.all(
        Array.from({ length: 8 }, (_, i) => server.request('POST', '/orders', { body: { item: 'race', quantity: 3 }, headers: { ...headers, 'x-request-id': `race-${i}` } })),
      );
      // The first request holds the key in the service step until the seven others wait for it.
      await waits.count(7, (requestId) => requestId.startsWith('race-'));
      release.open();
      held = null;
      const results = await pending;
      assert.deepEqual(results.map((r) => r.status), Array(8).fill(201));
      assert.equal(new Set(results.map((r) => r.body.data.id)).size, 1);
      assert.equal(results.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 7);
      assert.equal(executions - before, 1);
      assert.equal(await orders('race'), 1);
    });

    it('keys are scoped to the caller and the model; they expire after the TTL', async (t) => {
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
      const key = `k-scope-${storeKind}`;
      const ada = await server.request('POST', '/orders', { body: { item: 'scoped', quantity: 1 }, headers: { 'Idempotency-Key': key, 'x-user': 'ada' } });
      const bob = await server.request('POST', '/orders', { body: { item: 'scoped', quantity: 1 }, headers: { 'Idempotency-Key': key, 'x-user': 'bob' } });
      assert.notEqual(ada.body.data.id, bob.body.data.id);
      const task = await server.request('POST', '/tasks', { body: { title: 'scoped' }, headers: { 'Idempotency-Key': key, 'x-user': 'ada' } });
      assert.equal(task.status, 201, 'another model does not see the key');
      assert.equal(await orders('scoped'), 2);
      t.mock.timers.tick(TTL_MS);
      const expired = await server.request('POST', '/orders', { body: { item: 'scoped', quantity: 1 }, headers: { 'Idempotency-Key': key, 'x-user': 'ada' } });
      assert.equal(expired.headers.get('idempotent-replayed'), null);
      assert.equal(await orders('scoped'), 3);
    });

    it('a key longer than 255 characters is 422 and writes nothing', async () => {
      const res = await server.request('POST', '/orders', { body: { item: 'long key', quantity: 1 }, headers: { 'Idempotency-Key': 'k'.repeat(256) } });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.error, {
        code: 'VALIDATION_ERROR',
        message: 'Idempotency-Key must be 1 to 255 characters',
        details: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 characters' }],
      });
      assert.equal(await orders('long key'), 0);
    });

    it('requests without the header are not affected', async () => {
      await server.request('POST', '/orders', { body: { item: 'plain', quantity: 1 } });
      await server.request('POST', '/orders', { body: { item: 'plain', quantity: 1 } });
      assert.equal(await orders('plain'), 2);
    });
  });
}

/** A store that reports each request that waits for a key another request holds, once, by request id. */
function reportingWaits(store: IdempotencyStore, waits: Recorder<string>): IdempotencyStore {
  return {
    tables: store.tables,
    claim: (key, fingerprint, ttlMs) => store.claim(key, fingerprint, ttlMs),
    complete: (key, response, ttlMs) => store.complete(key, response, ttlMs),
    release: (key) => store.release(key),
    wait(key, ms) {
      const requestId = requestOf.getStore();
      if (requestId && !waits.seen.includes(requestId)) waits.push(requestId);
      return store.wait(key, ms);
    },
  };
}

/** The SQL store needs the adapter, which the harness opens after setup: it reads it on first use. */
function lazySqlStore(app: () => App): SqlIdempotencyStore {
  return new SqlIdempotencyStore(() => app().db);
}
