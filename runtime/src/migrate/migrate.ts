import type { Adapter, ColumnInfo, Executor } from '../db/adapter.js';
import type { Logger } from '../log/logger.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { liveDuplicatesQuery } from '../sql/ddl.js';
import type { SchemaSnapshot, SqlDialect, UniqueKeyInfo } from '../sql/dialect.js';
import { type ColumnSpec, type ForeignKeySpec, historyTable, type IndexSpec, modelTable, searchColumns, type TableSpec } from '../sql/schema.js';
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

/** How an existing table's columns differ from what `declarer` (`model Post`) declares: extra columns, other types, other nullability. */
function columnDifferences(table: TableSpec, columns: readonly ColumnInfo[], dialect: SqlDialect, declarer: string): string[] {
  const declared = new Map(table.columns.map((c) => [c.name, c]));
  const out: string[] = [];
  for (const column of columns) {
    const expected = declared.get(column.name);
    if (!expected) {
      out.push(`${table.name}.${column.name} exists in the database but ${declarer} does not declare it; it is kept (migration never drops columns)`);
      continue;
    }
    const type = dialect.columnType(expected.type).toLowerCase();
    if (column.type !== type) out.push(`${table.name}.${column.name} is ${column.type} in the database but ${declarer} declares ${type}; migration does not change column types`);
    if (!expected.primaryKey && column.nullable !== expected.nullable) {
      out.push(
        `${table.name}.${column.name} is ${column.nullable ? 'NULL' : 'NOT NULL'} in the database but ${declarer} declares it ${expected.nullable ? 'nullable' : 'not nullable'}; migration does not change nullability`,
      );
    }
  }
  return out;
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
   * Creates the table, or adds the columns it lacks (when `addColumns`) and
   * moves its unique keys to live rows (`liveOnly` indexes); then its
   * indexes. The columns it had before, or null when it is new.
   */
  async ensureTable(table: TableSpec, addColumns: boolean): Promise<ColumnInfo[] | null> {
    const existing = this.schema.tables.get(table.name) ?? null;
    let skipped = new Set<string>();
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
      skipped = await this.moveUniqueKeysToLiveRows(table, existing);
    }
    await this.exec(table.indexes.filter((index) => !skipped.has(index.name)).map((index) => this.dialect.createIndex(table.name, index)));
    return existing;
  }

  /**
   * Soft-delete models bind unique values among live rows: an existing
   * table's unique constraint (or full unique index) over the same columns
   * is dropped and the partial index created in its place, in this
   * transaction. An index live rows already violate is not created (a
   * warning names it, and the old key, if any, stays); the same when SQLite
   * would have to rebuild a table that differs from the model. Returns the
   * names of the indexes left out.
   */
  private async moveUniqueKeysToLiveRows(table: TableSpec, columns: readonly ColumnInfo[]): Promise<Set<string>> {
    const skipped = new Set<string>();
    const keys = this.schema.uniqueKeys.filter((k) => k.table === table.name);
    const moves: { index: IndexSpec; old: UniqueKeyInfo[] }[] = [];
    for (const index of table.indexes) {
      if (!index.liveOnly || keys.some((k) => k.name === index.name && k.partial)) continue;
      const names = index.columns.map((c) => (typeof c === 'string' ? c : c.column));
      const label = `${table.name}.${names.join(', ')}`;
      const duplicated = await this.db.raw(liveDuplicatesQuery(this.dialect, table.name, index));
      if (duplicated.length > 0) {
        skipped.add(index.name);
        this.report.warnings.push(
          `${label} holds the same value on several live rows, so the unique index ${index.name} (unique among rows that are not soft-deleted) was not created and the value is not unique yet; fix those rows and migrate again`,
        );
        continue;
      }
      const replaced = keys.filter((k) => !k.partial && (k.name === index.name || (k.columns.length === names.length && k.columns.every((c, i) => c === names[i]))));
      moves.push({ index, old: replaced });
    }
    const old = [...new Map(moves.flatMap((m) => m.old).map((k) => [k.name, k])).values()];
    if (old.length === 0) return skipped;
    const dropped = this.dialect.dropUniqueKeys(table, old);
    const differences = dropped.rebuildsTable ? columnDifferences(table, columns, this.dialect, 'the model') : [];
    if (differences.length > 0) {
      for (const { index } of moves) {
        skipped.add(index.name);
        this.report.warnings.push(
          `${table.name}: the unique key on ${index.columns.join(', ')} still binds soft-deleted rows: moving it to live rows means rebuilding the table (SQLite), which migration does only when the table matches the model, and ${differences.join('; ')}`,
        );
      }
      return skipped;
    }
    await this.exec(dropped.statements);
    if (dropped.rebuildsTable) {
      this.report.warnings.push(
        `${table.name} was rebuilt to move its unique keys to live rows (SQLite cannot drop a column's UNIQUE): its rows were copied, its declared indexes and search triggers recreated; indexes or triggers created on it by hand are gone`,
      );
    }
    return skipped;
  }

  /** Columns of a model's existing table that differ from the model: kept as they are, and named. */
  reportDrift(model: ModelMeta, table: TableSpec, columns: readonly ColumnInfo[]): void {
    this.report.warnings.push(...columnDifferences(table, columns, this.dialect, `model ${model.name}`));
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
