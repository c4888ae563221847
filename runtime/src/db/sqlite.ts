import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import type { Registry } from '../registry/registry.js';
import { sqlite } from '../sql/dialects/sqlite.js';
import {
  type Adapter,
  type ColumnInfo,
  type Executor,
  NestedTransactionError,
  type QueryOptions,
  type Row,
  TxBeginError,
  TxCommitError,
  throwIfAborted,
} from './adapter.js';
import { loadDriver } from './drivers.js';
import { batchesOfResult, type IterateOptions, rowsOfBatches, TransactionIterations } from './iterate.js';
import { WriteLock } from './lock.js';
import { SnapshotReaders } from './sqlite-snapshot.js';
import { allNowMethod, allValuesNowMethod, answerNowThrough, getNowMethod, getValuesNowMethod, rawNowMethod, transactionNowMethod } from './now.js';
import type { Maybe } from '../util/maybe.js';

type Statement = Database.Statement<unknown[], Row>;

export interface SqliteOptions {
  /** How long a statement waits for another request's open transaction, in ms (default 10 000). */
  lockTimeoutMs?: number;
  /** Prepared statements kept per connection (default 1000). */
  statementCacheSize?: number;
}

/** SQLite binds numbers, strings, bigints, buffers and null: everything else is converted here. */
function bindValue(value: unknown): unknown {
  switch (typeof value) {
    case 'boolean':
      return value ? 1 : 0;
    case 'undefined':
      return null;
    case 'object':
      if (value === null || Buffer.isBuffer(value)) return value;
      if (value instanceof Date) return value.toISOString();
      return JSON.stringify(value);
    default:
      return value;
  }
}

/** Whether SQLite takes the value as it is (see bindValue). */
const bindsAsIs = (value: unknown) => value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || Buffer.isBuffer(value);

/** The parameters as SQLite binds them; the array itself when nothing needs converting (the common case: no copy). */
function bindAll(params: readonly unknown[]): readonly unknown[] {
  let i = 0;
  while (i < params.length && bindsAsIs(params[i])) i++;
  if (i === params.length) return params;
  const out = params.slice();
  for (; i < params.length; i++) out[i] = bindValue(params[i]);
  return out;
}

/**
 * Parameters handed to a statement as arguments (`apply`), not as one array,
 * up to this many: better-sqlite3 reads an array's elements one by one
 * through the V8 API (about 430 instructions each, 6k for a create of 14
 * columns) and arguments directly. Longer lists (an `IN` of many ids) stay
 * an array, since a call's arguments live on the stack. Every bound value is
 * a primitive or a Buffer (bindAll), never an array or object the driver
 * would expand or read as named parameters. (A spread call, `all(...bound)`,
 * measured worse than the array under callgrind: 8k more instructions a
 * create, spent in V8's runtime defining object properties.)
 */
const MAX_SPREAD = 64;

// One function per method, each with its own call site: a shared helper taking the method measured 6k
// instructions a create worse (one `apply` site calling three native functions).
const stepAll = (statement: Statement, params: readonly unknown[]) => {
  const bound = bindAll(params);
  return bound.length <= MAX_SPREAD ? statement.all.apply(statement, bound as unknown[]) : statement.all(bound);
};
const stepGet = (statement: Statement, params: readonly unknown[]) => {
  const bound = bindAll(params);
  return bound.length <= MAX_SPREAD ? statement.get.apply(statement, bound as unknown[]) : statement.get(bound);
};
const stepRun = (statement: Statement, params: readonly unknown[]) => {
  const bound = bindAll(params);
  return bound.length <= MAX_SPREAD ? statement.run.apply(statement, bound as unknown[]) : statement.run(bound);
};

/**
 * A prepared statement with what better-sqlite3 knows of it, read once when
 * it is prepared: `reader` and `readonly` are native accessors, and each
 * call of a statement asked them up to three times.
 */
class Prepared {
  /** It returns rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean;
  /** It changes nothing. */
  readonly readonly: boolean;
  private valuesStatement: Statement | null = null;

  constructor(
    private readonly db: Database.Database,
    private readonly sql: string,
    readonly statement: Statement,
  ) {
    this.reader = statement.reader;
    this.readonly = statement.readonly;
  }

