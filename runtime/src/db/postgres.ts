import { createHash } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import type pg from 'pg';
import type { Logger } from '../log/logger.js';
import type { Registry } from '../registry/registry.js';
import { postgres } from '../sql/dialects/postgres.js';
import {
  AbortedError,
  type Adapter,
  type CancelSignal,
  type ColumnInfo,
  type Executor,
  NestedTransactionError,
  type QueryOptions,
  type Row,
  TxBeginError,
  TxCommitError,
  guardCommit,
  throwIfAborted,
} from './adapter.js';
import { loadDriver } from './drivers.js';
import { type IterateOptions, rowsOfBatches, TransactionIterations } from './iterate.js';
import { cancelBackend, releaseErrorOf } from './pg-cancel.js';
import { cursorBatches, fromPool } from './pg-cursor.js';
import { PreparedStatement, type StatementResult, StatementExecution, type ValueParser } from './pg-statement.js';
import { isoTimestamp } from './pg-timestamps.js';
import { rebindQuestionMarks } from './rebind.js';

export interface PostgresOptions {
  /** Connection string of the primary. */
  writeUrl: string;
  /** Connection string of a replica for reads outside transactions; the write URL when empty. */
  readUrl?: string;
  /** Write pool size (default 3). */
  writePool?: number;
  /** Read pool size (default 6). */
  readPool?: number;
  /**
   * Use named prepared statements for the SQL mfx builds (default true): each
   * connection parses and plans a statement once. A transaction-mode pooler
   * (PgBouncer `pool_mode = transaction`) cannot keep them across
   * transactions: turn this off, or add `binary_parameters=yes` to the URL,
   * which does the same and is removed from the URL before connecting.
   */
  preparedStatements?: boolean;
  /** Passed to every pg pool as is (ssl, statement_timeout, ...); overrides the defaults below. */
  poolConfig?: PostgresPoolConfig;
}

/**
 * Options of pg's pools (`pg.PoolConfig`), passed as they are. The common
 * ones are named here; any other pg option is accepted too. Declared by mfx
 * so that an app needs no `@types/pg`.
 */
export interface PostgresPoolConfig {
  /** TLS to the server: true, or Node's TLS options (ca, cert, key, rejectUnauthorized, ...). */
  ssl?: boolean | ConnectionOptions;
  /** Server-side limit per statement, in ms. */
  statement_timeout?: number;
  /** Client-side limit per query, in ms. */
  query_timeout?: number;
  /** Server-side limit on a transaction left idle, in ms. */
  idle_in_transaction_session_timeout?: number;
  /** Server-side limit on waiting for a lock, in ms. */
  lock_timeout?: number;
  /** How long to wait for a connection, in ms (default 5 000). */
  connectionTimeoutMillis?: number;
  /** How long an idle connection stays open, in ms (default 30 000). */
  idleTimeoutMillis?: number;
  /** TCP keep-alive on the connections (default true). */
  keepAlive?: boolean;
  /** Names the pools in pg_stat_activity, with `:write` / `:read` appended (default `mfx`). */
  application_name?: string;
  /** pg's pipeline mode. */
  pipeline?: boolean;
  /** Any other option of pg's Pool. */
  [option: string]: unknown;
}

/** Bounded waits, so nothing hangs when the database is unreachable. */
const poolDefaults: pg.PoolConfig = {
  connectionTimeoutMillis: 5_000,
  idleTimeoutMillis: 30_000,
  keepAlive: true,
  application_name: 'mfx',
};

/**
 * Reads and removes `binary_parameters` from a connection string: pg would
 * otherwise send it to the server as an unknown setting.
 */
export function pgConnectionOptions(url: string): { url: string; binaryParameters: boolean } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, binaryParameters: false };
  }
  const value = parsed.searchParams.get('binary_parameters');
  if (value === null) return { url, binaryParameters: false };
  parsed.searchParams.delete('binary_parameters');
  return { url: parsed.toString(), binaryParameters: ['yes', 'true', '1', 'on'].includes(value.toLowerCase()) };
}

const OID = { int8: 20, numeric: 1700, timestamp: 1114, timestamptz: 1184, date: 1082 } as const;

