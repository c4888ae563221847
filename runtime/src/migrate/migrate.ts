import type { Adapter, ColumnInfo, Executor } from '../db/adapter.js';
import type { Logger } from '../log/logger.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { SchemaSnapshot } from '../sql/dialect.js';
import { type ColumnSpec, type ForeignKeySpec, historyTable, modelTable, searchColumns, type TableSpec } from '../sql/schema.js';
import { systemTablesOf } from './system-tables.js';

export interface MigrationReport {
  createdTables: string[];
  /** `table.column` of every column added to an existing table. */
  addedColumns: string[];
  /** Differences that migration does not fix (it never drops or alters columns). */
  warnings: string[];
}

/**
 * Brings the database up to the registry: creates missing tables and
 * indexes, adds missing columns, never drops or alters anything, and reports
 * every drift it sees as a warning naming the table and column.
 * `systemTables` are the tables features declared (idempotency keys, ...):
 * created like models' tables, columns added, no drift reported.
 *
 * All of it runs in one transaction holding the migration lock, and reads
 * the schema only once it holds the lock: replicas starting together take
 * turns, and the later ones find nothing left to do.
 *
 * @example
 * const report = await migrate(app.db, app.registry.all(), app.log);
 */
export async function migrate(adapter: Adapter, models: readonly ModelMeta[], logger: Logger, systemTables: readonly TableSpec[] = []): Promise<MigrationReport> {
  const names = new Map(models.map((m) => [m.name, m.table]));
  const planned = models.map((model) => ({ model, table: modelTable(model.manifest, names), history: historyTable(model.manifest) }));
  const system = systemTablesOf(systemTables, planned.flatMap((p) => (p.history ? [p.table.name, p.history.name] : [p.table.name])));

  const report = await adapter.migrationTransaction(async (tx) => {
    const migration = new Migration(tx, await tx.dialect.introspect(tx));
    for (const { model, table, history } of planned) {
      const columns = await migration.ensureTable(table, true);
      if (columns) migration.reportDrift(model, table, columns);
      // A history table is created once and never altered.
      if (history) await migration.ensureTable(history, false);
      await migration.createSearchIndex(model, columns !== null);
    }
    for (const table of system) await migration.ensureTable(table, true);
    // PostgreSQL checks that referenced tables exist, so constraints come after every table.
    await migration.addForeignKeys([...planned.map((p) => p.table), ...system]);
    return migration.report;
  });

  for (const warning of report.warnings) logger.warn({ migration: 'drift' }, warning);
  if (report.createdTables.length || report.addedColumns.length) {
    logger.info({ createdTables: report.createdTables, addedColumns: report.addedColumns }, 'migration applied');
  }
  return report;
}

/** One migration's work inside its transaction, against the schema read once the lock was held. */
class Migration {
  readonly report: MigrationReport = { createdTables: [], addedColumns: [], warnings: [] };

  constructor(
    private readonly db: Executor,
    private readonly schema: SchemaSnapshot,
  ) {}

  private get dialect() {
    return this.db.dialect;
  }

  private async exec(statements: readonly string[]): Promise<void> {
    for (const statement of statements) await this.db.raw(statement);
  }

  /**
   * Creates the table, or adds the columns it lacks (when `addColumns`);
   * then its indexes. The columns it had before, or null when it is new.
   */
  async ensureTable(table: TableSpec, addColumns: boolean): Promise<ColumnInfo[] | null> {
    const existing = this.schema.tables.get(table.name) ?? null;
    if (!existing) {
      await this.exec([this.dialect.createTable(table)]);
      this.report.createdTables.push(table.name);
    } else if (addColumns) {
      const present = new Set(existing.map((c) => c.name));
      for (const column of table.columns) {
        if (present.has(column.name)) continue;
        const added = this.dialect.addColumn(table.name, column);
        await this.exec(added.statements);
        if (added.warning) this.report.warnings.push(added.warning);
        this.report.addedColumns.push(`${table.name}.${column.name}`);
      }
    }
    await this.exec(table.indexes.map((index) => this.dialect.createIndex(table.name, index)));
    return existing;
  }

  /** Columns of a model's existing table that differ from the model: kept as they are, and named. */
  reportDrift(model: ModelMeta, table: TableSpec, columns: readonly ColumnInfo[]): void {
    const declared = new Map(table.columns.map((c) => [c.name, c]));
    for (const column of columns) {
      const expected = declared.get(column.name);
      if (!expected) {
        this.report.warnings.push(
          `${table.name}.${column.name} exists in the database but model ${model.name} does not declare it; it is kept (migration never drops columns)`,
        );
        continue;
      }
      const type = this.dialect.columnType(expected.type).toLowerCase();
      if (column.type !== type) {
        this.report.warnings.push(`${table.name}.${column.name} is ${column.type} in the database but model ${model.name} declares ${type}; migration does not change column types`);
      }
      if (!expected.primaryKey && column.nullable !== expected.nullable) {
        this.report.warnings.push(
          `${table.name}.${column.name} is ${column.nullable ? 'NULL' : 'NOT NULL'} in the database but model ${model.name} declares it ${expected.nullable ? 'nullable' : 'not nullable'}; migration does not change nullability`,
        );
      }
    }
  }

  /**
   * The full-text index. When the table has rows the index may not have seen
   * (the index or one of its sync triggers did not exist), it is refilled from
   * the table once created.
   */
  async createSearchIndex(model: ModelMeta, tableExisted: boolean): Promise<void> {
    const columns = searchColumns(model);
    if (columns.length === 0) return;
    const check = this.dialect.searchMissingParts(model.table);
    const backfill = this.dialect.searchBackfill(model.table);
    const stale = tableExisted && check !== null && backfill !== null && Number((await this.db.raw(check))[0]?.missing ?? 0) > 0;
    await this.exec(this.dialect.searchStatements(model.table, columns));
    if (stale) await this.exec([backfill!]);
  }

  /**
   * Adds the foreign keys the database lacks (where they are not declared
   * with their column), then validates every one not validated yet: older
   * rows that point at missing parents leave a warning naming table and
   * column, and the key applies to new writes until they are fixed.
   */
  async addForeignKeys(tables: readonly TableSpec[]): Promise<void> {
    const known = new Map(this.schema.foreignKeys.map((k) => [`${k.table}\0${k.name}`, k.validated]));
    const pending: { table: string; column: ColumnSpec; key: ForeignKeySpec }[] = [];
    for (const table of tables) {
      for (const column of table.columns) {
        const key = column.references;
        if (!key) continue;
        const validated = known.get(`${table.name}\0${key.name}`);
        if (validated === undefined) {
          const statements = this.dialect.addForeignKey(table.name, column.name, key);
          await this.exec(statements);
          if (statements.length > 0) pending.push({ table: table.name, column, key });
        } else if (!validated) {
          pending.push({ table: table.name, column, key });
        }
      }
    }
    for (const { table, column, key } of pending) {
      // A savepoint keeps the migration's transaction usable when the check fails (PostgreSQL).
      await this.db.raw('SAVEPOINT mfx_validate');
      try {
        await this.db.raw(this.dialect.validateForeignKey(table, key.name));
        await this.db.raw('RELEASE SAVEPOINT mfx_validate');
      } catch {
        await this.db.raw('ROLLBACK TO SAVEPOINT mfx_validate');
        this.report.warnings.push(
          `${table}.${column.name} has rows whose parent does not exist; the foreign key applies to new writes only until they are fixed (the next migration validates it)`,
        );
      }
    }
  }
}
