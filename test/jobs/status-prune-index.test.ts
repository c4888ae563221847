// The job status prune's index (issue 22): job_statuses gets a partial index on completed_at (the
// rows that have one: finished jobs), which the runtime declares beside the JobStatus model (the
// directives declare full indexes only). The prune walks it in completed_at order, without a sort,
// on both databases; an enqueue's status row (completed_at NULL) adds no entry to it; a table made
// before it gets it from the next migration.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type App, memoryQueue } from '@mfx/runtime';
import { JOB_STATUS_INDEXES, pruneSql } from '../../runtime/src/jobs/status.js';
import { indexDefinition, queryPlan } from '../support/query-plan.js';
import { eachBackend, useServer } from '../support/suite.js';

const COMPLETED = 'ix_job_statuses_completed';

eachBackend('job status prune index', (backend) => {
  let app!: App;
  const server = useServer(backend, {
    setup: (a) => {
      app = a;
      // No handler: the jobs enqueued stay enqueued. The retention is the test's to run.
      a.jobs({ queue: memoryQueue(), handlers: {}, statusRetention: false });
    },
  });

  it('is declared partial, on completed_at, and the migration creates it with the table', async () => {
    assert.deepEqual(JOB_STATUS_INDEXES.indexes.map((i) => i.name), [COMPLETED]);
    const definition = await indexDefinition(app.db, COMPLETED);
    assert.ok(definition, `${COMPLETED} exists`);
    assert.match(definition, /\(\s*"?completed_at"?\s*\)\s+WHERE\s+\(?"?completed_at"?\s+IS NOT NULL\)?$/i, definition);
  });

  it('is created on a job_statuses made before it, once', async () => {
    await app.db.exec(`DROP INDEX ${app.db.dialect.quote(COMPLETED)}`);
    assert.equal(await indexDefinition(app.db, COMPLETED), null);
    const report = await app.migrate();
    assert.deepEqual(report.statements, [app.db.dialect.createIndex('job_statuses', JOB_STATUS_INDEXES.indexes[0]!)]);
    assert.ok(await indexDefinition(app.db, COMPLETED));
    assert.deepEqual((await app.migrate()).statements, []);
  });

  it('plans the prune along it in completed_at order, without a sort, on both databases', async () => {
    // A table the size where it matters: 30 days of finished jobs, one every 90 s, and one in ten still queued or
    // running (no completed_at). Inserted 250 rows a statement.
    const start = Date.now() - 30 * 86_400_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const rows = Array.from({ length: 30_000 }, (_, i) => {
      const at = start + i * 90_000;
      const finished = i % 10 !== 0;
      const status = finished ? ['succeeded', 'succeeded', 'dead', 'cancelled'][i % 4]! : ['enqueued', 'running'][(i / 10) % 2]!;
      return [`plan-${i}`, 'work', status, iso(at), finished ? iso(at + 1000) : null, iso(at), iso(at)];
    });
    await app.db.transaction(async (tx) => {
      for (let i = 0; i < rows.length; i += 250) {
        const chunk = rows.slice(i, i + 250);
        await tx.raw(
          `INSERT INTO job_statuses (id, type, status, started_at, completed_at, created_at, updated_at) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          chunk.flat(),
        );
      }
    });
    if (backend.name === 'postgres') await app.db.exec('ANALYZE job_statuses');
    const cutoff = iso(Date.now() - 7 * 86_400_000);
    const plan = await queryPlan(app.db, pruneSql(app.db.dialect), [cutoff, 500, cutoff], { enable_seqscan: 'off' });
    assert.match(plan, new RegExp(`\\b${COMPLETED}\\b`), plan);
    if (backend.name === 'sqlite') {
      // The batch along the completed index, then each of its rows by key (not every finished row through the status index).
      assert.deepEqual(plan.split('\n'), [
        'SEARCH job_statuses USING INDEX sqlite_autoindex_job_statuses_1 (id=?)',
        'LIST SUBQUERY 1',
        `SEARCH job_statuses USING INDEX ${COMPLETED} (completed_at<?)`,
      ]);
    } else {
      assert.doesNotMatch(plan, /\bSort\b/, plan);
      assert.doesNotMatch(plan, /idx_job_statuses_status/, plan);
    }
  });

  it("an enqueue's status row has no completed_at, so it has no entry in the index", async () => {
    const id = await app.enqueue({ type: 'work' });
    const [row] = await app.db.raw('SELECT status, completed_at FROM job_statuses WHERE id = ?', [id]);
    assert.deepEqual([row?.status, row?.completed_at], ['enqueued', null]);
  });
});
