/**
 * Reads for mfx's own hot paths that an executor may answer synchronously
 * (SQLite's reader connection, its writer while no transaction holds it):
 * the row itself rather than a promise of it. Executors without the methods
 * (PostgreSQL, any other) answer through their public `get` and `all`.
 */
import type { Executor, QueryOptions, Row } from './adapter.js';
import type { Maybe } from '../util/maybe.js';

/** The methods an executor answers now with; symbols, so they are no part of the public Executor. */
export const getNowMethod = Symbol('mfx.getNow');
export const allNowMethod = Symbol('mfx.allNow');

/** Marks a class's public `get` and `all` as answering through its now-methods. */
const answersNow = Symbol('mfx.answersNow');

export interface AnswersNow {
  [getNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row | undefined>;
  [allNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row[]>;
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
export function answerNowThrough(prototype: AnswersNow & Pick<Executor, 'get' | 'all'>): void {
  (prototype.get as unknown as Marked)[answersNow] = true;
  (prototype.all as unknown as Marked)[answersNow] = true;
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
