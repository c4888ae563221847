import { randomUUID } from 'node:crypto';
import type { Executor, QueryOptions } from '../db/adapter.js';
import { mapDbError } from '../db/errors.js';
import type { FieldManifest } from '../manifest/types.js';
import type { WriteCaller, WriteObserver } from '../pipeline/write-observers.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import type { SqlDialect } from '../sql/dialect.js';
import { historyTableName } from '../sql/schema.js';
import type { RecordData } from './codec.js';
import { type Diff, diffOf, snapshotOf, type WriteOp } from './diff.js';
import { isoNow } from '../util/iso-time.js';

export type HistoryOperation = WriteOp;

/** Who wrote, for the actor_id and request_id columns; a pipeline Context satisfies it. Without `afterCommit` a failure is only logged as failed. */
export type HistoryCaller = Pick<WriteCaller, 'identity' | 'requestId' | 'log' | 'cancel'> & Partial<Pick<WriteCaller, 'afterCommit'>>;

/** A history row as the history route returns it. */
export interface HistoryEntry {
  id: string;
  record_id: string;
  version: number;
  operation: HistoryOperation;
  actor_id: string | null;
  timestamp: string;
  request_id: string | null;
  diff: Diff;
  snapshot?: RecordData;
}

/** Concurrent writers of one record collide on (record_id, version); this many attempts, then the error stands. */
const MAX_ATTEMPTS = 5;

/**
 * Writes and reads the `<model>_history` rows of one versioned model. Built
 * once per model; `record` is the per-row entry point that the DB step, and
 * the referential actions of a delete, call with the row before and after.
 */
export class HistoryWriter {
  readonly table: string;
  /** The recorded fields: never hidden, writeonly or encrypted (HMAC companions are not fields). */
  private readonly fields: readonly FieldManifest[];
  private readonly diffOnly: boolean;
  readonly required: boolean;
  private readonly nextVersion: string;
  private readonly insert: string;
  private readonly savepoints: boolean;

  constructor(
    readonly model: ModelMeta,
    readonly dialect: SqlDialect,
  ) {
    if (!model.options.versioned) throw new Error(`mfx: ${model.name} is not versioned; it has no history`);
    this.table = historyTableName(model);
    this.fields = model.fieldsWith('recorded');
    this.diffOnly = model.options.versioned.diffOnly;
    this.required = model.options.versioned.required;
    this.savepoints = dialect.failedStatementAbortsTransaction;
    const q = dialect.quote;
    this.nextVersion = new SqlBuilder(dialect)
      .text(`SELECT COALESCE(MAX(${q('version')}), 0) + 1 AS next FROM `)
      .id(this.table)
      .text(' WHERE ')
      .id('record_id')
      .text(' = ')
      .value(null).sql;
    const columns = ['id', 'record_id', 'version', 'operation', 'actor_id', 'timestamp', 'request_id', 'diff', 'snapshot'];
    this.insert = `INSERT INTO ${q(this.table)} (${columns.map(q).join(', ')}) VALUES (${columns.map((_, i) => dialect.param(i + 1)).join(', ')})`;
  }

  /** The diff of one write by the spec's rules (store/diff.ts): the id is left out, the snapshot keeps it. */
  diff(operation: HistoryOperation, before: RecordData | null, after: RecordData | null): Diff {
    return diffOf(this.fields, operation, before, after);
  }

  /** The full row without hidden, writeonly and encrypted fields: the state after the write (before it, for a delete). */
  snapshot(row: RecordData): RecordData {
    return snapshotOf(this.fields, row);
  }

  /**
   * Appends one history row for a write, through `db` (the write's own
   * transaction). A cancelled statement (the request's deadline, its client
   * leaving, a statement timeout) is thrown, so the whole write rolls back: a
   * write never commits without the history it was cancelled in. Any other
   * failure is logged and swallowed, and the write stands without its
   * history row (said in the log once it committed), unless the model is
   * `versioned_required`: then it is thrown and the write rolls back.
   *
   * @example
   * // from a cascade: a child row set-null'ed inside the parent's delete transaction
   * await history.record(tx, 'update', before, after, ctx);
   */
  async record(db: Executor, operation: HistoryOperation, before: RecordData | null, after: RecordData | null, caller: HistoryCaller): Promise<void> {
    try {
      await this.append(db, operation, before, after, caller);
    } catch (error) {
      const mapped = mapDbError(error, this.dialect);
      const fields = { requestId: caller.requestId, model: this.model.name, operation, table: this.table, err: String((error as Error)?.message ?? error) };
      if (mapped.code === 'TIMEOUT' || caller.cancel?.aborted) {
        caller.log.warn(fields, 'history write cancelled; the write is rolled back');
        throw mapped;
      }
      if (this.required) {
        caller.log.error(fields, 'history write failed; the write is rolled back (versioned_required)');
        throw mapped;
      }
      caller.log.error(fields, 'history write failed');
      caller.afterCommit?.(() => caller.log.error(fields, 'history write failed; the write stands'));
    }
  }

