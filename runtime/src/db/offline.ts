import { ConfigError } from '../errors/api-error.js';
import type { Registry } from '../registry/registry.js';
import type { SqlDialect } from '../sql/dialect.js';
import { sqlite } from '../sql/dialects/sqlite.js';
import type { Adapter, ColumnInfo, Executor, Row } from './adapter.js';

/**
 * An adapter for building an app's routes and OpenAPI document without a
 * database (`mfx openapi`): it knows the models and a dialect, so
 * `app.handler()` and `app.document()` work, and it loads no driver, so a
 * PostgreSQL-only project needs neither better-sqlite3 nor a server to print
 * its document. Any query is a programming error and says so.
 *
 * @example
 * app.setDB(offlineAdapter(app.registry));
 * app.handler();
 * const doc = app.document();
 */
export function offlineAdapter(registry: Registry, dialect: SqlDialect = sqlite): Adapter {
  return new OfflineAdapter(registry.modelNames(), dialect);
}

class OfflineAdapter implements Adapter {
  readonly inTransaction = false;

  constructor(
    readonly models: readonly string[],
    readonly dialect: SqlDialect,
  ) {}

  private refuse(what: string): never {
    throw new ConfigError(
      `${what} on the offline adapter, which builds the routes and the OpenAPI document without a database (mfx openapi does): ` +
        'query the database from hooks, actions or readiness checks, not while setting the app up, or open one with openSqlite/openPostgres',
    );
  }

  all(): Promise<Row[]> {
    return this.refuse('a query ran');
  }
  get(): Promise<Row | undefined> {
    return this.refuse('a query ran');
  }
  run(): Promise<{ changes: number }> {
    return this.refuse('a statement ran');
  }
  raw(): Promise<Row[]> {
    return this.refuse('a query ran');
  }
  iterate(): AsyncIterable<Row> {
    return this.refuse('a query ran');
  }
  transaction<T>(_fn: (tx: Executor) => Promise<T>): Promise<T> {
    return this.refuse('a transaction began');
  }
  async init(): Promise<void> {}
  exec(): Promise<void> {
    return this.refuse('a statement ran');
  }
  introspect(): Promise<Map<string, ColumnInfo[]>> {
    return this.refuse('the schema was read');
  }
  migrationTransaction<T>(_fn: (tx: Executor) => Promise<T>): Promise<T> {
    return this.refuse('a migration began');
  }
  ping(): Promise<void> {
    return this.refuse('a readiness ping ran');
  }
  async close(): Promise<void> {}
}