// Values come back in the shapes SQLite gives: numbers as numbers, timestamps as ISO strings.
let parseTimestamp: ((value: string) => unknown) | undefined;
const toNumber = (value: string) => Number(value);
const toIsoString = (value: string) => isoTimestamp(value, (parseTimestamp ??= loadDriver('pg').types.getTypeParser(OID.timestamptz)));
function parserFor(oid: number, format?: 'text' | 'binary'): ValueParser {
  if (oid === OID.int8 || oid === OID.numeric) return toNumber;
  if (oid === OID.timestamptz || oid === OID.timestamp) return toIsoString;
  return loadDriver('pg').types.getTypeParser(oid, format);
}
const types = { getTypeParser: parserFor };

/** JSON columns are jsonb: arrays must reach pg as JSON text, not as PostgreSQL arrays. */
function bindAll(params: readonly unknown[]): unknown[] {
  const out = new Array(params.length);
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    out[i] =
      value !== null && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value)
        ? JSON.stringify(value)
        : value === undefined
          ? null
          : value;
  }
  return out;
}

/** A statement that only reads can go to the read pool. */
const isRead = (sql: string) => /^\s*(select|show|explain)\b/i.test(sql) && !/\bfor\s+(update|share|no key update|key share)\b/i.test(sql);

/**
 * SQL texts remembered per process (prepared statements, routing): mfx builds
 * a bounded set; texts past this are prepared and routed afresh each time.
 */
const STATEMENTS_KEPT = 5_000;

/** Whether each SQL text only reads, decided once per text rather than by two regular expressions per statement. */
class ReadRouting {
  private readonly known = new Map<string, boolean>();

  reads(sql: string): boolean {
    let reads = this.known.get(sql);
    if (reads === undefined) {
      reads = isRead(sql);
      if (this.known.size < STATEMENTS_KEPT) this.known.set(sql, reads);
    }
    return reads;
  }
}

type Queryable = pg.Pool | pg.PoolClient;
type Release = (error?: Error) => void;

class PostgresExecutor {
  private readonly statements = new Map<string, PreparedStatement>();
  /** pg's Pool class, to tell a pool (a connection to take) from a connection already held. */
  private readonly Pool = loadDriver('pg').Pool;

  /**
   * @param prepared name the SQL mfx builds (off behind a transaction-mode pooler)
   * @param describeOnce run it as a StatementExecution; pg's pipeline mode refuses custom
   *   submittables, so there named statements go through pg.Query and are described each time
   */
  constructor(
    private readonly prepared: boolean,
    private readonly describeOnce: boolean,
  ) {}

  /** The prepared statement of a SQL text mfx built (one per text, named by its hash). */
  private statement(sql: string): PreparedStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = new PreparedStatement(`mfx_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`, sql, parserFor);
      if (this.statements.size < STATEMENTS_KEPT) this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs one statement on a connection of the pool (or the transaction's):
   * SQL mfx builds as a named prepared statement, raw SQL unnamed. An abort
   * sends a CancelRequest for it and rejects with AbortedError.
   */
  query(target: Queryable, sql: string, params: readonly unknown[], options?: QueryOptions, named = true): Promise<StatementResult> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(new AbortedError(signal.reason));
    const values = bindAll(params);
    const statement = named && this.prepared ? this.statement(sql) : null;
    return new Promise((resolve, reject) => {
      const run = (client: pg.PoolClient, release: Release | null) => {
        if (signal?.aborted) {
          release?.();
          return reject(new AbortedError(signal.reason));
        }
        // Aborting needs the connection, so it is always held explicitly (never pool.query).
        const onAbort = signal ? () => cancelBackend(client) : null;
        if (onAbort) signal!.addEventListener('abort', onAbort);
        const done = (error: Error | null, result?: StatementResult) => {
          if (onAbort) signal!.removeEventListener('abort', onAbort);
          release?.(releaseErrorOf(client));
          if (error) reject(signal?.aborted ? new AbortedError(signal.reason) : error);
          else resolve(result!);
        };
        if (statement && this.describeOnce) client.query(new StatementExecution(statement, values, done));
        else client.query<Row>({ name: statement?.name, text: sql, values }, (error, result) => done(error, result && { rows: result.rows, rowCount: result.rowCount }));
      };
      if (target instanceof this.Pool) target.connect((error, client, release) => (error ? reject(error) : run(client!, release)));
      else run(target, null);
    });
  }
}

class PostgresTransaction implements Executor {
  readonly dialect = postgres;
  readonly inTransaction = true;
  closed = false;
  readonly iterations = new TransactionIterations();

  constructor(
    private readonly client: pg.PoolClient,
    private readonly executor: PostgresExecutor,
  ) {}

