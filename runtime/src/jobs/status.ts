/**
 * The job status record (spec "Job status record" and "Job status", DESIGN
 * decisions table): the JobStatus model `app.jobs` registers (table
 * `job_statuses`, served read-only) and the sink that writes its rows, at
 * enqueue (in the enqueue's transaction, so clients can poll at once) and on
 * every transition.
 */
import type { Executor } from '../db/adapter.js';
import type { CompiledValidator, LoadedManifest } from '../manifest/load.js';
import { validatorExportName } from '../manifest/types.js';
import { constraintName, tableIndexes } from '../sql/schema.js';
import type { SqlDialect } from '../sql/dialect.js';
import { jobStatusManifest } from './job-status.manifest.js';
import { DuplicateJobError, type QueuedJob } from './types.js';
import { isoNow } from '../util/iso-time.js';

export const JOB_STATUS_MODEL = 'JobStatus';
export const JOB_STATUS_TABLE = 'job_statuses';

export type JobState = 'enqueued' | 'running' | 'succeeded' | 'failed' | 'dead' | 'cancelled';

/** A transition as the sink writes it (and `onTransition` reports it). */
export interface JobTransition {
  id: string;
  type: string;
  status: JobState;
  actorId: string | null;
  tenantId: string | null;
  attempts: number;
  resultUrl?: string | null;
  output?: unknown;
  /** The last error: between retries (`failed`) and the final one (`dead`); never served. */
  error?: string | null;
  startedAt?: Date | null;
  completedAt?: Date | null;
}

/** The JobStatus model as a loaded manifest: its writes are not mounted, so its validators are never asked. */
export function jobStatusModel(): LoadedManifest {
  const unused: CompiledValidator = Object.assign(() => false, { errors: null });
  return {
    manifest: jobStatusManifest,
    validators: { [validatorExportName(JOB_STATUS_MODEL, 'create')]: unused, [validatorExportName(JOB_STATUS_MODEL, 'update')]: unused },
    dir: 'the job status model (app.jobs)',
    warnings: [],
  };
}

/** The transition of a job as it stands in the queue. */
export function transitionOf(job: QueuedJob, status: JobState, more: Partial<JobTransition> = {}): JobTransition {
  return { id: job.id, type: job.type, status, actorId: job.actorId, tenantId: job.tenantId, attempts: job.attempts, ...more };
}

/** The row of a new job: an upsert that starts a finished job's row afresh and leaves one still queued alone (its id is then refused). */
const ENQUEUED_SQL =
  `INSERT INTO ${JOB_STATUS_TABLE} (id, type, status, actor_id, tenant_id, attempts, result_url, output, error, started_at, completed_at, created_at, updated_at) ` +
  `VALUES (?, ?, 'enqueued', ?, ?, 0, NULL, NULL, NULL, NULL, NULL, ?, ?) ` +
  `ON CONFLICT (id) DO UPDATE SET type = excluded.type, status = 'enqueued', actor_id = excluded.actor_id, tenant_id = excluded.tenant_id, attempts = 0, ` +
  `result_url = NULL, output = NULL, error = NULL, started_at = NULL, completed_at = NULL, created_at = excluded.created_at, updated_at = excluded.updated_at ` +
  `WHERE ${JOB_STATUS_TABLE}.status IN ('succeeded', 'dead', 'cancelled') RETURNING id`;

/** The states a job never leaves: only their rows are pruned (retention.ts). */
export const TERMINAL_STATES: readonly JobState[] = ['succeeded', 'dead', 'cancelled'];
const TERMINAL = TERMINAL_STATES.map((state) => `'${state}'`).join(', ');

/**
 * The index the prune walks in `completed_at` order: partial, over the rows that have a
 * `completed_at` (finished jobs), so the enqueue's insert (completed_at NULL) adds no entry to
 * its commit; a row enters it when its job finishes (in the worker, not in the request) and
 * leaves it when enqueued again under its id. Declared by the runtime (`app.jobs` with status
 * rows) rather than by the model: the `index` directives declare full indexes only, and a full
 * one would be an entry in every enqueue's commit (docs/decisions.md, "The job status prune's index").
 */
export const JOB_STATUS_INDEXES = tableIndexes(JOB_STATUS_TABLE, [
  { name: constraintName('ix', JOB_STATUS_TABLE, 'completed'), columns: ['completed_at'], unique: false, whereNotNull: 'completed_at' },
]);

