/**
 * Interval locks: with several replicas, the interval scheduler
 * (`app.every(..., { lock })`) and the dispatch of scheduled sweeps through
 * the job queue (scheduler/dispatch.ts) let one replica act per interval.
 * An interval is a slot, `floor(now / interval)`; the replica that moves a
 * schedule's lock to the current slot takes it, the others find it taken.
 * `sqlScheduleLock` keeps one row per schedule in the app's database
 * (`mfx_schedule_locks`); `redisScheduleLock` (`@mfx/jobs-redis`) one key
 * per schedule in Redis. Both pass test/support/schedule-lock-contract.ts.
 */
import type { Adapter, Executor } from '../db/adapter.js';
import { ConfigError } from '../errors/api-error.js';
import type { TableSpec } from '../sql/schema.js';

export const SCHEDULE_LOCK_TABLE = 'mfx_schedule_locks';

export const scheduleLockTable: TableSpec = {
  name: SCHEDULE_LOCK_TABLE,
  columns: [
    { name: 'name', type: 'string', nullable: false, primaryKey: true },
    { name: 'slot', type: 'bigint', nullable: false },
  ],
  indexes: [],
};

/** Where replicas agree on who takes each interval of a schedule. */
export interface ScheduleLock {
  /** Names the store in logs (`sql`, `redis`). */
  readonly kind: string;
  /** Tables the migration creates for the lock (the SQL lock's); the app declares them. */
  readonly tables?: readonly TableSpec[];
  /**
   * True when this call takes interval `slot` of schedule `name`: the lock
   * held an earlier slot (or none) and now holds this one. The same slot
   * again, or an earlier one, is false, whichever replica asks. A SQL lock
   * takes it through `tx` when given, so it commits or rolls back with the
   * transaction's other writes.
   */
  take(name: string, slot: number, tx?: Executor): Promise<boolean>;
  /**
   * The database a SQL lock keeps its rows in: when a transactional queue
   * keeps its jobs there too, the interval is taken and its job enqueued in
   * one transaction (Jobs.enqueueOnSlot).
   */
  database?(): Adapter;
  /** Releases what the lock holds (a connection it opened); the slots stay stored. */
  close?(): Promise<void>;
}

/**
 * Takes a slot in the `mfx_schedule_locks` table of `db`: one upsert that
 * moves the row forward only, so of replicas racing for one slot exactly one
 * sees its row come back.
 *
 * @example
 * if (await takeSlot(db, 'report.build@300000', Math.floor(Date.now() / 300000))) await enqueue();
 */
export async function takeSlot(db: Executor, name: string, slot: number): Promise<boolean> {
  const rows = await db.raw(
    `INSERT INTO ${SCHEDULE_LOCK_TABLE} (name, slot) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET slot = excluded.slot WHERE ${SCHEDULE_LOCK_TABLE}.slot < excluded.slot RETURNING name`,
    [name, slot],
  );
  return rows.length > 0;
}

/**
 * The interval lock in a SQL database (the app's, by default: `lock: true`).
 * Pass the adapter, or a function that returns it when the app's database is
 * set later.
 *
 * @example
 * app.every('5m', { type: 'report.build' }, { lock: sqlScheduleLock(app.db) });
 */
export function sqlScheduleLock(db: Adapter | (() => Adapter)): ScheduleLock {
  const adapter = typeof db === 'function' ? db : () => db;
  return { kind: 'sql', tables: [scheduleLockTable], take: (name, slot, tx) => takeSlot(tx ?? adapter(), name, slot), database: adapter };
}

/** Checks a `lock` option: true, false/undefined, or a ScheduleLock. */
export function checkScheduleLock(lock: unknown, where: string): void {
  if (lock === undefined || typeof lock === 'boolean') return;
  if (lock === null || typeof lock !== 'object' || typeof (lock as Partial<ScheduleLock>).take !== 'function') {
    throw new ConfigError(`${where} lock must be true, false, or an interval lock such as sqlScheduleLock(db) or redisScheduleLock({ url }) from @mfx/jobs-redis`);
  }
}
