/**
 * Reads for mfx's own hot paths that an executor may answer synchronously
 * (SQLite's reader connection, its writer while no transaction holds it):
 * the row itself rather than a promise of it. Executors without the methods
 * (PostgreSQL, any other) answer through their public `get` and `all`.
 */
import type { Adapter, Executor, QueryOptions, Row } from './adapter.js';
import { type Maybe, then } from '../util/maybe.js';

/** The methods an executor answers now with; symbols, so they are no part of the public Executor. */
export const getNowMethod = Symbol('mfx.getNow');
export const allNowMethod = Symbol('mfx.allNow');
/**
 * The same reads with each row as its column values in SELECT order
 * (better-sqlite3's raw mode): the driver then makes no object per row,
 * key by key, for mfx to copy into a record at once.
 */
export const getValuesNowMethod = Symbol('mfx.getValuesNow');
export const allValuesNowMethod = Symbol('mfx.allValuesNow');

/**
 * A statement that may write, answered now: its rows (none for a statement
 * without RETURNING), as `raw` promises them.
 */
export const rawNowMethod = Symbol('mfx.rawNow');
/**
 * A transaction whose work may answer now (a value rather than a promise):
 * begun, run and committed in the call when the work does and nothing else
 * holds the connection, a promise otherwise.
 */
export const transactionNowMethod = Symbol('mfx.transactionNow');

/** Marks a class's public `get` and `all` (and `raw`, `transaction` where it has those now-methods) as answering through its now-methods. */
const answersNow = Symbol('mfx.answersNow');

export interface AnswersNow {
  [getNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row | undefined>;
  [allNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row[]>;
}

/** Executors that also write now (see rawNowMethod). */
export interface WritesNow {
  [rawNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row[]>;
}

/** Adapters that also transact now (see transactionNowMethod). */
export interface TransactsNow {
  [transactionNowMethod]<T>(fn: (tx: Executor) => Maybe<T>, options?: QueryOptions): Maybe<T>;
}

/** Executors that also read rows as values (see getValuesNowMethod). */
export interface AnswersValuesNow {
  [getValuesNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<unknown[] | undefined>;
  [allValuesNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<unknown[][]>;
}

type Marked = { [answersNow]?: true };

/**
 * Declares that an executor class's `get` and `all` are its now-methods
 * behind a promise. getNow and allNow take the shortcut only when the
 * executor's `get`/`all` is still that very function: a wrapper (a hook's
 * decorator, a Proxy counting statements) sees every statement through its own.
 *
 * @example
 * answerNowThrough(SqliteAdapter.prototype);
 */
export function answerNowThrough(prototype: AnswersNow & Pick<Executor, 'get' | 'all' | 'raw'> & Partial<WritesNow & TransactsNow & Pick<Adapter, 'transaction'>>): void {
  (prototype.get as unknown as Marked)[answersNow] = true;
  (prototype.all as unknown as Marked)[answersNow] = true;
  if (prototype[rawNowMethod]) (prototype.raw as unknown as Marked)[answersNow] = true;
  if (prototype[transactionNowMethod] && prototype.transaction) (prototype.transaction as unknown as Marked)[answersNow] = true;
}

/**
 * `db.get`, answered now where the executor can. Like `get`, a cancelled
 * request's signal refuses the statement (here by throwing at once).
 *
 * @example
 * const row = getNow(ctx.db, sql, [id], { signal: ctx.cancel }); // a row, or a promise of one
 */
export function getNow(db: Executor, sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row | undefined> {
  const get = db.get;
  if ((get as unknown as Marked)[answersNow]) return (db as Executor & AnswersNow)[getNowMethod](sql, params, options);
  return Promise.resolve(get.call(db, sql, params, options));
}

/** `db.all`, answered now where the executor can (see getNow). */
export function allNow(db: Executor, sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row[]> {
  const all = db.all;
  if ((all as unknown as Marked)[answersNow]) return (db as Executor & AnswersNow)[allNowMethod](sql, params, options);
  return Promise.resolve(all.call(db, sql, params, options));
}

/** `db.raw`, answered now where the executor can (see getNow): a write in a transaction, mostly. */
export function rawNow(db: Executor, sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row[]> {
  const raw = db.raw;
  if ((raw as unknown as Marked)[answersNow]) return (db as Executor & WritesNow)[rawNowMethod](sql, params, options);
  return Promise.resolve(raw.call(db, sql, params, options));
}

/**
 * `adapter.transaction(fn)` for work that may answer now: where the adapter
 * can (SQLite's, while no other transaction holds its writer) the
 * transaction begins, runs `fn` and, when `fn` answers now, commits in the
 * call; otherwise a promise, as `transaction` gives.
 *
 * @example
 * const created = transactionNow(adapter, (tx) => then(store.insertNow(tx, values), (row) => then(outbox.publishNow([eventOf(row)], tx), () => row)));
 */
export function transactionNow<T>(adapter: Adapter, fn: (tx: Executor) => Maybe<T>, options?: QueryOptions): Maybe<T> {
  const transaction = adapter.transaction;
  if ((transaction as unknown as Marked)[answersNow]) return (adapter as Adapter & TransactsNow)[transactionNowMethod](fn, options);
  return transaction.call(adapter, async (tx: Executor) => fn(tx), options) as Promise<T>;
}

/** What a read makes of its row: from the row's values where the executor reads them, else from the row keyed by column. */
export interface OneRowReads<T> {
  readonly values: (values: unknown[] | undefined) => T;
  readonly row: (row: Row | undefined) => T;
}

/** What a read makes of its rows (see OneRowReads). */
export interface RowsReads<T> {
  readonly values: (rows: unknown[][]) => T;
  readonly rows: (rows: Row[]) => T;
}

/**
 * One row of a statement that selects known columns in a known order,
 * made into T by `reads`, answered now where the executor can (see getNow).
 * Executors that read rows as values (SQLite's) hand `reads.values` the
 * column values in SELECT order; any other gets `reads.row` the row object.
 *
 * @example
 * const { decode, decodeValues } = codecOf(model, 'sqlite');
 * const record = readOneNow(ctx.db, selectById, [id], { signal: ctx.cancel }, { values: (v) => (v ? decodeValues(v) : null), row: (r) => (r ? decode(r) : null) });
 */
export function readOneNow<T>(db: Executor, sql: string, params: readonly unknown[], options: QueryOptions | undefined, reads: OneRowReads<T>): Maybe<T> {
  const get = db.get;
  const values = (db as Partial<AnswersValuesNow>)[getValuesNowMethod];
  if (values !== undefined && (get as unknown as Marked)[answersNow]) return then(values.call(db, sql, params, options), reads.values);
  return then(getNow(db, sql, params, options), reads.row);
}

/** Every row of such a statement (see readOneNow). */
export function readAllNow<T>(db: Executor, sql: string, params: readonly unknown[], options: QueryOptions | undefined, reads: RowsReads<T>): Maybe<T> {
  const all = db.all;
  const values = (db as Partial<AnswersValuesNow>)[allValuesNowMethod];
  if (values !== undefined && (all as unknown as Marked)[answersNow]) return then(values.call(db, sql, params, options), reads.values);
  return then(allNow(db, sql, params, options), reads.rows);
}
