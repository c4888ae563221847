/**
 * Write observers: the one signal every feature that follows writes listens
 * to (history, audit, and later events and the outbox, rollups, scheduled
 * transitions). An observer declares what it needs of the write path (the
 * row before the write, a transaction, a row lock); the write path of each
 * model reads those needs once, takes the lock and reads the pre-image once,
 * and calls every observer with the same change, for the row the request
 * wrote and for every row a delete cascaded to alike.
 */
import { AbortedError, type CancelSignal, type Executor } from '../db/adapter.js';
import { ApiError, ConfigError, RegistrationClosedError } from '../errors/api-error.js';
import type { Logger } from '../log/logger.js';
import type { BelongsTo, ModelMeta } from '../registry/model-meta.js';
import type { RecordData } from '../store/codec.js';
import type { WriteOp } from '../store/diff.js';
import type { Maybe } from '../util/maybe.js';
import type { Identity } from './types.js';

export type { WriteOp } from '../store/diff.js';

/** Who made a write, as observers see it. A request's Context satisfies it. */
export interface WriteCaller {
  identity: Identity | null;
  requestId: string;
  traceId: string;
  log: Logger;
  cancel?: CancelSignal;
  /** Runs after the write's transaction commits (at once without one); dropped on rollback. */
  afterCommit(fn: () => unknown): void;
  /** Runs after the write's transaction rolls back; dropped on commit. */
  onRollback(fn: () => unknown): void;
}

/** A row a delete changed through a BelongsTo's onDelete action, beside the row the request deleted. */
export interface CascadeCause {
  /** `delete` removed the row, `softDelete` marked it, `setNull` cleared its foreign key (an `update`). */
  action: 'delete' | 'softDelete' | 'setNull';
  /** The relation of the changed row's model that pointed at the deleted parent. */
  relation: BelongsTo;
  /** 1 for children of the record asked for, 2 for grandchildren, ... */
  depth: number;
}

/** One changed row. */
export interface WriteChange {
  model: ModelMeta;
  op: WriteOp;
  /** The id of the changed row (known even when `before` was not asked for). */
  id: string;
  /** Every field before the write (JSON names); null for a create, and for observers that did not ask for it. */
  before: RecordData | null;
  /** Every field after the write; null for a delete (soft deletes included). */
  after: RecordData | null;
  /** Set when a delete's referential action changed the row; null for the row the request wrote. */
  cascade: CascadeCause | null;
  caller: WriteCaller;
}

export interface WriteObserver {
  /** Names the observer in errors and logs, e.g. `history` or `audit()`. */
  name: string;
  /** The writes it follows; every kind when absent. */
  ops?: readonly WriteOp[];
  /** Wants `before` on updates and deletes. */
  needsBefore?: boolean;
  /** Must run inside the write's transaction (one is opened when the request has none). */
  needsTransaction?: boolean;
  /** Wants the row locked from reading `before` to the end of the transaction (implies a transaction). */
  needsLock?: boolean;
  /**
   * Set by an observer whose work must commit or roll back with the write
   * and that must not open a transaction of its own (that would hide an app
   * that forgot its transaction hook): a request that writes the model with
   * no transaction open is answered with the error this returns, before
   * anything is written (rollups: 500 ROLLUP_NO_TX). Rows a delete cascades
   * to are always observed inside the delete's transaction.
   */
  outsideTransaction?: (model: ModelMeta, op: WriteOp, caller: WriteCaller) => Error;
  /**
   * Called once per changed row, after the row changed, inside the write's
   * transaction when one is open (`tx` is then that transaction). Throwing
   * fails the request (500); the write rolls back with it when it runs in a
   * transaction, which is why an observer whose failure must undo the write
   * declares `needsTransaction`.
   */
  observe(tx: Executor, change: WriteChange): void | Promise<void>;
}

/** What the write path of one model and one kind of write must do for its observers, decided once. */
export interface ObserverPlan {
  observers: readonly WriteObserver[];
  needsBefore: boolean;
  needsTransaction: boolean;
  needsLock: boolean;
  /** The first observer that refuses a write made outside a transaction (see WriteObserver.outsideTransaction), or null. */
  refusesOutsideTransaction: WriteObserver | null;
}

const EMPTY: ObserverPlan = { observers: [], needsBefore: false, needsTransaction: false, needsLock: false, refusesOutsideTransaction: null };

/**
 * The observers of every model, registered in the setup window and resolved
 * into one plan per (model, kind of write) when the server seals.
 *
 * @example
 * app.observeWrites({ name: 'search-sync', ops: ['create', 'update'], observe: (tx, change) => queue.push(change.after) }, { models: ['Post'] });
 */
export class WriteObservers {
  private readonly entries: { observer: WriteObserver; models: ReadonlySet<string> | null }[] = [];
  private readonly plans = new Map<ModelMeta, Record<WriteOp, ObserverPlan>>();
  private sealed = false;

