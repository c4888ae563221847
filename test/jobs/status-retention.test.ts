// Retention of job_statuses rows (docs/decisions.md, "Background jobs: the gaps closed"), end to end on both
// databases: a finished job's row older than statusRetention is pruned by the worker's replica in bounded
// batches and then reads 404 over HTTP; rows of jobs not finished are kept whatever their age, and so are
// recent finished rows. The pruning pass is waited for through its log line, never a timer.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type App, createServer, type JobTransition, silentLogger, sqlQueue } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';
import { Recorder } from '../support/wait.js';

eachBackend('job status retention', (backend) => {
  const transitions = new Recorder<JobTransition>();
  let app: App;
  const server = useServer(backend, {
    setup: (a) => void (app = a),
    prepare: async (adapter) => {
      app.jobs({
        queue: sqlQueue(adapter),
        handlers: { work: async () => ({ output: { ok: true } }) },
        concurrency: 1,
        pollMs: 10,
        statusRetention: '1h',
        statusPruneInterval: '20ms',
        statusPruneBatch: 2,
        onTransition: (t) => transitions.push(t),
      });
    },
  });

  it('prunes finished rows past the retention in batches of statusPruneBatch, never a queued, running or failed row, nor a recent one', async () => {
    const id = await app.enqueue({ type: 'work', id: 'real-job' });
    await transitions.next((t) => t.id === id && t.status === 'succeeded');
    assert.equal((await server.request('GET', `/job_statuses/${id}`)).body.data.status, 'succeeded');

    const old = new Date(Date.now() - 2 * 3600_000).toISOString();
    const recent = new Date(Date.now() - 60_000).toISOString();
    const rows: Array<[string, string, string | null]> = [
      ['old-succeeded', 'succeeded', old],
      ['old-dead', 'dead', old],
      ['old-cancelled-1', 'cancelled', old],
      ['old-cancelled-2', 'cancelled', old],
      ['old-succeeded-2', 'succeeded', old],
      // Not finished: kept whatever their age (even with a completed_at left from an earlier run).
      ['old-enqueued', 'enqueued', old],
      ['old-running', 'running', null],
      ['old-failed', 'failed', old],
      ['recent-succeeded', 'succeeded', recent],
    ];
    // One transaction: a pruning pass sees all of them or none.
    await app.db.transaction(async (tx) => {
      for (const [rowId, status, completedAt] of rows) {
        await tx.raw(
          'INSERT INTO job_statuses (id, type, status, actor_id, tenant_id, attempts, result_url, output, error, started_at, completed_at, created_at, updated_at) VALUES (?, ?, ?, NULL, NULL, 1, NULL, NULL, NULL, ?, ?, ?, ?)',
          [rowId, 'work', status, old, completedAt, old, old],
        );
      }
      await tx.raw('UPDATE job_statuses SET completed_at = ? WHERE id = ?', [old, id]);
    });

    const line = await server.logLine((l) => l.message === 'pruned the status rows of jobs finished before the retention');
    // Six rows in batches of two: three full batches, then a short (empty) one that ends the pass.
    assert.deepEqual([line.fields.pruned, line.fields.batches], [6, 4]);
    const gone = await server.request('GET', `/job_statuses/${id}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, 'NOT_FOUND');
    const left = await server.request('GET', '/job_statuses?sort=id&limit=50');
    assert.deepEqual(
      left.body.data.map((r: { id: string; status: string }) => `${r.id} ${r.status}`),
      ['old-enqueued enqueued', 'old-failed failed', 'old-running running', 'recent-succeeded succeeded'],
    );
  });

  it('refuses bad retention options at app.jobs()', () => {
    const bad = createServer({ logger: silentLogger });
    const jobs = (extra: object) => bad.jobs({ queue: sqlQueue(app.db), handlers: {}, ...extra });
    assert.throws(() => jobs({ statusRetention: '7 days' }), { name: 'ConfigError', message: 'mfx: app.jobs() statusRetention must be a duration such as "500ms", "5s" or "2m", got "7 days"' });
    assert.throws(() => jobs({ statusRetention: true }), { name: 'ConfigError', message: 'mfx: app.jobs() statusRetention must be a duration such as "168h", or false to keep every row' });
    assert.throws(() => jobs({ statusPruneBatch: 0 }), { name: 'ConfigError', message: 'mfx: app.jobs() statusPruneBatch must be a whole number of at least 1, got 0' });
    assert.throws(() => jobs({ statusPruneInterval: '0ms' }), { name: 'ConfigError', message: 'mfx: app.jobs() statusPruneInterval must be at least 1ms' });
  });
});
