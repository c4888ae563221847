// The idempotency hook: replay, key reuse, failures, concurrency, TTL, scoping, the SQL store, and
// answers of models with encrypted fields, stored sealed (no plaintext in mfx_idempotency).
import { AsyncLocalStorage } from 'node:async_hooks';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { ApiError, describeHook, idempotency, type IdempotencyStore, MemoryIdempotencyStore, rotateKeys, SqlIdempotencyStore, staticKeyProvider, type App } from '@mfx/runtime';
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

const SSN = '901-23-4567';
const NOTES = 'idempotent secret note';
const CARD = '5500 0000 0000 0004';

for (const storeKind of ['memory', 'sql'] as const) {
  eachBackend(`idempotency of encrypted fields (${storeKind} store)`, (backend) => {
    let app: App;
    const server = useServer(backend, {
      fixture: 'fields',
      config: { keyProvider: staticKeyProvider({ keys: { default: randomBytes(32), payments: randomBytes(32), k2: randomBytes(32), index: randomBytes(32) } }) },
      setup(a) {
        app = a;
        const store = storeKind === 'sql' ? lazySqlStore(() => app) : new MemoryIdempotencyStore();
        a.use('deserialize', idempotency({ ttlMs: TTL_MS, store }), { position: 'after', ops: ['create'] });
      },
    });
    const stored = async () => (await server.app.db.raw('SELECT response FROM mfx_idempotency')).map((row) => String(row.response));
    const patients = async (name: string) => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM patients WHERE name = ?', [name]))[0]!.n);

    it('stores the answer sealed, and a replay returns the same status, body and headers', async () => {
      const headers = { 'Idempotency-Key': `enc-replay-${storeKind}` };
      const body = { name: 'Sealed', ssn: SSN, notes: NOTES, card: CARD };
      const first = await server.request('POST', '/patients', { body, headers });
      assert.equal(first.status, 201, first.text);
      assert.deepEqual([first.body.data.ssn, first.body.data.notes, first.body.data.card], [SSN, NOTES, CARD]);
      const second = await server.request('POST', '/patients', { body, headers });
      assert.equal(second.status, first.status);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(second.body, first.body);
      assert.equal(second.headers.get('location'), first.headers.get('location'));
      assert.equal(second.headers.get('etag'), first.headers.get('etag'));
      assert.equal(await patients('Sealed'), 1);
      if (storeKind === 'sql') {
        const rows = await stored();
        assert.equal(rows.length, 1);
        for (const secret of [SSN, NOTES, CARD, 'Sealed', String(first.body.data.id)]) assert.equal(rows[0]!.includes(secret), false, `mfx_idempotency holds ${secret}`);
        const response = JSON.parse(rows[0]!);
        assert.deepEqual(Object.keys(response).sort(), ['body', 'sealed', 'status']);
        assert.equal(response.status, 201);
        assert.equal(response.body, null);
        assert.match(response.sealed, /^enc:[A-Za-z0-9+/=]+$/);
      }
    });

    it('a replay still opens after mfx rotate-keys moves the records to another key id (the old key stays readable)', async () => {
      const headers = { 'Idempotency-Key': `enc-rotate-${storeKind}` };
      const body = { name: 'Rotated', ssn: '902-00-0001', notes: 'rotated note' };
      const first = await server.request('POST', '/patients', { body, headers });
      assert.equal(first.status, 201, first.text);
      const report = await rotateKeys(server.app, { to: 'k2' });
      assert.equal(report.complete, true);
      const second = await server.request('POST', '/patients', { body, headers });
      assert.equal(second.status, 201);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(second.body, first.body);
      assert.equal(await patients('Rotated'), 1);
    });

    if (storeKind === 'sql') {
      it('a stored answer that fails authentication is 500 DECRYPTION_ERROR, logged without any value, and creates nothing', async () => {
        const headers = { 'Idempotency-Key': 'enc-tampered' };
        const body = { name: 'Tampered replay', ssn: '903-00-0001', notes: 'tampered note' };
        const earlier = new Set((await server.app.db.raw('SELECT key FROM mfx_idempotency')).map((r) => String(r.key)));
        const first = await server.request('POST', '/patients', { body, headers });
        assert.equal(first.status, 201, first.text);
        const [row] = (await server.app.db.raw('SELECT key, response FROM mfx_idempotency')).filter((r) => !earlier.has(String(r.key)));
        const response = JSON.parse(String(row!.response));
        const bytes = Buffer.from(String(response.sealed).slice(4), 'base64');
        bytes[bytes.length - 1]! ^= 1;
        response.sealed = `enc:${bytes.toString('base64')}`;
        await server.app.db.raw('UPDATE mfx_idempotency SET response = ? WHERE key = ?', [JSON.stringify(response), row!.key]);
        const logged = server.logLine((l) => l.message === 'an encrypted value cannot be decrypted' && l.fields.what === 'idempotency replay');
        const res = await server.request('POST', '/patients', { body, headers });
        assert.equal(res.status, 500);
        assert.deepEqual(res.body, { error: { code: 'DECRYPTION_ERROR', message: 'internal server error' } });
        const line = await logged;
        assert.equal(line.fields.model, 'Patient');
        assert.equal(JSON.stringify(line).includes('tampered note'), false);
        assert.equal(await patients('Tampered replay'), 1);
      });
    }
  });

  eachBackend(`idempotency of encrypted fields without a key provider (${storeKind} store)`, (backend) => {
    let app: App;
    const server = useServer(backend, {
      fixture: 'fields',
      setup(a) {
        app = a;
        const store = storeKind === 'sql' ? lazySqlStore(() => app) : new MemoryIdempotencyStore();
        a.use('deserialize', idempotency({ ttlMs: TTL_MS, store }), { position: 'after', ops: ['create'] });
      },
    });

    it('the write fails with ENCRYPTION_NOT_CONFIGURED, so no answer is stored and a retry runs again', async () => {
      const headers = { 'Idempotency-Key': `enc-unconfigured-${storeKind}` };
      const body = { name: 'No keys', ssn: SSN, notes: NOTES };
      for (let attempt = 0; attempt < 2; attempt++) {
        const res = await server.request('POST', '/patients', { body, headers });
        assert.equal(res.status, 500);
        assert.deepEqual(res.body, { error: { code: 'ENCRYPTION_NOT_CONFIGURED', message: 'internal server error' } });
        assert.equal(res.headers.get('idempotent-replayed'), null);
      }
      assert.equal(Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM patients'))[0]!.n), 0);
      if (storeKind === 'sql') assert.equal(Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM mfx_idempotency'))[0]!.n), 0);
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