/**
 * At most `?` rows of finished jobs completed before `?`, oldest first, found along the
 * completed index (JOB_STATUS_INDEXES; `completed_at < ?` implies the index's `IS NOT NULL`),
 * then deleted by their ids. The outer WHERE repeats the condition: on PostgreSQL a row enqueued
 * again under its id (ENQUEUED_SQL) meanwhile is re-checked as it now stands and kept.
 *
 * The status is kept off its index (`dialect.unindexed`, `+status` on SQLite): SQLite plans
 * without statistics, and three equalities on `status` look more selective to it than a range
 * of `completed_at`, so it would read every finished row through the status index and sort them
 * (the inner SELECT), and test every finished row against the batch's ids instead of looking the
 * ids up by key (the outer DELETE). PostgreSQL plans by its statistics, where finished rows are
 * most of the table.
 *
 * @example
 * await db.raw(pruneSql(db.dialect), [cutoff, 500, cutoff]);
 */
export function pruneSql(dialect: SqlDialect): string {
  let sql = pruneStatements.get(dialect.name);
  if (sql === undefined) {
    const status = dialect.unindexed('status');
    sql =
      `DELETE FROM ${JOB_STATUS_TABLE} WHERE id IN (SELECT id FROM ${JOB_STATUS_TABLE} WHERE ${status} IN (${TERMINAL}) AND completed_at < ? ORDER BY completed_at LIMIT ?) ` +
      `AND ${status} IN (${TERMINAL}) AND completed_at < ? RETURNING id`;
    pruneStatements.set(dialect.name, sql);
  }
  return sql;
}

// The prune's statement per dialect, built on first use.
const pruneStatements = new Map<string, string>();

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/**
 * Writes job_statuses rows. An upsert: a caller-supplied id enqueued again
 * after its job finished starts its row afresh. Columns not named by a
 * transition keep their value (`started_at` through the retries, say).
 */
export class StatusSink {
  /** @param db the app's database, asked at each write (app.jobs may come before setDB) */
  constructor(private readonly db: () => Executor) {}

  /** The row of a new job, through `tx` when the enqueue joins a transaction. */
  async enqueued(job: QueuedJob, tx?: Executor): Promise<void> {
    const now = isoNow();
    const written = await (tx ?? this.db()).raw(
      ENQUEUED_SQL,
      [job.id, job.type, job.actorId, job.tenantId, now, now],
    );
    if (written.length === 0) throw new DuplicateJobError(job.id);
  }

  /** Removes the row of a job whose enqueue failed outside a transaction. */
  async forget(id: string): Promise<void> {
    await this.db().raw(`DELETE FROM ${JOB_STATUS_TABLE} WHERE id = ? AND status = 'enqueued'`, [id]);
  }

  /** Deletes at most `limit` rows of jobs that finished before `before`; resolves with how many went. */
  async prune(before: Date, limit: number): Promise<number> {
    const cutoff = before.toISOString();
    const db = this.db();
    return (await db.raw(pruneSql(db.dialect), [cutoff, limit, cutoff])).length;
  }

  /** What a transition needs of a job's row (cancelling knows only the id). */
  async read(id: string): Promise<Omit<JobTransition, 'status'> | null> {
    const row = (await this.db().raw(`SELECT id, type, actor_id, tenant_id, attempts FROM ${JOB_STATUS_TABLE} WHERE id = ?`, [id]))[0];
    if (!row) return null;
    return { id, type: String(row.type), actorId: (row.actor_id as string | null) ?? null, tenantId: (row.tenant_id as string | null) ?? null, attempts: Number(row.attempts) };
  }

  async write(t: JobTransition): Promise<void> {
    const sets = ['status = ?', 'attempts = ?', 'updated_at = ?'];
    const values: unknown[] = [t.status, t.attempts, isoNow()];
    const set = (column: string, value: unknown) => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (t.resultUrl !== undefined) set('result_url', t.resultUrl);
    if (t.output !== undefined) set('output', t.output === null ? null : JSON.stringify(t.output));
    if (t.error !== undefined) set('error', t.error);
    if (t.startedAt !== undefined) set('started_at', iso(t.startedAt));
    if (t.completedAt !== undefined) set('completed_at', iso(t.completedAt));
    await this.db().raw(`UPDATE ${JOB_STATUS_TABLE} SET ${sets.join(', ')} WHERE id = ?`, [...values, t.id]);
  }
}
