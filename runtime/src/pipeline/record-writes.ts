import type { Executor } from '../db/adapter.js';
import { ApiError } from '../errors/api-error.js';
import { type IfMatch, ifMatchAccepts, parseIfMatch } from '../http/etag.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { RecordData } from '../store/codec.js';
import type { ModelStore, StoreOptions } from '../store/model-store.js';
import type { CascadeObserver } from '../store/referential.js';
import type { Context } from './context.js';
import { type Maybe, then } from '../util/maybe.js';
import { notify, type ObserverPlan, refuseOutsideTransaction, type WriteCaller, type WriteObservers } from './write-observers.js';

/** The writes of the DB step: create, update and delete of one model. */
export interface RecordWrites {
  /** The created record; without a promise where nothing observes creates and the executor answers now (db/now.ts). */
  insert(ctx: Context, values: RecordData): Maybe<RecordData>;
  /** Null when no live row in scope has that id. */
  update(ctx: Context, id: string, values: RecordData): Promise<RecordData | null>;
  /** False when no live row in scope has that id. */
  remove(ctx: Context, id: string): Promise<boolean>;
}

const storeOptions = (ctx: Context): StoreOptions => ({ signal: ctx.cancel, scope: ctx.scopeIfAny });

/** What one kind of write must do before writing, decided per request from the plan and If-Match. */
interface Needs {
  before: boolean;
  lock: boolean;
  transaction: boolean;
}

/**
 * The DB step's writes for one model, planned once per model: which write
 * observers follow each kind of write (history, audit, ...) and what they
 * need. A write whose observers need nothing runs the store's plain
 * statement; otherwise the write path opens (or joins) the transaction, locks
 * the row and reads it once, checks If-Match on `optimistic_lock` models,
 * writes, and hands every observer the same change, for the row written and
 * for every row its delete cascaded to.
 *
 * @example
 * const writes = recordWrites(model, store, observers, (record) => etagOf({ data: project(record) }));
 * ctx.result = await writes.update(ctx, ctx.params.id, body);
 */
export function recordWrites(model: ModelMeta, store: ModelStore, observers: WriteObservers, etagOf: (record: RecordData) => string): RecordWrites {
  const creates = observers.plan(model, 'create');
  const updates = observers.plan(model, 'update');
  const deletes = observers.plan(model, 'delete');
  // Decided once per model: only deletes that can reach observed rows pay for the cascade observer.
  const cascades = observers.cascadesObserved(model);
  const locking = model.options.optimisticLock;

  /** The If-Match of a locked model's request; null means no check. */
  const ifMatchOf = (ctx: Context): IfMatch | null => (locking ? parseIfMatch(ctx.req.headers['if-match']) : null);

  const needsOf = (plan: ObserverPlan, ifMatch: IfMatch | null, extraTransaction = false): Needs => ({
    before: plan.needsBefore || ifMatch !== null,
    lock: plan.needsLock || ifMatch !== null,
    transaction: plan.needsTransaction || plan.needsLock || ifMatch !== null || extraTransaction,
  });

  /** Runs `work` where the write's needs say: the request's executor, or a transaction (the active one, or its own). */
  const run = <T>(ctx: Context, needs: Needs, work: (db: Executor) => Promise<T>): Promise<T> =>
    needs.transaction ? ctx.transaction(work) : work(ctx.db);

  /** `run` for work that may answer now: so does the write, where the executor and the observers do. */
  const runNow = <T>(ctx: Context, needs: Needs, work: (db: Executor) => Maybe<T>): Maybe<T> =>
    needs.transaction ? ctx.transactionNow(work) : work(ctx.db);

  /** Reads (and locks) the live row when the write needs it; checks If-Match against the ETag a read of it would carry. */
  const readBefore = async (ctx: Context, db: Executor, id: string, needs: Needs, ifMatch: IfMatch | null): Promise<RecordData | null | undefined> => {
    if (!needs.before) return undefined;
    const before = await store.findById(db, id, { ...storeOptions(ctx), lock: needs.lock });
    if (before && ifMatch && !ifMatchAccepts(ifMatch, etagOf(before))) {
      throw new ApiError('PRECONDITION_FAILED', `If-Match does not match the current ETag of ${model.name} "${id.slice(0, 100)}"; read the record again and retry with its ETag`);
    }
    return before;
  };

  const cascadeObserver = (ctx: Context): CascadeObserver => cascadeNotifier(observers, ctx);

  return {
    insert: (ctx, values) => {
      if (creates.observers.length === 0) return store.insertNow(ctx.db, values, storeOptions(ctx));
      refuseOutsideTransaction(creates, model, 'create', ctx, ctx.tx !== null);
      // Without a promise where the executor and the observers answer now (SQLite's writer free, an outbox or history row).
      return runNow(ctx, needsOf(creates, null), (db) =>
        then(store.insertNow(db, values, storeOptions(ctx)), (after) =>
          then(notify(db, creates, { model, op: 'create', id: String(after.id), before: null, after, cascade: null, caller: ctx }), () => after),
        ),
      );
    },
    update: (ctx, id, values) => {
      const ifMatch = ifMatchOf(ctx);
      if (updates.observers.length === 0 && !ifMatch) return store.update(ctx.db, id, values, storeOptions(ctx));
      refuseOutsideTransaction(updates, model, 'update', ctx, ctx.tx !== null);
      const needs = needsOf(updates, ifMatch);
      return run(ctx, needs, async (db) => {
        const before = await readBefore(ctx, db, id, needs, ifMatch);
        if (before === null) return null;
        // A PATCH without writable keys writes nothing, so nothing is observed. (Not judged by
        // updated_at: two writes within one millisecond leave it unchanged.)
        const writes = store.updateWrites(values, storeOptions(ctx));
        const after = await store.update(db, id, values, storeOptions(ctx));
        if (after && writes) await notify(db, updates, { model, op: 'update', id, before: before ?? null, after, cascade: null, caller: ctx });
        return after;
      });
    },
    remove: (ctx, id) => {
      const ifMatch = ifMatchOf(ctx);
      if (deletes.observers.length === 0 && !ifMatch && !cascades) return store.remove(ctx.db, id, storeOptions(ctx));
      // Cascaded rows are observed inside the delete's transaction, so their callbacks follow its outcome.
      refuseOutsideTransaction(deletes, model, 'delete', ctx, ctx.tx !== null);
      const needs = needsOf(deletes, ifMatch, cascades);
      return run(ctx, needs, async (db) => {
        const before = await readBefore(ctx, db, id, needs, ifMatch);
        if (before === null) return false;
        const options = cascades ? { ...storeOptions(ctx), observe: cascadeObserver(ctx) } : storeOptions(ctx);
        const removed = await store.remove(db, id, options);
        if (removed) await notify(db, deletes, { model, op: 'delete', id, before: before ?? null, after: null, cascade: null, caller: ctx });
        return removed;
      });
    },
  };
}

/**
 * Hands every row a delete cascades to or clears to the observers of that
 * row's model, as made by `caller` (a request, or the scheduled runner).
 *
 * @example
 * await store.remove(tx, id, { observe: cascadeNotifier(observers, caller) });
 */
export function cascadeNotifier(observers: WriteObservers, caller: WriteCaller): CascadeObserver {
  return async (change) => {
    const op = change.action === 'setNull' ? 'update' : 'delete';
    const plan = observers.plan(change.model, op);
    if (plan.observers.length === 0) return;
    const cascade = { action: change.action, relation: change.relation, depth: change.depth };
    await notify(change.tx, plan, { model: change.model, op, id: String(change.before.id), before: change.before, after: change.after, cascade, caller });
  };
}
