import type { Logger } from '../log/logger.js';
import type { SqlDialect } from '../sql/dialect.js';
import type { IterateOptions } from './iterate.js';

export type { IterateOptions } from './iterate.js';

export type Row = Record<string, unknown>;

/** What the database layer needs of an abort signal; AbortSignal satisfies it. */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
  /**
   * Marks work that may make changes durable (a COMMIT, or a write outside a
   * transaction, which commits on its own) while it runs; call the returned
   * function when it settles, with whether it committed. A request's deadline
   * waits for such work instead of answering 504 over a write that then
   * commits. Optional: AbortSignal has none.
   */
  commitGuard?(): (committed: boolean) => void;
  /**
   * True while the reads of the work this signal belongs to must see the
   * primary (a request that writes, one that asked with `X-Read-Primary: 1`,
   * or one whose write committed): an adapter with a read replica sends them
   * to the primary instead. Optional: AbortSignal has none.
   */
  readonly readPrimary?: boolean;
}

/**
 * Runs `work`, a statement or COMMIT that may make changes durable, under the
 * signal's commit guard (see CancelSignal.commitGuard).
 *
 * @example
 * await guardCommit(options?.signal, () => client.query('COMMIT'));
 */
export async function guardCommit<T>(signal: CancelSignal | undefined, work: () => Promise<T> | T): Promise<T> {
  const settle = signal?.commitGuard?.();
  if (!settle) return work();
  try {
    const result = await work();
    settle(true);
    return result;
  } catch (error) {
    settle(false);
    throw error;
  }
}


export interface QueryOptions {
  /** Aborts the statement (or refuses to start it) when the request's deadline passes or the client leaves; a request's reads also follow its `readPrimary`. */
  signal?: CancelSignal;
  /**
   * Runs a read on the primary even when reads go to a replica (`DB_READ_URL`):
   * for a read that must see a write just made, such as a store reading back
   * the row it inserted. No effect without a replica, or on SQLite.
   */
  readPrimary?: boolean;
}

/**
 * Runs SQL. The adapter is one, and so is a transaction handle: code that
 * receives an Executor does not care whether a transaction is active.
 *
 * `all`, `get` and `run` take the dialect's own placeholders (the SQL the
 * registry and query planner build); `raw` takes `?` placeholders for SQL
 * written by hand in hooks and rebinds them for the backend.
 */
export interface Executor {
  readonly dialect: SqlDialect;
  readonly inTransaction: boolean;
  all(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<Row[]>;
  get(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<Row | undefined>;
  run(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<{ changes: number }>;
  raw(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<Row[]>;
  /**
   * The rows of a statement (dialect placeholders, like `all`) one by one, in
   * the shapes `all` gives, for results too large to hold at once (exports,
   * streamed responses). Nothing runs until the first `next()`; breaking out
   * of the loop closes the statement and gives its connection back; the
   * signal cancels. Every row comes from one snapshot: a PostgreSQL cursor
   * (on a read-pool connection held by the loop, or the transaction's), a
   * SQLite file's own read-only connection, or, where SQLite has only the
   * shared connection (`:memory:`, inside a transaction), the whole result
   * read at the first `next()`. Inside a transaction, no other statement may
   * run on it while the loop is open, and the loop must end before the
   * transaction does.
   *
   * @example
   * for await (const row of ctx.db.iterate('SELECT id, title FROM posts ORDER BY id', [], { signal: ctx.cancel })) write(row);
   */
  iterate(sql: string, params?: readonly unknown[], options?: IterateOptions): AsyncIterable<Row>;
  /**
   * `iterate`'s rows a batch at a time, arrays of at most `batchSize` rows
   * (default 500), with the same snapshot, early exit, cancellation and
   * transaction rules: for a consumer that handles many rows per await (an
   * export). Every built-in adapter has it; the runtime reads through
   * `rowBatches`, which groups `iterate` for an adapter without it.
   *
   * @example
   * for await (const rows of ctx.adapter.iterateBatches!('SELECT id FROM posts', [], { signal: ctx.cancel, batchSize: 256 })) write(rows);
   */
  iterateBatches?(sql: string, params?: readonly unknown[], options?: IterateOptions): AsyncIterable<Row[]>;
  /**
   * Runs `fn` in a transaction: committed when it resolves, rolled back when it
   * throws. There are no nested transactions: calling this on a transaction
   * handle fails with NestedTransactionError.
   */
  transaction<T>(fn: (tx: Executor) => Promise<T>, options?: QueryOptions): Promise<T>;
}

/** A column as the database reports it. */
export interface ColumnInfo {
  name: string;
  /** Declared type, lower-cased (`text`, `integer`, `double precision`, ...). */
  type: string;
  nullable: boolean;
  /** The column has a DEFAULT clause: an insert that leaves it out does not fail on it. */
  hasDefault: boolean;
}

export interface Adapter extends Executor {
  readonly inTransaction: false;
  /** Model names known when the adapter was opened; models registered later do not reach it. */
  readonly models: readonly string[];
  /** Called once by `app.start()` before migrating: connection checks and warnings go to `logger`. */
  init(logger: Logger): Promise<void>;
  /** Runs DDL (one or more statements, no parameters). */
  exec(sql: string): Promise<void>;
  /** Table name → its columns, as the primary sees them now (the migration reads them inside its transaction, through the dialect). */
  introspect(): Promise<Map<string, ColumnInfo[]>>;
  /**
   * Runs `fn` in one transaction that holds the migration lock, so
   * replicas migrating one database at the same time take turns: BEGIN
   * IMMEDIATE on SQLite (waiting without blocking the process while another
   * connection writes), the dialect's `migrationLock` on PostgreSQL.
   * Committed when `fn` resolves, rolled back when it throws.
   */
  migrationTransaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  /** Resolves when the database answers; used by /ready and /health. */
  ping(signal?: CancelSignal): Promise<void>;
  close(): Promise<void>;
}

export class NestedTransactionError extends Error {
  constructor() {
    super('mfx: a transaction is already active on this handle; nested transactions are not supported, run the work inside the existing transaction');
    this.name = 'NestedTransactionError';
  }
}

/** Raised when the transaction could not be opened (mapped to TX_BEGIN_ERROR). */
export class TxBeginError extends Error {
  constructor(readonly cause: unknown) {
    super('mfx: could not begin a transaction');
    this.name = 'TxBeginError';
  }
}

/** Raised when COMMIT failed; the work is rolled back (mapped to TX_COMMIT_ERROR). */
export class TxCommitError extends Error {
  constructor(readonly cause: unknown) {
    super('mfx: could not commit the transaction');
    this.name = 'TxCommitError';
  }
}

/** Raised by an executor whose signal was aborted (mapped to TIMEOUT, or 499 for a client that left). */
export class AbortedError extends Error {
  constructor(readonly reason: unknown) {
    super('mfx: the statement was cancelled');
    this.name = 'AbortedError';
  }
}

export function throwIfAborted(signal: CancelSignal | undefined): void {
  if (signal?.aborted) throw new AbortedError(signal.reason);
}
