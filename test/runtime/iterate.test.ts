// Executor.iterate: rows one by one in the shapes all() gives, one snapshot per
// loop, early exits and cancellation that release the statement and its
// connection, concurrent requests while a loop is paused, transactions, and a
// streamed HTTP response fed by it. Runs on SQLite in memory, SQLite on a file
// (its own snapshot connection) and PostgreSQL (a cursor).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { App, Executor, Row } from '@mfx/runtime';
import { rowBatches } from '../../runtime/src/db/iterate.js';
import pg from 'pg';
import { PG_URL, sqliteFileBackend } from '../support/backends.js';
import { eachBackend, matrix, onlyOn, useServer } from '../support/suite.js';
import { until } from '../support/wait.js';

const TITLES = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];

/** Posts with at least `$1` views, by title: every column, so shapes of every type are compared. */
const postsSql = (db: Executor) => `SELECT * FROM posts WHERE views >= ${db.dialect.param(1)} ORDER BY title, id`;

async function collect(rows: AsyncIterable<Row>): Promise<Row[]> {
  const out: Row[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

/** An action that streams the posts as NDJSON, read through ctx.adapter.iterate after the chain. */
function ndjsonExport(app: App): void {
  app.action({
    method: 'GET',
    path: '/exports/posts',
    public: true,
    response: { schema: { type: 'string' }, contentType: 'application/x-ndjson' },
    handler(ctx) {
      const rows = ctx.adapter.iterate(postsSql(ctx.adapter), [0], { signal: ctx.cancel, batchSize: 2 });
      async function* lines() {
        for await (const row of rows) yield `${JSON.stringify(row)}\n`;
      }
      ctx.respondStream(200, { source: lines(), contentType: 'application/x-ndjson' });
    },
  });
}

eachBackend('row iteration', (backend) => {
  const server = useServer(backend, { setup: ndjsonExport });
  let db: App['db'];
  let userId: string;
  before(async () => {
    db = server.app.db;
    userId = (await server.request('POST', '/users', { body: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' } })).body.data.id;
    for (const [i, title] of TITLES.entries()) {
      const body = { title, userId, views: i, rating: i % 2 ? i / 2 : null, keywords: [title, 'k'], status: i % 2 ? 'published' : 'draft' };
      assert.equal((await server.request('POST', '/posts', { body })).status, 201);
    }
  });

  it('yields the rows all() gives, in the same shapes, a batch at a time', async () => {
    const expected = await db.all(postsSql(db), [0]);
    assert.equal(expected.length, TITLES.length);
    assert.deepEqual(await collect(db.iterate(postsSql(db), [0], { batchSize: 2 })), expected);
    assert.deepEqual(await collect(db.iterate(postsSql(db), [3])), await db.all(postsSql(db), [3]));
    assert.deepEqual(await collect(db.iterate(postsSql(db), [99])), []);
  });

  it('iterateBatches yields the same rows as arrays of at most batchSize, and rowBatches groups iterate for an executor without it', async () => {
    const expected = await db.all(postsSql(db), [0]);
    const sizes = async (batches: AsyncIterable<Row[]>) => {
      const seen: Row[][] = [];
      for await (const batch of batches) seen.push(batch);
      return seen;
    };
    for (const batchSize of [1, 2, 5, 500]) {
      const batches = await sizes(db.iterateBatches!(postsSql(db), [0], { batchSize }));
      assert.deepEqual(batches.flat(), expected, `batchSize ${batchSize}`);
      assert.deepEqual(
        batches.map((b) => b.length),
        Array.from({ length: Math.ceil(expected.length / batchSize) }, (_, i) => Math.min(batchSize, expected.length - i * batchSize)),
        `batchSize ${batchSize}: full batches, then the rest`,
      );
    }
    assert.deepEqual(await sizes(db.iterateBatches!(postsSql(db), [99])), [], 'no rows: no batch');
    await assert.rejects(db.iterateBatches!(postsSql(db), [0], { batchSize: 0 })[Symbol.asyncIterator]().next(), /batchSize must be a positive whole number, got 0/);
    // An adapter written before iterateBatches: its rows grouped the same way.
    const rowsOnly = { iterate: db.iterate.bind(db) } as unknown as Executor;
    const grouped = await sizes(rowBatches(rowsOnly, postsSql(db), [0], { batchSize: 2 }));
    assert.deepEqual(grouped.map((b) => b.length), [2, 2, 1]);
    assert.deepEqual(grouped.flat(), expected);
  });

  it('iterateBatches: breaking out releases the connection; an abort between batches stops with AbortedError', async () => {
    for (let i = 0; i < 10; i++) {
      for await (const batch of db.iterateBatches!(postsSql(db), [0], { batchSize: 2 })) {
        assert.deepEqual(batch.map((r) => r.title), ['alpha', 'bravo']);
        break;
      }
    }
    const controller = new AbortController();
    const batches = db.iterateBatches!(postsSql(db), [0], { batchSize: 2, signal: controller.signal })[Symbol.asyncIterator]();
    assert.equal((await batches.next()).value?.length, 2);
    controller.abort('client-closed');
    await assert.rejects(batches.next(), { name: 'AbortedError' });
    assert.equal((await db.all(postsSql(db), [0])).length, TITLES.length);
    assert.equal((await server.request('GET', '/posts')).status, 200);
  });

  it('does nothing until the first next(), and refuses to start on an aborted signal', async () => {
    const bad = db.iterate('SELECT no_such_column FROM posts');
    const iterator = bad[Symbol.asyncIterator]();
    await assert.rejects(iterator.next());
    const aborted = AbortSignal.abort('timeout');
    await assert.rejects(db.iterate(postsSql(db), [0], { signal: aborted })[Symbol.asyncIterator]().next(), { name: 'AbortedError' });
  });

  it('refuses a batch size that is not a positive whole number', async () => {
    await assert.rejects(db.iterate(postsSql(db), [0], { batchSize: 0 })[Symbol.asyncIterator]().next(), /batchSize must be a positive whole number, got 0/);
  });

  it('keeps concurrent requests working while a loop is paused, and reads one snapshot', async () => {
    const rows = db.iterate(postsSql(db), [0], { batchSize: 1 })[Symbol.asyncIterator]();
    const first = await rows.next();
    assert.equal(first.value?.title, 'alpha');
    // Reads, writes and a transaction (users are versioned) of other requests, while the loop waits.
    assert.equal((await server.request('GET', '/posts')).status, 200);
    const tag = await server.request('POST', '/tags', { body: { name: 'during the pause' } });
    assert.equal(tag.status, 201);
    assert.equal((await server.request('GET', `/tags/${tag.body.data.id}`)).status, 200);
    assert.equal((await server.request('PATCH', `/users/${userId}`, { body: { bio: 'paused' } })).status, 200);
    const late = await server.request('POST', '/posts', { body: { title: 'zulu', userId, views: 10 } });
    assert.equal(late.status, 201);
    const rest: Row[] = [];
    for (let step = await rows.next(); !step.done; step = await rows.next()) rest.push(step.value);
    // The post written during the pause is not part of the loop that had started.
    assert.deepEqual([first.value, ...rest].map((row) => row.title), TITLES);
    await db.run(`DELETE FROM posts WHERE id = ${db.dialect.param(1)}`, [late.body.data.id]);
  });

  it('releases the statement and its connection when the loop breaks early', async () => {
    // More early exits than the PostgreSQL read pool has connections: a leak would starve the next one.
    for (let i = 0; i < 10; i++) {
      for await (const row of db.iterate(postsSql(db), [0], { batchSize: 1 })) {
        assert.equal(row.title, 'alpha');
        break;
      }
    }
    assert.equal((await db.all(postsSql(db), [0])).length, TITLES.length);
    assert.equal((await server.request('GET', '/posts')).status, 200);
  });

  it('stops with AbortedError when the signal aborts between rows, and gives the connection back', async () => {
    for (let i = 0; i < 8; i++) {
      const controller = new AbortController();
      const rows = db.iterate(postsSql(db), [0], { batchSize: 1, signal: controller.signal })[Symbol.asyncIterator]();
      assert.equal((await rows.next()).value?.title, 'alpha');
      controller.abort('client-closed');
      await assert.rejects(rows.next(), { name: 'AbortedError' });
      assert.deepEqual(await rows.next(), { done: true, value: undefined });
    }
    assert.equal((await collect(db.iterate(postsSql(db), [0]))).length, TITLES.length);
  });

  it('inside a transaction: sees its writes, refuses other statements while open, and is closed when the transaction ends', async () => {
    let leftOpen: AsyncIterator<Row> | null = null;
    await db.transaction(async (tx) => {
      const now = new Date().toISOString();
      await tx.raw('INSERT INTO tags (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', ['00000000-0000-4000-8000-00000000aaaa', 'in the transaction', now, now]);
      const names: unknown[] = [];
      for await (const row of tx.iterate('SELECT name FROM tags ORDER BY name', [], { batchSize: 1 })) {
        if (names.length === 0) {
          await assert.rejects(tx.all('SELECT 1 AS one'), /an iteration is open on this transaction; finish the loop or break out of it/);
          await assert.rejects(tx.iterate('SELECT 1 AS one')[Symbol.asyncIterator]().next(), /an iteration is open on this transaction/);
        }
        names.push(row.name);
      }
      assert.ok(names.includes('in the transaction'));
      for await (const batch of tx.iterateBatches!('SELECT name FROM tags ORDER BY name', [], { batchSize: 100 })) {
        await assert.rejects(tx.all('SELECT 1 AS one'), /an iteration is open on this transaction/);
        assert.ok(batch.some((row) => row.name === 'in the transaction'));
      }
      assert.deepEqual(await tx.all('SELECT 1 AS one'), [{ one: 1 }]);
      leftOpen = tx.iterate('SELECT name FROM tags ORDER BY name', [], { batchSize: 1 })[Symbol.asyncIterator]();
      assert.ok((await leftOpen.next()).value);
    });
    // The loop left open did not keep the transaction from committing; reading on from it fails.
    assert.equal((await db.all('SELECT name FROM tags WHERE id = ' + db.dialect.param(1), ['00000000-0000-4000-8000-00000000aaaa'])).length, 1);
    await assert.rejects(leftOpen!.next(), /this transaction has already ended/);
    await db.run('DELETE FROM tags WHERE id = ' + db.dialect.param(1), ['00000000-0000-4000-8000-00000000aaaa']);
  });

  it('feeds a streamed HTTP response: the NDJSON lines are the rows', async () => {
    const res = await server.request('GET', '/exports/posts');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    const lines = res.text.trimEnd().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(lines, JSON.parse(JSON.stringify(await db.all(postsSql(db), [0]))));
  });

  it('holds one WAL snapshot while the loop is open and lets it go when it ends', onlyOn(backend, 'sqlite-file', 'only SQLite on a file reads through a WAL snapshot of its own'), async () => {
    // Rows are stepped a batch ahead: with batches of one, the statement is still open after the first row.
    const rows = db.iterate(postsSql(db), [0], { batchSize: 1 })[Symbol.asyncIterator]();
    await rows.next();
    await server.request('POST', '/tags', { body: { name: 'after the snapshot' } });
    // A checkpoint cannot copy back the frames written after the open loop's snapshot...
    const during = (await db.raw('PRAGMA wal_checkpoint(PASSIVE)'))[0];
    assert.ok((during.checkpointed as number) < (during.log as number), JSON.stringify(during));
    await rows.return!();
    // ...and can once the loop has ended.
    const afterwards = (await db.raw('PRAGMA wal_checkpoint(PASSIVE)'))[0];
    assert.equal(afterwards.checkpointed, afterwards.log);
  });

  it('cancels a fetch in flight on the server', onlyOn(backend, 'postgres', 'only PostgreSQL fetches from a cursor in the server, where another session can hold it'), async () => {
    // Another session holds a lock, so the cursor's fetch waits in the server until it is cancelled.
    const locker = new pg.Client({ connectionString: PG_URL });
    await locker.connect();
    try {
      const schema = (await db.raw('SELECT current_schema() AS s'))[0].s as string;
      await locker.query(`SET search_path TO "${schema}"`);
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tags IN ACCESS EXCLUSIVE MODE');
      const controller = new AbortController();
      const pending = db.iterate('SELECT name FROM tags', [], { signal: controller.signal })[Symbol.asyncIterator]().next();
      // Wait (on the server's own view, not a timer) until the fetch is blocked on the lock.
      await until(async () => (await locker.query("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'tags'::regclass")).rows[0].n > 0);
      controller.abort('timeout');
      await assert.rejects(pending, { name: 'AbortedError' });
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    // The cancelled connection was closed, not reused: the next loop gets a working one.
    assert.deepEqual(await collect(db.iterate('SELECT 1 AS one')), [{ one: 1 }]);
  });
}, [...matrix, sqliteFileBackend]);