  private target(): pg.PoolClient {
    if (this.closed) throw new Error('mfx: this transaction has already ended; use the executor it was started with only inside its callback');
    this.iterations.assertUsable();
    return this.client;
  }

  async all(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return (await this.executor.query(this.target(), sql, params, options)).rows;
  }
  async get(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return (await this.executor.query(this.target(), sql, params, options)).rows[0];
  }
  async run(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return { changes: (await this.executor.query(this.target(), sql, params, options)).rowCount ?? 0 };
  }
  async raw(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return (await this.executor.query(this.target(), rebindQuestionMarks(sql), params, options, false)).rows;
  }
  /** A cursor on the transaction's connection, which the transaction keeps. */
  iterateBatches(sql: string, params: readonly unknown[] = [], options?: IterateOptions): AsyncIterable<Row[]> {
    const held = async () => ({ client: this.client, release: () => {} });
    return this.iterations.track(() => cursorBatches(held, sql, bindAll(params), { types }, options));
  }
  iterate(sql: string, params: readonly unknown[] = [], options?: IterateOptions): AsyncIterable<Row> {
    return rowsOfBatches(this.iterateBatches(sql, params, options));
  }
  async transaction<T>(): Promise<T> {
    throw new NestedTransactionError();
  }
}

class PostgresAdapter implements Adapter {
  readonly dialect = postgres;
  readonly inTransaction = false;
  private readonly writePool: pg.Pool;
  private readonly readPool: pg.Pool;
  private readonly executor: PostgresExecutor;
  private readonly routing = new ReadRouting();
  /** Whether reads have a target of their own (a replica): only then can a read miss a write just committed. */
  private readonly replica: boolean;
  private logger: Logger | null = null;

  constructor(
    private readonly options: PostgresOptions,
    readonly models: readonly string[],
  ) {
    const write = pgConnectionOptions(options.writeUrl);
    const read = pgConnectionOptions(options.readUrl || options.writeUrl);
    const prepared = (options.preparedStatements ?? true) && !write.binaryParameters && !read.binaryParameters;
    const writeConfig: pg.PoolConfig = { ...poolDefaults, ...(options.poolConfig as pg.PoolConfig | undefined), connectionString: write.url, types };
    const readConfig: pg.PoolConfig = { ...poolDefaults, ...(options.poolConfig as pg.PoolConfig | undefined), connectionString: read.url, types };
    // Each pool names itself in pg_stat_activity: `<application_name>:write` / `:read`.
    const name = writeConfig.application_name ?? 'mfx';
    const { Pool } = loadDriver('pg');
    this.writePool = new Pool({ ...writeConfig, application_name: `${name}:write`, max: options.writePool ?? 3 });
    this.readPool = new Pool({ ...readConfig, application_name: `${name}:read`, max: options.readPool ?? 6 });
    // A connection that dies (server restart, pg_terminate_backend) must not crash the process,
    // whether it was idle in the pool or held by a request between two statements: the statement
    // in flight fails on its own, and the pool drops the dead connection when it is released.
    const onConnectionLost = (error: Error) => this.logger?.warn({ err: error.message }, 'postgres connection lost');
    for (const pool of [this.writePool, this.readPool]) {
      pool.on('error', onConnectionLost);
      pool.on('connect', (client) => client.on('error', onConnectionLost));
    }
    this.executor = new PostgresExecutor(prepared, !options.poolConfig?.pipeline);
    this.replica = Boolean(options.readUrl) && options.readUrl !== options.writeUrl;
  }

  /**
   * Where a statement outside a transaction runs: a read on the read pool,
   * unless it must see the primary (the call's `readPrimary`, or its
   * request's: see CancelSignal.readPrimary); anything else on the write pool.
   */
  private pool(sql: string, options: QueryOptions | undefined): pg.Pool {
    return this.routing.reads(sql) ? this.readTarget(options) : this.writePool;
  }

  private readTarget(options: QueryOptions | undefined): pg.Pool {
    return this.replica && (options?.readPrimary || options?.signal?.readPrimary) ? this.writePool : this.readPool;
  }

  async init(logger: Logger): Promise<void> {
    this.logger = logger;
    const { rows } = await this.writePool.query<{ max_connections: string }>('SHOW max_connections');
    const max = Number(rows[0]?.max_connections);
    const claimed = (this.options.writePool ?? 3) + (this.options.readPool ?? 6);
    if (Number.isFinite(max) && claimed > max / 2) {
      logger.warn(
        { writePool: this.options.writePool ?? 3, readPool: this.options.readPool ?? 6, max_connections: max },
        `postgres pools claim ${claimed} connections, over half of the server's max_connections (${max}); lower writePool/readPool or raise max_connections`,
      );
    }
  }