  /** The statement again in raw mode (each row an array of its values, in SELECT order), prepared on first use: a reader only. */
  get values(): Statement {
    return (this.valuesStatement ??= (this.db.prepare(this.sql) as Statement).raw(true));
  }
}

/** A connection with its own prepared-statement cache. */
class Connection {
  private readonly statements = new Map<string, Prepared>();

  constructor(
    readonly db: Database.Database,
    private readonly cacheSize: number,
  ) {}

  prepare(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = new Prepared(this.db, sql, this.db.prepare(sql) as Statement);
      if (this.statements.size >= this.cacheSize) {
        this.statements.delete(this.statements.keys().next().value!);
      }
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  all(sql: string, params: readonly unknown[]): Row[] {
    return allOf(this.prepare(sql), params);
  }

  get(sql: string, params: readonly unknown[]): Row | undefined {
    return getOf(this.prepare(sql), params);
  }

  run(sql: string, params: readonly unknown[]): { changes: number } {
    return runOf(this.prepare(sql), params);
  }

  allValues(sql: string, params: readonly unknown[]): unknown[][] {
    return allValuesOf(this.prepare(sql), params);
  }

  getValues(sql: string, params: readonly unknown[]): unknown[] | undefined {
    return getValuesOf(this.prepare(sql), params);
  }
}

// One statement, already prepared (and looked up once per call), run the way each Executor method promises:
// its rows as objects keyed by column, or as their values in SELECT order (see db/now.ts, getValuesNowMethod).
function allIn(prepared: Prepared, params: readonly unknown[], asValues: boolean): unknown[] {
  if (!prepared.reader) {
    stepRun(prepared.statement, params);
    return [];
  }
  return stepAll(asValues ? prepared.values : prepared.statement, params);
}

function getIn(prepared: Prepared, params: readonly unknown[], asValues: boolean): unknown {
  if (!prepared.reader) {
    stepRun(prepared.statement, params);
    return undefined;
  }
  const statement = asValues ? prepared.values : prepared.statement;
  // A write that returns rows (INSERT … RETURNING) is stepped to its end: SQLite runs its WAL
  // autocheckpoint only when a statement finishes, and `get` stops at the first row, so the WAL of
  // a database written that way (every plain create) grew without bound.
  return prepared.readonly ? stepGet(statement, params) : stepAll(statement, params)[0];
}

const allOf = (prepared: Prepared, params: readonly unknown[]) => allIn(prepared, params, false) as Row[];
const getOf = (prepared: Prepared, params: readonly unknown[]) => getIn(prepared, params, false) as Row | undefined;
const allValuesOf = (prepared: Prepared, params: readonly unknown[]) => allIn(prepared, params, true) as unknown[][];
const getValuesOf = (prepared: Prepared, params: readonly unknown[]) => getIn(prepared, params, true) as unknown[] | undefined;

function runOf({ statement, reader }: Prepared, params: readonly unknown[]): { changes: number } {
  if (reader) return { changes: stepAll(statement, params).length };
  return { changes: stepRun(statement, params).changes };
}

class SqliteTransaction implements Executor {
  readonly dialect = sqlite;
  readonly inTransaction = true;
  closed = false;
  readonly iterations = new TransactionIterations();

  constructor(private readonly connection: Connection) {}

  private check(options?: QueryOptions): Connection {
    if (this.closed) throw new Error('mfx: this transaction has already ended; use the executor it was started with only inside its callback');
    this.iterations.assertUsable();
    throwIfAborted(options?.signal);
    return this.connection;
  }

