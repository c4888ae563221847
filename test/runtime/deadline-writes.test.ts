// QueryTimeout and writes: a request that answers 504 never commits, and a write that
// committed is never hidden behind a 504; a cancelled history insert rolls its write back.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import pg from 'pg';
import { startServer } from '../support/server.js';
import { eachBackend, onlyOn, useServer } from '../support/suite.js';
import { type Gate, gate } from '../support/wait.js';

eachBackend('deadlines and writes', (backend) => {
  /** Held gates by request marker (the x-hold header): the hook opens `reached`, then waits until the test opens the gate. */
  const held = new Map<string, Gate & { reached: () => void }>();
  const hold = (marker: string) => {
    const g = gate();
    const r = gate();
    held.set(marker, { ...g, reached: r.open });
    return { open: g.open, reached: r.opened };
  };

  const server = useServer(backend, {
    fixture: 'lifecycle',
    // Long enough that a loaded machine still reaches the held point before the deadline,
    // so each test times out where it means to (inside the transaction, after the commit).
    config: { queryTimeout: 2_000 },
    setup(app) {
      // Holds a Note write inside its transaction, after its history row, until the test lets it go.
      app.observeWrites(
        {
          name: 'holder',
          needsTransaction: true,
          async observe(_tx, change) {
            const h = held.get(String(change.after?.title ?? ''));
            if (!h) return;
            h.reached();
            await h.opened;
          },
        },
        { models: ['Note'] },
      );
      // Holds an Order create after it committed, before its response.
      app.use(
        'response',
        async (ctx, next) => {
          const h = held.get(String(ctx.req.headers['x-hold'] ?? ''));
          if (h) {
            h.reached();
            await h.opened;
          }
          await next();
        },
        { models: ['Order'], ops: ['create'] },
      );
    },
  });

  const notes = async (title: string) => (await server.app.db.raw('SELECT id FROM notes WHERE title = ?', [title])).length;
  const history = async (title: string) =>
    (await server.app.db.raw(`SELECT h.id FROM note_history h WHERE h.snapshot LIKE ?`, [`%"title":"${title}"%`])).length;

  it('a deadline inside the write transaction answers 504 and the write rolls back, history and all', { timeout: 20_000 }, async () => {
    const { open, reached } = hold('held in tx');
    const answer = server.request('POST', '/notes', { body: { title: 'held in tx' } });
    await reached;
    const res = await answer;
    assert.equal(res.status, 504);
    assert.equal(res.body.error.code, 'TIMEOUT');
    open();
    // The request's access line is written once its transaction has ended, after the held observer returned.
    const id = res.headers.get('x-request-id');
    await server.logLine((l) => l.message === 'request' && l.fields.requestId === id);
    assert.equal(await notes('held in tx'), 0);
    assert.equal(await history('held in tx'), 0);
  });

  it('a write that committed before the deadline answers its outcome, never 504', { timeout: 20_000 }, async () => {
    const { open, reached } = hold('late');
    const answer = server.request('POST', '/orders', { body: { item: 'late order', quantity: 1 }, headers: { 'x-hold': 'late' } });
    await reached;
    await server.logLine((l) => l.message === 'deadline passed after a write committed; answering its outcome');
    open();
    const res = await answer;
    assert.equal(res.status, 201);
    assert.equal((await server.app.db.raw('SELECT id FROM orders WHERE item = ?', ['late order'])).length, 1);
  });

  it('under a tight deadline every answer matches the database: 201 with its row and history, 504 with neither', async () => {
    const titles = Array.from({ length: 120 }, (_, i) => `tight ${i}`);
    const answers: { title: string; status: number }[] = [];
    const tight = await startServer(backend, { fixture: 'lifecycle', config: { queryTimeout: 3 } });
    try {
      for (let i = 0; i < titles.length; i += 30) {
        const batch = titles.slice(i, i + 30);
        const results = await Promise.all(batch.map((title) => tight.request('POST', '/notes', { body: { title }, unchecked: true })));
        results.forEach((r, j) => answers.push({ title: batch[j], status: r.status }));
      }
      assert.ok(answers.every((a) => a.status === 201 || a.status === 504), `only 201 and 504: ${answers.map((a) => a.status)}`);
      for (const { title, status } of answers) {
        const rows = (await tight.app.db.raw('SELECT id FROM notes WHERE title = ?', [title])).length;
        const versions = (await tight.app.db.raw('SELECT h.id FROM note_history h WHERE h.snapshot LIKE ?', [`%"title":"${title}"%`])).length;
        assert.deepEqual([rows, versions], status === 201 ? [1, 1] : [0, 0], `${title} answered ${status}`);
      }
    } finally {
      await tight.close();
    }
  });

  it('a history insert cancelled by the deadline rolls its write back instead of committing without history', onlyOn(backend, 'postgres', 'holds the history table with a lock from a second connection, which only PostgreSQL can do mid-statement'), async () => {
    const url = (server.app.db as unknown as { options?: { writeUrl: string } }).options?.writeUrl;
    assert.ok(url, 'the PostgreSQL adapter keeps its options');
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE note_history IN EXCLUSIVE MODE');
      const res = await server.request('POST', '/notes', { body: { title: 'history blocked' } });
      assert.equal(res.status, 504);
      await locker.query('ROLLBACK');
      // The 504 goes out at the deadline; the cancelled insert's rollback (and its log line) follows it.
      await server.logLine((l) => l.message === 'history write cancelled; the write is rolled back');
      assert.equal(await notes('history blocked'), 0);
      assert.equal(await history('history blocked'), 0);
      assert.equal(server.logs.some((l) => l.message === 'history write failed; the write stands'), false);
    } finally {
      await locker.end();
    }
  });
});
