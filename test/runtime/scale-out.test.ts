// Scale-out on real infrastructure: two `mfx serve` processes behind PgBouncer
// (transaction pooling, binary_parameters=yes), writes on a PostgreSQL primary,
// reads on its streaming replica, rate limits counted in Redis and idempotency
// keys kept in SQL; read-your-writes against a replica made to lag by pausing
// its replay; migrations of replicas starting at once. One cluster (made with
// initdb and pg_basebackup, test/support/pg-cluster.ts) serves the whole file.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import { openPostgres } from '@mfx/runtime';
import { postgres as postgresDialect } from '../../runtime/src/sql/dialects/postgres.js';
import setupScaleApp from '../../fixtures/scale/app.js';
import type { Backend } from '../support/backends.js';
import { type Running, servingUrl, startMfx } from '../support/cli.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { type Cluster, clusterTools, startCluster } from '../support/pg-cluster.js';
import { request, startServer, type TestResponse } from '../support/server.js';
import { until } from '../support/wait.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const found = clusterTools();

/** A unique text per call, so every test reads only rows it wrote. */
const unique = (label: string) => `${label}-${randomBytes(5).toString('hex')}`;

/** One `mfx serve` process, as a deployment runs it. */
interface Replica {
  mfx: Running;
  /** `http://127.0.0.1:PORT/api` once it serves. */
  ready: Promise<string>;
  request(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<TestResponse>;
}

function serve(manifest: string, env: Record<string, string>): Replica {
  const mfx = startMfx(['serve', '--manifest', manifest, '--port', '0', '--app', 'fixtures/scale/app.ts'], { env });
  const ready = servingUrl(mfx);
  ready.catch(() => {});
  return { mfx, ready, request: async (method, path, init) => request(`${await ready}${path}`, method, init) };
}

describe('scale-out: two mfx serve replicas, PgBouncer, a primary and its streaming replica', { skip: 'skip' in found ? found.skip : false }, () => {
  let cluster: Cluster;
  let manifest: string;
  let a: Replica;
  let b: Replica;
  const ratePrefix = `mfx:scale-test:${randomBytes(4).toString('hex')}:`;
  /** What both replicas are started with: writes to the primary and reads to the replica, both through PgBouncer. */
  const env = () => ({
    DB_WRITE_URL: cluster.bouncer.url('mfx', 'binary_parameters=yes'),
    DB_READ_URL: cluster.bouncer.url('mfx_ro', 'binary_parameters=yes'),
    SCALE_REDIS_URL: REDIS_URL,
    SCALE_RATE_PREFIX: ratePrefix,
  });
  /** Sessions waiting for an advisory lock (the migration lock) on the primary. */
  const migrationsWaiting = async () =>
    (
      await cluster.query<{ n: number }>(
        'primary',
        'mfx',
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid WHERE l.locktype = 'advisory' AND NOT l.granted AND s.datname = 'mfx'`,
      )
    )[0].n;

  /** The startup logs of the two replicas, which migrated the empty database at once. */
  before(
    async () => {
      if (!('tools' in found)) return;
      manifest = await fixtureManifestDir('scale');
      cluster = await startCluster(found.tools, ['mfx']);
      // Both replicas start on the empty database while the test holds the migration lock: both
      // wait for it, so their migrations contend once it is released.
      const holder = new pg.Client({ connectionString: cluster.primary.url('mfx') });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        for (const statement of postgresDialect.migrationLock) await holder.query(statement);
        a = serve(manifest, env());
        b = serve(manifest, env());
        // A replica that exits (or serves without the lock) ends the wait with its output.
        let holding = true;
        const early = Promise.race([a.ready, b.ready]).then(() => {
          if (holding) throw new Error('a replica served while the test held the migration lock');
        });
        early.catch(() => {});
        await Promise.race([until(async () => (await migrationsWaiting()) === 2), early]);
        holding = false;
        await holder.query('COMMIT');
      } finally {
        await holder.end();
      }
      await Promise.all([a.ready, b.ready]);
      // The schema reaches the replica before any test reads.
      await cluster.caughtUp();
    },
    { timeout: 180_000 },
  );

  after(async () => {
    await Promise.all([a?.mfx.stop(), b?.mfx.stop()]);
    await cluster?.stop();
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${ratePrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      await redis.quit();
    }
  });

  /** Runs `work` while the replica replays nothing: it lags behind every write made meanwhile. */
  const whileLagging = async <T>(work: () => Promise<T>): Promise<T> => {
    await cluster.caughtUp();
    await cluster.pauseReplay();
    try {
      return await work();
    } finally {
      await cluster.resumeReplay();
    }
  };

  const noteOn = (on: 'primary' | 'replica', id: string) => cluster.query(on, 'mfx', 'SELECT title FROM notes WHERE id = $1', [id]);

  it('writes land on the primary and reads are served by the replica', async () => {
    const title = unique('routed');
    const id = await whileLagging(async () => {
      const created = await a.request('POST', '/notes', { body: { title } });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.id as string;
      // On the primary, not on the lagging replica.
      assert.deepEqual(await noteOn('primary', id), [{ title }]);
      assert.deepEqual(await noteOn('replica', id), []);
      // Both mfx replicas read from the database replica: the note is not there yet.
      for (const server of [a, b]) {
        const read = await server.request('GET', `/notes/${id}`);
        assert.equal(read.status, 404, read.text);
        assert.equal(read.body.error.code, 'NOT_FOUND');
        assert.equal(read.body.error.message, `no Note with id "${id}"`);
        const listed = await server.request('GET', `/notes?filter=${encodeURIComponent(`title:eq:${title}`)}`);
        assert.equal(listed.status, 200);
        assert.equal(listed.body.meta.total, 0);
      }
      return id;
    });
    // Once the replica has replayed the write, every replica reads it.
    await cluster.caughtUp();
    for (const server of [a, b]) {
      const read = await server.request('GET', `/notes/${id}`);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.data.title, title);
    }
  });

  it('a request reads its own write: after it commits, and all through a request that may write', async () => {
    await whileLagging(async () => {
      // The create's own read, after the insert committed, finds the note on the primary.
      const created = await a.request('POST', '/notes', { body: { title: unique('own-write') } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get('x-seen-after-write'), '1');
      const id = created.body.data.id as string;
      assert.equal((await b.request('GET', `/notes/${id}`)).status, 404);

      // A GET that writes: its read before the write is the replica's, its read after it the primary's.
      const probe = await b.request('GET', `/probe/read-write-read?id=${id}`);
      assert.equal(probe.status, 200, probe.text);
      assert.deepEqual(probe.body.data, { before: false, after: true });

      // A POST reads the primary from its start (a login right after a sign-up finds the user).
      const lookup = await b.request('POST', '/probe/lookup', { body: { id } });
      assert.equal(lookup.status, 200, lookup.text);
      assert.deepEqual(lookup.body.data, { found: true });

      // A hook may ask for the primary in code: ctx.readFromPrimary().
      const fresh = await b.request('GET', `/probe/fresh?id=${id}`);
      assert.deepEqual(fresh.body.data, { found: true });
    });
  });

  it("a singleton's first read creates its row on the primary and reads it back there, while the replica lags", async () => {
    await whileLagging(async () => {
      // The row exists nowhere yet: the read inserts it, then must read it back from the primary.
      const first = await a.request('GET', '/settings');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.data.siteName, 'mfx');
      // On the other replica the row is on the primary only: the insert finds it there and reads it back from there.
      const second = await b.request('GET', '/settings');
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.data.created_at, first.body.data.created_at);
      assert.deepEqual(await cluster.query('primary', 'mfx', 'SELECT count(*)::int AS n FROM settings'), [{ n: 1 }]);
      assert.deepEqual(await cluster.query('replica', 'mfx', 'SELECT count(*)::int AS n FROM settings'), [{ n: 0 }]);
    });
  });

  it('X-Read-Primary: 1 reads the primary right after a write; other values read the replica', async () => {
    await whileLagging(async () => {
      const title = unique('header');
      const created = await a.request('POST', '/notes', { body: { title } });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.id as string;

      const fromPrimary = await b.request('GET', `/notes/${id}`, { headers: { 'X-Read-Primary': '1' } });
      assert.equal(fromPrimary.status, 200, fromPrimary.text);
      assert.equal(fromPrimary.body.data.title, title);
      const listed = await b.request('GET', `/notes?filter=${encodeURIComponent(`title:eq:${title}`)}`, { headers: { 'X-Read-Primary': '1' } });
      assert.deepEqual(
        listed.body.data.map((n: { id: string }) => n.id),
        [id],
      );

      for (const headers of [{}, { 'X-Read-Primary': 'true' }, { 'X-Read-Primary': '0' }] as Record<string, string>[]) {
        const fromReplica = await b.request('GET', `/notes/${id}`, { headers });
        assert.equal(fromReplica.status, 404, `${JSON.stringify(headers)}: ${fromReplica.text}`);
        assert.equal(fromReplica.body.error.code, 'NOT_FOUND');
      }
    });
  });

  it('readPrimaryHeader: false ignores X-Read-Primary', async () => {
    const urls = env();
    const bouncer: Backend = {
      name: 'postgres',
      skip: false,
      async open(registry) {
        return { adapter: openPostgres({ writeUrl: urls.DB_WRITE_URL, readUrl: urls.DB_READ_URL }, registry), drop: async () => {}, url: urls.DB_WRITE_URL };
      },
    };
    const server = await startServer(bouncer, { fixture: 'scale', config: { readPrimaryHeader: false }, setup: setupScaleApp });
    try {
      await whileLagging(async () => {
        const created = await server.request('POST', '/notes', { body: { title: unique('ignored-header') } });
        assert.equal(created.status, 201, created.text);
        const id = created.body.data.id as string;
        const read = await server.request('GET', `/notes/${id}`, { headers: { 'X-Read-Primary': '1' } });
        assert.equal(read.status, 404, read.text);
        assert.equal(read.body.error.code, 'NOT_FOUND');
        // Where the setting is left on (the default), the same read finds it on the primary.
        assert.equal((await a.request('GET', `/notes/${id}`, { headers: { 'X-Read-Primary': '1' } })).status, 200);
      });
    } finally {
      await server.close();
    }
  });

  it('streams rows through a cursor on the replica behind the pooler, and on the primary with X-Read-Primary: 1', async () => {
    const title = unique('streamed');
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await a.request('POST', '/notes', { body: { title } })).body.data.id);
    created.sort();
    const stream = (headers: Record<string, string> = {}) => b.request('GET', `/probe/stream?title=${title}`, { headers });
    await cluster.caughtUp();
    // Fetched two rows a round trip: the cursor's portal lives in one transaction of the pooled connection.
    assert.deepEqual((await stream()).body.data, { ids: created });
    await whileLagging(async () => {
      const more = (await a.request('POST', '/notes', { body: { title } })).body.data.id as string;
      assert.deepEqual((await stream()).body.data, { ids: created });
      assert.deepEqual((await stream({ 'X-Read-Primary': '1' })).body.data, { ids: [...created, more].sort() });
    });
  });

  it('a rate limit counts across both replicas, in Redis', async () => {
    const client = unique('client');
    const list = (server: Replica) => server.request('GET', '/hits', { headers: { 'X-Client': client } });
    // Three lists a minute per client: two on one replica and one on the other use them up.
    for (const server of [a, b, a]) assert.equal((await list(server)).status, 200);
    for (const server of [b, a]) {
      const refused = await list(server);
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.body.error.code, 'RATE_LIMITED');
      const retryAfter = refused.headers.get('retry-after');
      assert.match(retryAfter ?? '', /^\d+$/);
      assert.equal(refused.body.error.message, `more than 3 requests per minute; retry after ${retryAfter} s`);
    }
    // Another client has its own count.
    assert.equal((await b.request('GET', '/hits', { headers: { 'X-Client': unique('other') } })).status, 200);
    const redis = new Redis(REDIS_URL);
    try {
      assert.equal(await redis.get(`${ratePrefix}default:client:${client}`), '5');
    } finally {
      await redis.quit();
    }
  });

  it('an idempotency key replays across replicas, also while the replica lags', async () => {
    const key = unique('key');
    const title = unique('idempotent');
    const count = async () => Number((await cluster.query('primary', 'mfx', 'SELECT count(*)::int AS n FROM notes WHERE title = $1', [title]))[0].n);
    await whileLagging(async () => {
      const first = await a.request('POST', '/notes', { body: { title }, headers: { 'Idempotency-Key': key } });
      assert.equal(first.status, 201, first.text);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      // The other replica finds the key (on the primary: the replica has not replayed it) and replays the answer.
      const again = await b.request('POST', '/notes', { body: { title }, headers: { 'Idempotency-Key': key } });
      assert.equal(again.status, 201, again.text);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      // The same key with another body is refused there, and writes nothing.
      const reused = await b.request('POST', '/notes', { body: { title: `${title}-other` }, headers: { 'Idempotency-Key': key } });
      assert.equal(reused.status, 422, reused.text);
      assert.equal(reused.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal(reused.body.error.message, 'this Idempotency-Key was already used with a different request body; send a new key for a new request');
      assert.equal(await count(), 1);
      assert.deepEqual(await cluster.query('primary', 'mfx', 'SELECT count(*)::int AS n FROM notes WHERE title = $1', [`${title}-other`]), [{ n: 0 }]);
    });
  });

  it('replicas migrating one database at once take turns: one creates the schema, the other finds it done', async () => {
    // Both started waiting for the migration lock (see before); logged after the migration: every line of it is in by then.
    await Promise.all([a, b].map((server) => server.mfx.logLine({ msg: 'listening' })));
    const applied = [a, b].map((server) => server.mfx.logs().filter((line) => line.msg === 'migration applied'));
    assert.deepEqual(applied.map((lines) => lines.length).sort(), [0, 1]);
    assert.deepEqual(([...applied[0], ...applied[1]][0].createdTables as string[]).sort(), ['hits', 'mfx_idempotency', 'notes', 'settings']);
    // Neither warned or failed (pino levels: warn 40, error 50).
    for (const server of [a, b]) assert.deepEqual(server.mfx.logs().filter((line) => ((line.level as number | undefined) ?? 0) >= 40), []);
    const tables = await cluster.query('primary', 'mfx', `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`);
    assert.deepEqual(
      tables.map((t) => t.table_name),
      ['hits', 'mfx_idempotency', 'notes', 'settings'],
    );
    // Both serve the one schema.
    const created = await a.request('POST', '/notes', { body: { title: unique('migrated') } });
    assert.equal(created.status, 201, created.text);
    assert.equal((await b.request('GET', `/notes/${created.body.data.id}`, { headers: { 'X-Read-Primary': '1' } })).status, 200);
  });
});
