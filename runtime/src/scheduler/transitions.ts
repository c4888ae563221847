/**
 * Scheduled field transitions (spec "Record lifecycle"): a nullable
 * timestamp field declared `scheduled;soft-delete`, `scheduled;hard-delete`
 * or `scheduled;field=NAME;[from=OLD;]to=NEW` names the moment its record is
 * soft-deleted, removed, or has a field set. This module knows, per model,
 * which fields are scheduled, how to read and lock a batch of due rows and
 * how to apply one transition to one locked row through the write observers
 * (history with a null actor, file cleanup, rollups, ...); `runner.ts`
 * sweeps with it.
 */
import type { Executor } from '../db/adapter.js';
import type { CascadeObserver } from '../store/referential.js';
import type { FieldManifest, JsonValue } from '../manifest/types.js';
import { cascadeNotifier } from '../pipeline/record-writes.js';
import { notify, type WriteCaller, type WriteObservers } from '../pipeline/write-observers.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import { notDeleted } from '../sql/templates.js';
import { encodeValue, type RecordData } from '../store/codec.js';
import type { ModelStore } from '../store/model-store.js';

export type ScheduledAction = NonNullable<FieldManifest['scheduled']>;

/** One scheduled field of a model, with what it does once due. */
export interface Transition {
  model: ModelMeta;
  /** The nullable timestamp field that names the moment. */
  field: FieldManifest;
  action: ScheduledAction;
  /** The field a set-field transition writes; null for the deletes. */
  target: FieldManifest | null;
}

/** What applying a due transition to one row did. */
export type Applied =
  | { kind: 'deleted'; hard: boolean }
  | { kind: 'set'; field: string; value: JsonValue }
  /** The row was no longer due under its lock (a concurrent edit cleared or moved the time, or the guard's field changed). */
  | { kind: 'skipped' };

/**
 * The scheduled fields of every model, in declaration order (a sweep handles
 * them in that order, so a row whose first transition makes the next one
 * apply moves through both in one sweep).
 *
 * @example
 * transitionsOf(app.registry.all()) // [{ model: Post, field: publishAt, action: { action: 'set-field', ... } }, ...]
 */
export function transitionsOf(models: readonly ModelMeta[]): Transition[] {
  return models.flatMap((model) =>
    model.fields
      .filter((field) => field.scheduled)
      .map((field): Transition => {
        const action = field.scheduled!;
        const target = action.action === 'set-field' ? (model.field(action.field) ?? null) : null;
        if (action.action === 'set-field' && !target) throw new Error(`mfx: ${model.name}.${field.name} is scheduled to set ${action.field}, which is not a field; rebuild the manifest with mfx build`);
        return { model, field, action, target };
      }),
  );
}

/** Types whose guard value the due-row statement compares in SQL; the others are compared only under the lock. */
const SQL_COMPARABLE = new Set(['string', 'number', 'integer', 'bigint', 'boolean', 'timestamp']);

/**
 * Up to `limit` rows due at `now` (ISO text), whole and decoded, oldest time
 * first, leaving out `skip` (rows that failed in this sweep), locked for the
 * batch's transaction in the same statement: `FOR UPDATE SKIP LOCKED` on
 * PostgreSQL, where the conditions are checked again on the newest version
 * of each row it locks (an edit committed meanwhile wins) and rows another
 * transaction holds are left to the next sweep; SQLite's write transaction
 * holds the whole database. Live rows only, but for a hard delete, which
 * also removes rows soft-deleted earlier. A guarded set-field looks only at
 * rows whose field holds `from`.
 *
 * @example
 * const rows = await dueRows(tx, store, transition, new Date().toISOString(), 500, new Set());
 */
