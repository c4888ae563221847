import type { Executor } from '../db/adapter.js';
import { ApiError } from '../errors/api-error.js';
import { etagOf, type IfMatch, ifMatchAccepts, parseIfMatch } from '../http/etag.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { RecordData } from '../store/codec.js';
import { historyOf } from '../store/history.js';
import type { CascadeObserver } from '../store/referential.js';
import type { ModelStore } from '../store/model-store.js';
import type { Context } from './context.js';

/** The writes of the DB step: create, update and delete of one model. */
export interface RecordWrites {
  insert(ctx: Context, values: RecordData): Promise<RecordData>;
  /** Null when no live row in scope has that id. */
  update(ctx: Context, id: string, values: RecordData): Promise<RecordData | null>;
  /** False when no live row in scope has that id. */
  remove(ctx: Context, id: string): Promise<boolean>;
}

const storeOptions = (ctx: Context) => ({ signal: ctx.cancel, scope: ctx.scope });

/**
 * History of the rows a delete cascades to: a cascaded or marked child of a
 * versioned model gets a `delete` row, a set-null child an `update` row, in
 * the delete's transaction (the service performs these actions itself so
 * history sees them).
 */
function cascadeHistory(ctx: Context): CascadeObserver {
  return async (change) => {
    const history = historyOf(change.model, change.tx.dialect);
    if (!history) return;
    if (change.action === 'setNull') await history.record(change.tx, 'update', change.before, change.after, ctx);
    else await history.record(change.tx, 'delete', change.before, null, ctx);
  };
}

/** Whether deleting a row of `model` may cascade to or clear a versioned model's rows. */
function cascadesReachHistory(model: ModelMeta, seen = new Set<ModelMeta>()): boolean {
  if (seen.has(model)) return false;
  seen.add(model);
  return model.inbound.some(
    ({ child, relation }) =>
      (relation.onDelete === 'setNull' && child.options.versioned) || (relation.onDelete === 'cascade' && (child.options.versioned || cascadesReachHistory(child, seen))),
  );
}

/**
 * Runs `work` in the request's transaction, or in one of its own when none is
 * active: the optimistic-lock check, the write and its history row commit or
 * roll back together.
 */
function inTransaction<T>(ctx: Context, work: (tx: Executor) => Promise<T>): Promise<T> {
  if (ctx.tx) return work(ctx.tx);
  return ctx.adapter.transaction(work, { signal: ctx.cancel });
}

/**
 * The DB step's writes for one model, chosen once per model: the store's
 * plain statements, or, for `versioned` and `optimistic_lock` models, writes
 * that lock the row, check If-Match and append history in one transaction.
 *
 * @example
 * const writes = recordWrites(model, store, project);
 * ctx.result = await writes.update(ctx, ctx.params.id, body);
 */
export function recordWrites(model: ModelMeta, store: ModelStore, project: (record: RecordData) => RecordData): RecordWrites {
  // Decided once per model: only deletes that can reach a versioned model pay for the observer.
  const observed = cascadesReachHistory(model);
  const removeOptions = (ctx: Context) => (observed ? { ...storeOptions(ctx), observe: cascadeHistory(ctx) } : storeOptions(ctx));
  const plain: RecordWrites = {
    insert: (ctx, values) => store.insert(ctx.db, values, storeOptions(ctx)),
    update: (ctx, id, values) => store.update(ctx.db, id, values, storeOptions(ctx)),
    remove: (ctx, id) => store.remove(ctx.db, id, removeOptions(ctx)),
  };
  const history = historyOf(model, store.dialect);
  const locking = model.options.optimisticLock;
  if (!history && !locking) return plain;

  /** The If-Match of a locked model's request; null means no check. */
  const ifMatchOf = (ctx: Context): IfMatch | null => (locking ? parseIfMatch(ctx.req.headers['if-match']) : null);

  /** Reads and locks the live row; checks If-Match against the ETag a read of it would carry. */
  const lockedBefore = async (ctx: Context, tx: Executor, id: string, ifMatch: IfMatch | null): Promise<RecordData | null> => {
    const before = await store.findById(tx, id, { ...storeOptions(ctx), lock: true });
    if (before && ifMatch && !ifMatchAccepts(ifMatch, etagOf({ data: project(before) }))) {
      throw new ApiError('PRECONDITION_FAILED', `If-Match does not match the current ETag of ${model.name} "${id.slice(0, 100)}"; read the record again and retry with its ETag`);
    }
    return before;
  };

  return {
    insert: (ctx, values) => {
      if (!history) return plain.insert(ctx, values);
      return inTransaction(ctx, async (tx) => {
        const after = await store.insert(tx, values, storeOptions(ctx));
        await history.record(tx, 'create', null, after, ctx);
        return after;
      });
    },
    update: (ctx, id, values) => {
      const ifMatch = ifMatchOf(ctx);
      if (!history && !ifMatch) return plain.update(ctx, id, values);
      return inTransaction(ctx, async (tx) => {
        const before = await lockedBefore(ctx, tx, id, ifMatch);
        if (!before) return null;
        const writes = store.updateWrites(values, storeOptions(ctx));
        const after = await store.update(tx, id, values, storeOptions(ctx));
        // A PATCH without writable keys writes nothing, so it records nothing. (Not judged by
        // updated_at: two writes within one millisecond leave it unchanged.)
        if (history && after && writes) await history.record(tx, 'update', before, after, ctx);
        return after;
      });
    },
    remove: (ctx, id) => {
      const ifMatch = ifMatchOf(ctx);
      if (!history && !ifMatch) return plain.remove(ctx, id);
      return inTransaction(ctx, async (tx) => {
        const before = await lockedBefore(ctx, tx, id, ifMatch);
        if (!before) return false;
        const removed = await store.remove(tx, id, removeOptions(ctx));
        if (history && removed) await history.record(tx, 'delete', before, null, ctx);
        return removed;
      });
    },
  };
}