  /** Adds an observer for `models` (all when absent); `first` puts it before those added earlier. */
  add(observer: WriteObserver, models?: readonly string[] | null, options: { first?: boolean } = {}): void {
    if (this.sealed) throw new RegistrationClosedError(`the write observer ${observer?.name ?? ''}`);
    if (!observer || typeof observer.observe !== 'function' || !observer.name) {
      throw new ConfigError('a write observer needs { name, observe(tx, change) }');
    }
    const entry = { observer, models: models ? new Set(models) : null };
    if (options.first) this.entries.unshift(entry);
    else this.entries.push(entry);
  }

  /** Model names observers are scoped to, checked against the registry when the app seals. */
  scopedModels(): string[] {
    return [...new Set(this.entries.flatMap((e) => (e.models ? [...e.models] : [])))];
  }

  seal(): void {
    this.sealed = true;
  }

  /** The observers of one model and kind of write, with what they need (computed once). */
  plan(model: ModelMeta, op: WriteOp): ObserverPlan {
    let byOp = this.plans.get(model);
    if (!byOp) {
      byOp = { create: this.resolve(model, 'create'), update: this.resolve(model, 'update'), delete: this.resolve(model, 'delete') };
      if (this.sealed) this.plans.set(model, byOp);
    }
    return byOp[op];
  }

  /** Whether deleting a row of `model` may change rows that have observers (through cascades or set-null). */
  cascadesObserved(model: ModelMeta, seen = new Set<ModelMeta>()): boolean {
    if (seen.has(model)) return false;
    seen.add(model);
    return model.inbound.some(({ child, relation }) => {
      if (relation.onDelete === 'setNull') return this.plan(child, 'update').observers.length > 0;
      if (relation.onDelete === 'cascade') return this.plan(child, 'delete').observers.length > 0 || this.cascadesObserved(child, seen);
      return false;
    });
  }

  private resolve(model: ModelMeta, op: WriteOp): ObserverPlan {
    const observers = this.entries
      .filter((e) => (!e.models || e.models.has(model.name)) && (!e.observer.ops || e.observer.ops.includes(op)))
      .map((e) => e.observer);
    if (observers.length === 0) return EMPTY;
    // A create has no row before it: nothing to read, nothing to lock.
    const needsLock = op !== 'create' && observers.some((o) => o.needsLock);
    return {
      observers,
      needsBefore: op !== 'create' && (needsLock || observers.some((o) => o.needsBefore)),
      needsTransaction: needsLock || observers.some((o) => o.needsTransaction),
      needsLock,
      refusesOutsideTransaction: observers.find((o) => o.outsideTransaction) ?? null,
    };
  }
}

/**
 * Refuses a write of the request's own row when an observer of the plan
 * needs the request's transaction and none is open: throws that observer's
 * error before anything is written.
 *
 * @example
 * refuseOutsideTransaction(plan, model, 'create', ctx, ctx.tx !== null);
 */
export function refuseOutsideTransaction(plan: ObserverPlan, model: ModelMeta, op: WriteOp, caller: WriteCaller, inTransaction: boolean): void {
  const observer = plan.refusesOutsideTransaction;
  if (observer && !inTransaction) throw observer.outsideTransaction!(model, op, caller);
}

/**
 * Calls every observer of a plan with one change, in registration order;
 * answers now while the observers do (an outbox row written in a SQLite
 * transaction), a promise from the first one that returns a promise.
 *
 * @example
 * await notify(tx, plan, { model, op: 'create', id: after.id, before: null, after, cascade: null, caller: ctx });
 */
export function notify(tx: Executor, plan: ObserverPlan, change: WriteChange): Maybe<void> {
  return notifyFrom(tx, plan, change, 0);
}

function notifyFrom(tx: Executor, plan: ObserverPlan, change: WriteChange, from: number): Maybe<void> {
  const observers = plan.observers;
  for (let i = from; i < observers.length; i++) {
    const observer = observers[i]!;
    let observed: void | Promise<void>;
    try {
      observed = observer.observe(tx, change);
    } catch (error) {
      throw observerFailure(observer, error);
    }
    if (observed instanceof Promise) {
      return observed.then(
        () => notifyFrom(tx, plan, change, i + 1),
        (error: unknown) => {
          throw observerFailure(observer, error);
        },
      );
    }
  }
}

/** A cancelled statement stays a cancellation; anything else is the observer's own failure. */
function observerFailure(observer: WriteObserver, error: unknown): unknown {
  return error instanceof ApiError || error instanceof AbortedError ? error : new ObserverError(observer.name, error);
}

/** What an observer threw, with its name: the DB step answers it like a hook's error (500 INTERNAL, or PANIC). */
export class ObserverError extends Error {
  constructor(
    readonly observer: string,
    readonly cause: unknown,
  ) {
    super(`mfx: the write observer ${observer} failed`);
    this.name = 'ObserverError';
  }
}