  // A transaction's statements answer at once: mfx's own reads take them without a promise (db/now.ts).
  [allNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Row[] {
    return this.check(options).all(sql, params);
  }
  [getNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Row | undefined {
    return this.check(options).get(sql, params);
  }
  [allValuesNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): unknown[][] {
    return this.check(options).allValues(sql, params);
  }
  [getValuesNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): unknown[] | undefined {
    return this.check(options).getValues(sql, params);
  }
  async all(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return this[allNowMethod](sql, params, options);
  }
  async get(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return this[getNowMethod](sql, params, options);
  }
  async run(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return this.check(options).run(sql, params);
  }
  [rawNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Row[] {
    return this.check(options).all(sql, params);
  }
  async raw(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return this[rawNowMethod](sql, params, options);
  }
  /** The writer is shared with the transaction's own statements: the rows are read at once. */
  iterateBatches(sql: string, params: readonly unknown[] = [], options?: IterateOptions): AsyncIterable<Row[]> {
    return this.iterations.track(() => batchesOfResult(async () => this.connection.all(sql, params), options));
  }
  iterate(sql: string, params: readonly unknown[] = [], options?: IterateOptions): AsyncIterable<Row> {
    return rowsOfBatches(this.iterateBatches(sql, params, options));
  }
  async transaction<T>(): Promise<T> {
    throw new NestedTransactionError();
  }
}

answerNowThrough(SqliteTransaction.prototype);

class SqliteAdapter implements Adapter {
  readonly dialect = sqlite;
  readonly inTransaction = false;
  private readonly writer: Connection;
  /** File databases read through a second connection, so reads never wait for an open transaction. */
  private readonly reader: Connection | null;
  /** Connections of their own for iterations over a file database. */
  private readonly snapshots: SnapshotReaders | null;
  private readonly lock: WriteLock;
  /**
   * BEGIN IMMEDIATE, COMMIT and ROLLBACK prepared once: `exec` would parse
   * and compile each again for every transaction, twice per write request.
   */
  private readonly control: { begin: Database.Statement; commit: Database.Statement; rollback: Database.Statement };

  constructor(
    path: string,
    readonly models: readonly string[],
    options: SqliteOptions,
  ) {
    const cacheSize = options.statementCacheSize ?? 1000;
    const memory = path === ':memory:' || path === '';
    const Sqlite = loadDriver('better-sqlite3');
    const writer = new Sqlite(memory ? ':memory:' : path);
    // busy_timeout first: switching a file to WAL waits for other connections opening it.
    writer.pragma('busy_timeout = 5000');
    if (!memory) switchToWal(writer);
    writer.pragma('synchronous = NORMAL');
    writer.pragma('foreign_keys = ON');
    this.writer = new Connection(writer, cacheSize);
    this.control = { begin: writer.prepare('BEGIN IMMEDIATE'), commit: writer.prepare('COMMIT'), rollback: writer.prepare('ROLLBACK') };
    this.snapshots = memory ? null : new SnapshotReaders(path);
    if (memory) {
      this.reader = null;
    } else {
      const reader = new Sqlite(path, { readonly: true });
      reader.pragma('busy_timeout = 5000');
      this.reader = new Connection(reader, cacheSize);
    }
    this.lock = new WriteLock(options.lockTimeoutMs ?? 10_000);
  }

  /**
   * The reader's statement when `sql` only reads and the database has a
   * reader (a file): it runs there without waiting for an open transaction.
   * Null sends it to the writer.
   */
  private readerStatement(sql: string): Prepared | null {
    if (this.reader === null) return null;
    const prepared = this.reader.prepare(sql);
    return prepared.readonly ? prepared : null;
  }

  // `all` and `get` answer now (no promise) unless another request's transaction holds the
  // writer: mfx's own reads and creates call these through db/now.ts, everyone else gets a promise.
  [allNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row[]> {
    return this.readNow(sql, params, options, allOf);
  }

  [getNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row | undefined> {
    return this.readNow(sql, params, options, getOf);
  }

  [allValuesNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<unknown[][]> {
    return this.readNow(sql, params, options, allValuesOf);
  }

  [getValuesNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<unknown[] | undefined> {
    return this.readNow(sql, params, options, getValuesOf);
  }

  /** A statement on the reader when it only reads (and there is one), else on the writer: at once while it is free. */
  private readNow<T>(sql: string, params: readonly unknown[], options: QueryOptions | undefined, work: (prepared: Prepared, params: readonly unknown[]) => T): Maybe<T> {
    throwIfAborted(options?.signal);
    const read = this.readerStatement(sql);
    if (read) return work(read, params);
    if (this.lock.locked) return this.afterWriterIdle(sql, params, options, work);
    return this.onWriter(sql, params, options, work);
  }

  async all(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return this[allNowMethod](sql, params, options);
  }

  async get(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return this[getNowMethod](sql, params, options);
  }

  async run(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    throwIfAborted(options?.signal);
    if (this.lock.locked) return this.afterWriterIdle(sql, params, options, runOf);
    return this.onWriter(sql, params, options, runOf);
  }

  /** A statement on the writer once no other request's transaction holds it (waiting without blocking the process). */
  private async afterWriterIdle<T>(sql: string, params: readonly unknown[], options: QueryOptions | undefined, work: (prepared: Prepared, params: readonly unknown[]) => T): Promise<T> {
    await this.lock.idle(options?.signal);
    return this.onWriter(sql, params, options, work);
  }

  /**
   * A statement on the writer outside a transaction; one that writes commits
   * on its own, so the request learns it has a durable write (its deadline
   * then answers with the outcome, never 504).
   */
  private onWriter<T>(sql: string, params: readonly unknown[], options: QueryOptions | undefined, work: (prepared: Prepared, params: readonly unknown[]) => T): T {
    const prepared = this.writer.prepare(sql);
    return prepared.readonly ? work(prepared, params) : this.onCommit(options, () => work(prepared, params));
  }

  /** Work that makes changes durable, under the request's commit guard (synchronous here: it only records the outcome). */
  private onCommit<T>(options: QueryOptions | undefined, work: () => T): T {
    const settle = options?.signal?.commitGuard?.();
    if (!settle) return work();
    try {
      const result = work();
      settle(true);
      return result;
    } catch (error) {
      settle(false);
      throw error;
    }
  }

  [rawNowMethod](sql: string, params: readonly unknown[], options?: QueryOptions): Maybe<Row[]> {
    return this[allNowMethod](sql, params, options);
  }

  async raw(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return this[rawNowMethod](sql, params, options);
  }

  /**
   * A read-only statement on a file database steps on a snapshot connection
   * of its own; anything else (`:memory:` has one connection, shared by every
   * request) is read at once, like `all`.
   */
  async *iterateBatches(sql: string, params: readonly unknown[] = [], options?: IterateOptions): AsyncGenerator<Row[]> {
    if (this.snapshots && this.readerStatement(sql)) yield* this.snapshots.batches(sql, bindAll(params), options);
    else yield* batchesOfResult(() => this.all(sql, params, options), options);
  }
  iterate(sql: string, params: readonly unknown[] = [], options?: IterateOptions): AsyncIterable<Row> {
    return rowsOfBatches(this.iterateBatches(sql, params, options));
  }

  async transaction<T>(fn: (tx: Executor) => Promise<T>, options?: QueryOptions): Promise<T> {
    return this[transactionNowMethod](fn, options);
  }

  /**
   * A transaction begun, run and committed in the call when the writer is
   * free and `fn` answers now (db/now.ts transactionNow): a create with its
   * event or history row then needs no promise at all. Otherwise it waits
   * for this process's write lock, and for `fn`'s promise.
   */
  [transactionNowMethod]<T>(fn: (tx: Executor) => Maybe<T>, options?: QueryOptions): Maybe<T> {
    throwIfAborted(options?.signal);
    if (this.lock.tryAcquire()) return this.begin(fn, options);
    return this.lock.acquire(options?.signal).then(() => this.begin(fn, options));
  }

  async migrationTransaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    await this.lock.acquire();
    try {
      await this.beginWhenFree();
    } catch (error) {
      this.lock.release();
      throw new TxBeginError(error);
    }
    return this.begun(fn);
  }

  /** BEGIN IMMEDIATE with this process's write lock taken, then `fn` (see begun); the lock is released however it ends. */
  private begin<T>(fn: (tx: Executor) => Maybe<T>, options?: QueryOptions): Maybe<T> {
    try {
      this.control.begin.run();
    } catch (error) {
      this.lock.release();
      throw new TxBeginError(error);
    }
    return this.begun(fn, options);
  }

  /** Runs `fn` in the begun transaction, then COMMIT (ROLLBACK when it throws); answers now when `fn` does. */
  private begun<T>(fn: (tx: Executor) => Maybe<T>, options?: QueryOptions): Maybe<T> {
    const tx = new SqliteTransaction(this.writer);
    let result: Maybe<T>;
    try {
      result = fn(tx);
    } catch (error) {
      return this.failed(tx, error);
    }
    if (result instanceof Promise) return result.then((value) => this.succeeded(tx, value, options), (error: unknown) => this.failed(tx, error));
    return this.succeeded(tx, result, options);
  }

  /** `fn` finished: its iterations end (an open one is closed first), then COMMIT. */
  private succeeded<T>(tx: SqliteTransaction, value: T, options?: QueryOptions): Maybe<T> {
    const ended = tx.iterations.end();
    if (ended) return ended.then(() => this.commit(tx, value, options), (error: unknown) => this.rollBack(tx, error));
    return this.commit(tx, value, options);
  }

  private commit<T>(tx: SqliteTransaction, value: T, options?: QueryOptions): T {
    try {
      // A cancelled request never commits: its deadline answered 504, or its client left.
      throwIfAborted(options?.signal);
    } catch (error) {
      return this.rollBack(tx, error);
    }
    try {
      this.onCommit(options, () => this.control.commit.run());
    } catch (error) {
      return this.rollBack(tx, new TxCommitError(error));
    }
    this.closeTransaction(tx);
    return value;
  }

  /** `fn` threw: its iterations end, then ROLLBACK, and the error goes on. */
  private failed(tx: SqliteTransaction, error: unknown): never | Promise<never> {
    const ended = tx.iterations.end();
    if (ended) return ended.then(() => this.rollBack(tx, error), () => this.rollBack(tx, error));
    return this.rollBack(tx, error);
  }

  private rollBack(tx: SqliteTransaction, error: unknown): never {
    try {
      if (this.writer.db.inTransaction) this.control.rollback.run();
    } finally {
      this.closeTransaction(tx);
    }
    throw error;
  }

  private closeTransaction(tx: SqliteTransaction): void {
    tx.closed = true;
    this.lock.release();
  }

  /**
   * BEGIN IMMEDIATE that waits for another connection's write transaction
   * (another replica, or another adapter in this process) without blocking
   * the process: busy_timeout would sleep inside the call, and a holder in
   * this same process could then never finish.
   */
  private async beginWhenFree(): Promise<void> {
    const db = this.writer.db;
    const busyTimeout = Number(db.pragma('busy_timeout', { simple: true }));
    db.pragma('busy_timeout = 0');
    try {
      for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, 50)) {
        try {
          db.exec('BEGIN IMMEDIATE');
          return;
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
        }
        await sleep(pauseMs);
      }
    } finally {
      db.pragma(`busy_timeout = ${busyTimeout}`);
    }
  }

  async init(): Promise<void> {}

  async exec(sql: string): Promise<void> {
    if (this.lock.locked) await this.lock.idle();
    this.writer.db.exec(sql);
  }

  async introspect(): Promise<Map<string, ColumnInfo[]>> {
    return (await this.dialect.introspect(this)).tables;
  }

  async ping(): Promise<void> {
    (this.reader ?? this.writer).get('SELECT 1', []);
  }

  async close(): Promise<void> {
    this.snapshots?.close();
    this.reader?.db.close();
    this.writer.db.close();
  }
}

answerNowThrough(SqliteAdapter.prototype);

/**
 * Opens the embedded SQLite backend for the models registered so far.
 *
 * `path` is a file path or `:memory:`. Files use WAL; write transactions
 * begin IMMEDIATE so read-then-write transactions serialise.
 *
 * @example
 * app.setDB(openSqlite('./app.db', app.registry));
 */
export function openSqlite(path: string, registry: Registry, options: SqliteOptions = {}): Adapter {
  return new SqliteAdapter(path, registry.modelNames(), options);
}

/**
 * Turns on WAL. Switching the journal mode can answer SQLITE_BUSY at once,
 * without waiting out busy_timeout, while another process opens the same
 * file (several servers starting together): retried for up to 5 s, at start only.
 */
function switchToWal(db: { pragma(source: string): unknown }): void {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}
