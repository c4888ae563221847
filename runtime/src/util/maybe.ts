/**
 * A value now, or a promise of it. mfx's own hot paths pass these along so
 * that a synchronous driver (better-sqlite3) answers a request without a
 * promise and a microtask turn per layer; everything public stays a promise.
 */
export type Maybe<T> = T | Promise<T>;

/**
 * `next` applied to the value: at once when it is there, after the promise
 * otherwise. Only native promises count as pending: the values come from
 * mfx's own layers, which hand other executors' answers over through
 * Promise.resolve (see db/now.ts).
 *
 * @example
 * return then(getNow(db, sql, [id], options), (row) => (row ? decode(row) : null));
 */
export function then<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
