// mfx's own reads and plain creates on SQLite answer without a promise (db/now.ts, issue 16):
// a read of a file database on its reader connection, the writer while no transaction holds
// it, a transaction's own statements. A statement that must wait for another request's
// transaction, an executor wrapped by a hook (a Proxy counting statements) and every other
// executor answer with a promise, through their public methods.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Adapter, type Executor, Registry } from '@mfx/runtime';
import { AbortedError } from '../../runtime/src/db/adapter.js';
import { allNow, getNow, type OneRowReads, rawNow, readAllNow, readOneNow, type RowsReads, transactionNow } from '../../runtime/src/db/now.js';
import { RequestCancel } from '../../runtime/src/pipeline/context.js';
import { then } from '../../runtime/src/util/maybe.js';
import { postgres, sqlite } from '../support/suite.js';
import { type Backend, sqliteFileBackend } from '../support/backends.js';

/** A database of its own with a table of notes holding one row (id 1, body "first"). */
async function withNotes(backend: Backend, test: (adapter: Adapter) => Promise<void>): Promise<void> {
  const { adapter, drop } = await backend.open(new Registry());
  try {
    // A rowid alias on SQLite: later inserts number themselves.
    await adapter.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    await adapter.exec("INSERT INTO notes (id, body) VALUES (1, 'first')");
    await test(adapter);
  } finally {
    await adapter.close();
    await drop();
  }
}

/** Reads that say which form the executor handed them: a row's values (SQLite's own reads), or the row keyed by column. */
const one: OneRowReads<unknown> = { values: (values) => ({ values }), row: (row) => ({ row }) };
const many: RowsReads<unknown> = { values: (values) => ({ values }), rows: (rows) => ({ rows }) };