  private async append(db: Executor, operation: HistoryOperation, before: RecordData | null, after: RecordData | null, caller: HistoryCaller): Promise<void> {
    const row = after ?? before;
    const recordId = String(row?.id ?? '');
    if (!recordId) throw new Error(`mfx: a ${operation} history row of ${this.model.name} needs the record's id`);
    const diff = JSON.stringify(this.diff(operation, before, after));
    const snapshot = this.diffOnly || !row ? null : JSON.stringify(this.snapshot(row));
    const options = { signal: caller.cancel };
    // A savepoint keeps the transaction usable on PostgreSQL when an attempt fails.
    const savepoint = this.savepoints && db.inTransaction;
    for (let attempt = 1; ; attempt++) {
      if (savepoint) await db.run('SAVEPOINT mfx_history', [], options);
      try {
        const next = await db.get(this.nextVersion, [recordId], options);
        await db.run(
          this.insert,
          [randomUUID(), recordId, Number(next?.next ?? 1), operation, caller.identity?.userId ?? null, isoNow(), caller.requestId, diff, snapshot],
          options,
        );
        if (savepoint) await db.run('RELEASE SAVEPOINT mfx_history', [], options);
        return;
      } catch (error) {
        if (savepoint) await db.run('ROLLBACK TO SAVEPOINT mfx_history', [], options).catch(() => {});
        // Another writer took this version between our read and insert: read the next one again.
        if (attempt < MAX_ATTEMPTS && mapDbError(error, this.dialect).code === 'CONFLICT') continue;
        throw error;
      }
    }
  }

  /** One page of a record's history, newest first, and the total. */
  async page(db: Executor, recordId: string, page: number, limit: number, options: QueryOptions = {}): Promise<{ entries: HistoryEntry[]; total: number }> {
    const select = new SqlBuilder(this.dialect).text('SELECT * FROM ').id(this.table).text(' WHERE ').id('record_id').text(' = ').value(recordId);
    select.text(' ORDER BY ').id('version').text(' DESC LIMIT ').value(limit).text(' OFFSET ').value((page - 1) * limit);
    const count = new SqlBuilder(this.dialect).text('SELECT COUNT(*) AS n FROM ').id(this.table).text(' WHERE ').id('record_id').text(' = ').value(recordId);
    const rows = await db.all(select.sql, select.params, options);
    const total = await db.get(count.sql, count.params, options);
    return { entries: rows.map(decodeEntry), total: Number(total?.n ?? 0) };
  }
}

function parseJson(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

function decodeEntry(row: Record<string, unknown>): HistoryEntry {
  const entry: HistoryEntry = {
    id: String(row.id),
    record_id: String(row.record_id),
    version: Number(row.version),
    operation: row.operation as HistoryOperation,
    actor_id: (row.actor_id as string | null) ?? null,
    timestamp: row.timestamp instanceof Date ? row.timestamp.toISOString() : String(row.timestamp),
    request_id: (row.request_id as string | null) ?? null,
    diff: parseJson(row.diff) as HistoryEntry['diff'],
  };
  // diff_only models store no snapshot; the key is left out rather than sent as null.
  if (row.snapshot !== null && row.snapshot !== undefined) entry.snapshot = parseJson(row.snapshot) as RecordData;
  return entry;
}

const writers = new WeakMap<ModelMeta, Map<string, HistoryWriter>>();

/**
 * The history writer of a versioned model (built once per model and
 * dialect), or null for a model without history.
 *
 * @example
 * await historyOf(model, tx.dialect)?.record(tx, 'delete', before, null, ctx);
 */
export function historyOf(model: ModelMeta, dialect: SqlDialect): HistoryWriter | null {
  if (!model.options.versioned) return null;
  let byDialect = writers.get(model);
  if (!byDialect) writers.set(model, (byDialect = new Map()));
  let writer = byDialect.get(dialect.name);
  if (!writer) byDialect.set(dialect.name, (writer = new HistoryWriter(model, dialect)));
  return writer;
}

/**
 * The write observer that keeps `<model>_history`: registered by the app for
 * every versioned model. It reads the locked row before updates and deletes
 * and writes in the write's own transaction, so a rolled-back write leaves no
 * history row and versions never interleave.
 */
export const historyObserver: WriteObserver = {
  name: 'history',
  needsBefore: true,
  needsTransaction: true,
  needsLock: true,
  observe: (tx, change) => historyOf(change.model, tx.dialect)?.record(tx, change.op, change.before, change.after, change.caller),
};