  /**
   * One statement outside a transaction: a read on the read pool (or the
   * write pool when it must see the primary), anything else on the write
   * pool, where it commits on its own (under the request's commit guard, so
   * its deadline waits for it, and its later reads see the primary).
   */
  private statement(sql: string, params: readonly unknown[], options: QueryOptions | undefined, named = true, write = false): Promise<StatementResult> {
    if (this.routing.reads(sql)) return this.executor.query(write ? this.writePool : this.readTarget(options), sql, params, options, named);
    return guardCommit(options?.signal, () => this.executor.query(this.writePool, sql, params, options, named));
  }

  async all(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return (await this.statement(sql, params, options)).rows;
  }
  async get(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return (await this.statement(sql, params, options)).rows[0];
  }
  async run(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return { changes: (await this.statement(sql, params, options, true, true)).rowCount ?? 0 };
  }
  async raw(sql: string, params: readonly unknown[] = [], options?: QueryOptions) {
    return (await this.statement(rebindQuestionMarks(sql), params, options, false)).rows;
  }
  /** A cursor on a connection of the read pool (write pool for writing statements and reads that must see the primary), held until the loop ends. */
  iterateBatches(sql: string, params: readonly unknown[] = [], options?: IterateOptions): AsyncIterable<Row[]> {
    return cursorBatches(fromPool(this.pool(sql, options)), sql, bindAll(params), { types }, options);
  }
  iterate(sql: string, params: readonly unknown[] = [], options?: IterateOptions): AsyncIterable<Row> {
    return rowsOfBatches(this.iterateBatches(sql, params, options));
  }

  async transaction<T>(fn: (tx: Executor) => Promise<T>, options?: QueryOptions): Promise<T> {
    throwIfAborted(options?.signal);
    let client: pg.PoolClient;
    try {
      client = await this.writePool.connect();
      await client.query('BEGIN');
    } catch (error) {
      throw new TxBeginError(error);
    }
    const tx = new PostgresTransaction(client, this.executor);
    let broken: Error | undefined;
    try {
      let result: T;
      try {
        result = await fn(tx).finally(() => tx.iterations.end());
        // A cancelled request never commits: its deadline answered 504, or its client left.
        throwIfAborted(options?.signal);
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      }
      try {
        await guardCommit(options?.signal, () => client.query('COMMIT'));
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw new TxCommitError(error);
      }
      return result;
    } finally {
      tx.closed = true;
      // A connection that failed to roll back, or had a cancel sent on it, is closed instead of going back to the pool.
      client.release(broken ?? releaseErrorOf(client));
    }
  }

  async exec(sql: string): Promise<void> {
    await this.writePool.query(sql);
  }

  migrationTransaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    return this.transaction(async (tx) => {
      for (const statement of this.dialect.migrationLock) await tx.raw(statement);
      return fn(tx);
    });
  }

  /** Read on the write pool (in a transaction): a replica may not have the newest tables yet. */
  async introspect(): Promise<Map<string, ColumnInfo[]>> {
    return (await this.transaction((tx) => this.dialect.introspect(tx))).tables;
  }

  async ping(signal?: CancelSignal): Promise<void> {
    await this.executor.query(this.writePool, 'SELECT 1', [], { signal });
  }

  async close(): Promise<void> {
    await Promise.all([this.writePool.end(), this.readPool.end()]);
  }
}

/**
 * Opens the PostgreSQL backend for the models registered so far: a write pool
 * (default 3 connections) and a read pool (default 6), both opened even when
 * `readUrl` is empty. Reads outside a transaction use the read pool, except
 * those that must see the primary (`readPrimary` on the call or on its
 * request's signal), which use the write pool when `readUrl` names a replica.
 *
 * @example
 * app.setDB(openPostgres({ writeUrl: process.env.DB_WRITE_URL! }, app.registry));
 */
export function openPostgres(options: PostgresOptions, registry: Registry): Adapter {
  // Both drivers load now, so a missing one is a startup error, not a failing request.
  loadDriver('pg');
  loadDriver('pg-cursor');
  return new PostgresAdapter(options, registry.modelNames());
}