/** Wraps an executor so every get and all it runs is counted, as a hook's decorator would. */
function counting(inner: Executor, count: { n: number }): Executor {
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'get' || key === 'all') {
        return (...args: unknown[]) => {
          count.n += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

for (const backend of [sqliteFileBackend, sqlite]) {
  describe(`answered now on ${backend.name}`, () => {
    it('reads a row and a list without a promise', () =>
      withNotes(backend, async (adapter) => {
        const row = getNow(adapter, 'SELECT body FROM notes WHERE id = ?', [1]);
        assert.ok(!(row instanceof Promise));
        assert.deepEqual(row, { body: 'first' });
        const rows = allNow(adapter, 'SELECT body FROM notes ORDER BY id', []);
        assert.ok(!(rows instanceof Promise));
        assert.deepEqual(rows, [{ body: 'first' }]);
      }));

    it('writes with RETURNING without a promise while no transaction holds the writer', () =>
      withNotes(backend, async (adapter) => {
        const row = getNow(adapter, 'INSERT INTO notes (body) VALUES (?) RETURNING id, body', ['second']);
        assert.ok(!(row instanceof Promise));
        assert.deepEqual(row, { id: 2, body: 'second' });
        assert.deepEqual(await adapter.get('SELECT COUNT(*) AS n FROM notes'), { n: 2 });
      }));

    it("waits with a promise for another request's transaction, and writes once it has committed", () =>
      withNotes(backend, async (adapter) => {
        let pending: unknown;
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        const holder = adapter.transaction(async (tx) => {
          await tx.run('INSERT INTO notes (body) VALUES (?)', ['in the transaction']);
          pending = getNow(adapter, 'INSERT INTO notes (body) VALUES (?) RETURNING body', ['after it']);
          release();
        });
        await released;
        assert.ok(pending instanceof Promise);
        await holder;
        assert.deepEqual(await pending, { body: 'after it' });
        assert.deepEqual(
          (await adapter.all('SELECT body FROM notes ORDER BY id')).map((r) => r.body),
          ['first', 'in the transaction', 'after it'],
        );
      }));

    it('reads rows as their values in SELECT order, without a promise, for readOneNow and readAllNow', () =>
      withNotes(backend, async (adapter) => {
        assert.deepEqual(readOneNow(adapter, 'SELECT body, id FROM notes WHERE id = ?', [1], undefined, one), { values: ['first', 1] });
        assert.deepEqual(readOneNow(adapter, 'SELECT body, id FROM notes WHERE id = ?', [9], undefined, one), { values: undefined });
        assert.deepEqual(readAllNow(adapter, 'SELECT id, body FROM notes ORDER BY id', [], undefined, many), { values: [[1, 'first']] });
        // The same statement read keyed by column still is (a statement of each kind, side by side).
        assert.deepEqual(getNow(adapter, 'SELECT body, id FROM notes WHERE id = ?', [1]), { body: 'first', id: 1 });
        assert.deepEqual(readOneNow(adapter, 'INSERT INTO notes (body) VALUES (?) RETURNING id, body', ['second'], undefined, one), { values: [2, 'second'] });
        await adapter.transaction(async (tx) => {
          assert.deepEqual(readOneNow(tx, 'INSERT INTO notes (body) VALUES (?) RETURNING body', ['inside'], undefined, one), { values: ['inside'] });
          assert.deepEqual(readAllNow(tx, 'SELECT body FROM notes ORDER BY id', [], undefined, many), { values: [['first'], ['second'], ['inside']] });
        });
        // Waiting for another request's transaction: a promise of the values.
        let pending: unknown;
        const holder = adapter.transaction(async (tx) => {
          await tx.run('INSERT INTO notes (body) VALUES (?)', ['held']);
          pending = readOneNow(adapter, 'INSERT INTO notes (body) VALUES (?) RETURNING body', ['after it'], undefined, one);
        });
        await holder;
        assert.ok(pending instanceof Promise);
        assert.deepEqual(await pending, { values: ['after it'] });
      }));

    it('reads rows keyed by column through a wrapped executor, with a promise', () =>
      withNotes(backend, async (adapter) => {
        const count = { n: 0 };
        const wrapped = counting(adapter, count);
        const row = readOneNow(wrapped, 'SELECT body FROM notes WHERE id = ?', [1], undefined, one);
        assert.ok(row instanceof Promise);
        assert.deepEqual(await row, { row: { body: 'first' } });
        assert.deepEqual(await readAllNow(wrapped, 'SELECT body FROM notes', [], undefined, many), { rows: [{ body: 'first' }] });
        assert.equal(count.n, 2);
      }));

    it("answers a transaction's own statements without a promise", () =>
      withNotes(backend, async (adapter) => {
        await adapter.transaction(async (tx) => {
          const row = getNow(tx, 'INSERT INTO notes (body) VALUES (?) RETURNING body', ['inside']);
          assert.deepEqual(row, { body: 'inside' });
          const rows = allNow(tx, 'SELECT body FROM notes ORDER BY id', []);
          assert.deepEqual(rows, [{ body: 'first' }, { body: 'inside' }]);
        });
      }));

    it("refuses a cancelled request's statement at once, with the error get rejects with", () =>
      withNotes(backend, async (adapter) => {
        const cancel = new RequestCancel();
        cancel.abort('client-closed');
        assert.throws(() => getNow(adapter, 'SELECT body FROM notes', [], { signal: cancel }), (error) => error instanceof AbortedError && error.reason === 'client-closed');
        await assert.rejects(adapter.get('SELECT body FROM notes', [], { signal: cancel }), (error) => error instanceof AbortedError && error.reason === 'client-closed');
      }));

    it('begins, runs and commits a transaction in the call when its work answers now and the writer is free', () =>
      withNotes(backend, async (adapter) => {
        const made = transactionNow(adapter, (tx) => {
          const written = rawNow(tx, 'INSERT INTO notes (body) VALUES (?)', ['now']);
          assert.ok(!(written instanceof Promise));
          return getNow(tx, 'SELECT count(*) AS n FROM notes', []);
        });
        assert.ok(!(made instanceof Promise));
        assert.deepEqual(made, { n: 2 });
        // Committed, and the writer is free again: the next statement answers now.
        assert.deepEqual(getNow(adapter, "SELECT body FROM notes WHERE body = 'now'", []), { body: 'now' });
      }));

    it('rolls back and rethrows at once when the work throws, and frees the writer', () =>
      withNotes(backend, async (adapter) => {
        const failure = new Error('refused');
        assert.throws(
          () =>
            transactionNow(adapter, (tx) => {
              rawNow(tx, 'INSERT INTO notes (body) VALUES (?)', ['rolled back']);
              throw failure;
            }),
          (error) => error === failure,
        );
        assert.deepEqual(getNow(adapter, 'SELECT count(*) AS n FROM notes', []), { n: 1 });
        const again = transactionNow(adapter, (tx) => rawNow(tx, 'INSERT INTO notes (body) VALUES (?)', ['after']));
        assert.ok(!(again instanceof Promise));
        assert.deepEqual(getNow(adapter, 'SELECT count(*) AS n FROM notes', []), { n: 2 });
      }));

    it('never commits the work of a request cancelled while it ran', () =>
      withNotes(backend, async (adapter) => {
        const cancel = new RequestCancel();
        assert.throws(
          () =>
            transactionNow(
              adapter,
              (tx) => {
                rawNow(tx, 'INSERT INTO notes (body) VALUES (?)', ['cancelled']);
                cancel.abort('client-closed');
              },
              { signal: cancel },
            ),
          (error) => error instanceof AbortedError,
        );
        assert.deepEqual(getNow(adapter, 'SELECT count(*) AS n FROM notes', []), { n: 1 });
      }));

    it("answers with a promise while another request's transaction holds the writer, and runs once it committed", () =>
      withNotes(backend, async (adapter) => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        const held = adapter.transaction(async (tx) => {
          await tx.run('INSERT INTO notes (body) VALUES (?)', ['first holder']);
          await gate;
        });
        const waiting = transactionNow(adapter, (tx) => getNow(tx, 'SELECT count(*) AS n FROM notes', []));
        assert.ok(waiting instanceof Promise);
        release();
        await held;
        assert.deepEqual(await waiting, { n: 2 });
      }));

    it('waits for work that answers with a promise, then commits', () =>
      withNotes(backend, async (adapter) => {
        const made = transactionNow(adapter, async (tx) => {
          await tx.run('INSERT INTO notes (body) VALUES (?)', ['later']);
          return 'done';
        });
        assert.ok(made instanceof Promise);
        assert.equal(await made, 'done');
        assert.deepEqual(getNow(adapter, 'SELECT count(*) AS n FROM notes', []), { n: 2 });
      }));

    it('goes through a wrapped executor’s own get and all, with a promise', () =>
      withNotes(backend, async (adapter) => {
        const count = { n: 0 };
        const wrapped = counting(adapter, count);
        await readsWithPromises(wrapped, 'SELECT body FROM notes WHERE id = ?');
        assert.equal(count.n, 2);
      }));
  });
}

describe('answered with a promise on postgres', { skip: postgres.skip }, () => {
  it('runs transactionNow and rawNow through the public transaction and raw', () =>
    withNotes(postgres, async (adapter) => {
      const made = transactionNow(adapter, (tx) => then(rawNow(tx, 'INSERT INTO notes (id, body) VALUES ($1, $2)', [2, 'pg']), () => 'done'));
      assert.ok(made instanceof Promise);
      assert.equal(await made, 'done');
      assert.deepEqual(await adapter.get('SELECT body FROM notes WHERE id = $1', [2]), { body: 'pg' });
    }));

  it('reads through the public get and all', () =>
    withNotes(postgres, async (adapter) => {
      await readsWithPromises(adapter, 'SELECT body FROM notes WHERE id = $1');
      assert.deepEqual(await readOneNow(adapter, 'SELECT body FROM notes WHERE id = $1', [1], undefined, one), { row: { body: 'first' } });
      assert.deepEqual(await readAllNow(adapter, 'SELECT body FROM notes', [], undefined, many), { rows: [{ body: 'first' }] });
    }));
});

/** getNow and allNow on an executor that cannot answer now: promises of the same rows as get and all. */
async function readsWithPromises(db: Executor, byIdSql: string): Promise<void> {
  const row = getNow(db, byIdSql, [1]);
  assert.ok(row instanceof Promise);
  assert.deepEqual(await row, { body: 'first' });
  const rows = allNow(db, 'SELECT body FROM notes ORDER BY id', []);
  assert.ok(rows instanceof Promise);
  assert.deepEqual(await rows, [{ body: 'first' }]);
}