export async function dueRows(tx: Executor, store: ModelStore, transition: Transition, now: string, limit: number, skip: ReadonlySet<string>): Promise<RecordData[]> {
  const { model, field, action, target } = transition;
  const dialect = store.dialect;
  const sql = new SqlBuilder(dialect).text(`SELECT ${store.columnList} FROM `).id(model.table).text(' WHERE ').id(field.column).text(' IS NOT NULL AND ');
  sql.id(field.column).text(' <= ').value(encodeValue(field, now));
  const live = notDeleted(model.manifest, dialect);
  if (live && action.action !== 'hard-delete') sql.text(` AND ${live}`);
  if (action.action === 'set-field' && action.from !== undefined && target && SQL_COMPARABLE.has(target.type) && !target.encrypted) {
    if (action.from === null) sql.text(' AND ').id(target.column).text(' IS NULL');
    else sql.text(' AND ').id(target.column).text(' = ').value(encodeValue(target, action.from));
  }
  if (skip.size > 0) {
    sql.text(' AND NOT (');
    dialect.inTextValues(sql, dialect.quote('id'), [...skip]);
    sql.text(')');
  }
  sql.text(' ORDER BY ').id(field.column).text(', ').id('id').text(' LIMIT ').value(limit).text(dialect.lockRowsSkipLockedClause);
  const rows = await tx.all(sql.sql, sql.params);
  return rows.map((row) => store.decode(row));
}

/**
 * Applies a transition to one row of the batch, as `dueRows` read and locked
 * it (null: it is gone), inside the batch's transaction. The row is checked
 * once more (the time set and past, the guarded field holding `from`, which
 * the statement cannot compare for every type), so an edit that committed
 * first wins and leaves the row untouched. Then the write goes through the
 * store with the model's write observers, as a request's would: a soft
 * delete marks the row (the time stays), a hard delete removes it
 * (soft-deleted or not) with its onDelete actions, a set-field writes the
 * value and clears the time in the same write. The ids of rows of the same
 * model a delete's cascade changed are added to `touched`, so the batch
 * reads them again before their own turn.
 *
 * @example
 * const applied = await applyTransition(tx, store, observers, transition, row, Date.now(), caller, touched);
 */
export async function applyTransition(
  tx: Executor,
  store: ModelStore,
  observers: WriteObservers,
  transition: Transition,
  before: RecordData | null,
  nowMs: number,
  caller: WriteCaller,
  touched: Set<string>,
): Promise<Applied> {
  const { model, field, action, target } = transition;
  const hard = action.action === 'hard-delete';
  if (!before || !isDue(before[field.name], nowMs)) return { kind: 'skipped' };
  const id = String(before.id);
  if (action.action === 'set-field') {
    if (action.from !== undefined && !sameValue(target!, before[target!.name], action.from)) return { kind: 'skipped' };
    const values: RecordData = { [target!.name]: action.to, [field.name]: null };
    const after = await store.update(tx, id, values);
    if (!after) return { kind: 'skipped' };
    const plan = observers.plan(model, 'update');
    if (plan.observers.length > 0) await notify(tx, plan, { model, op: 'update', id, before, after, cascade: null, caller });
    return { kind: 'set', field: target!.name, value: action.to };
  }
  const notifier = observers.cascadesObserved(model) ? cascadeNotifier(observers, caller) : null;
  const observe: CascadeObserver = async (change) => {
    if (change.model.name === model.name) touched.add(String(change.before.id));
    await notifier?.(change);
  };
  const removed = await store.remove(tx, id, { hard, observe });
  if (!removed) return { kind: 'skipped' };
  const plan = observers.plan(model, 'delete');
  if (plan.observers.length > 0) await notify(tx, plan, { model, op: 'delete', id, before, after: null, cascade: null, caller });
  return { kind: 'deleted', hard };
}

function isDue(value: unknown, nowMs: number): boolean {
  if (value === null || value === undefined) return false;
  const at = Date.parse(String(value));
  return !Number.isNaN(at) && at <= nowMs;
}

/** Whether the guarded field holds `from`: timestamps as instants, other values as JSON. */
function sameValue(field: FieldManifest, value: unknown, from: JsonValue): boolean {
  if (value === null || value === undefined || from === null) return (value ?? null) === from;
  if (field.type === 'timestamp') return Date.parse(String(value)) === Date.parse(String(from));
  return JSON.stringify(value) === JSON.stringify(from);
}
