import type { Adapter, ColumnInfo } from '../db/adapter.js';
import type { Logger } from '../log/logger.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { buildHistoryTemplates, columnDefinitions, constraintName } from '../sql/templates.js';

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
 */
export async function migrate(adapter: Adapter, models: readonly ModelMeta[], logger: Logger): Promise<MigrationReport> {
  const dialect = adapter.dialect;
  const report: MigrationReport = { createdTables: [], addedColumns: [], warnings: [] };
  const existing = await adapter.introspect();
  const tables = new Map(models.map((m) => [m.name, m.table]));

  for (const model of models) {
    const templates = model.sql(dialect.name);
    const columns = existing.get(model.table);
    if (!columns) {
      await adapter.exec(templates.createTable);
      report.createdTables.push(model.table);
    } else {
      await addMissingColumns(adapter, model, columns, tables, report);
      reportDrift(model, columns, adapter, report);
    }
    for (const statement of templates.createIndexes) await adapter.exec(statement);
    await createHistoryTable(adapter, model, existing, report);
    await createSearchIndex(adapter, model, existing);
  }
  // PostgreSQL checks referenced tables exist, so constraints come after every table.
  for (const model of models) {
    for (const statement of model.sql(dialect.name).foreignKeys) await adapter.exec(statement);
  }
  if (dialect.name === 'postgres') await validateForeignKeys(adapter, models, report);

  for (const warning of report.warnings) logger.warn({ migration: 'drift' }, warning);
  if (report.createdTables.length || report.addedColumns.length) {
    logger.info({ createdTables: report.createdTables, addedColumns: report.addedColumns }, 'migration applied');
  }
  return report;
}

/** The `<model>_history` table of a versioned model: created once, never altered. */
async function createHistoryTable(adapter: Adapter, model: ModelMeta, existing: ReadonlyMap<string, ColumnInfo[]>, report: MigrationReport): Promise<void> {
  const history = buildHistoryTemplates(model.manifest, adapter.dialect);
  if (!history) return;
  if (!existing.has(history.table)) {
    await adapter.exec(history.createTable);
    report.createdTables.push(history.table);
  }
  for (const statement of history.createIndexes) await adapter.exec(statement);
}

/**
 * The full-text index. When the table has rows the index may not have seen
 * (the index or one of its sync triggers did not exist), it is refilled from
 * the table once created.
 */
async function createSearchIndex(adapter: Adapter, model: ModelMeta, existing: Map<string, ColumnInfo[]>): Promise<void> {
  const templates = model.sql(adapter.dialect.name);
  if (!templates.search?.length) return;
  const check = adapter.dialect.searchMissingParts(model.table);
  let stale = false;
  if (templates.searchBackfill && check && existing.has(model.table)) stale = Number((await adapter.raw(check))[0]?.missing ?? 0) > 0;
  for (const statement of templates.search) await adapter.exec(statement);
  if (stale) await adapter.exec(templates.searchBackfill!);
}

async function addMissingColumns(
  adapter: Adapter,
  model: ModelMeta,
  columns: ColumnInfo[],
  tables: ReadonlyMap<string, string>,
  report: MigrationReport,
): Promise<void> {
  const dialect = adapter.dialect;
  const present = new Set(columns.map((c) => c.name));
  for (const [column, definition] of columnDefinitions(model.manifest, tables, dialect)) {
    if (present.has(column)) continue;
    let added = definition;
    let uniqueIndex = false;
    if (dialect.name === 'sqlite') {
      // SQLite cannot add a UNIQUE column, nor a REFERENCES column with a non-null default.
      if (/ UNIQUE\b/.test(added)) {
        added = added.replace(/ UNIQUE\b/, '');
        uniqueIndex = true;
      }
      if (/ REFERENCES /.test(added) && / DEFAULT (?!NULL)/.test(added)) {
        added = added.replace(/ REFERENCES .*$/, '');
        report.warnings.push(
          `${model.table}.${column} was added without its foreign-key constraint (SQLite cannot add one to an existing table with a non-null default); recreate the table to enforce it`,
        );
      }
    }
    await adapter.exec(`ALTER TABLE ${dialect.quote(model.table)} ADD COLUMN ${added}`);
    if (uniqueIndex) {
      await adapter.exec(
        `CREATE UNIQUE INDEX IF NOT EXISTS ${dialect.quote(constraintName('uq', model.table, column))} ON ${dialect.quote(model.table)} (${dialect.quote(column)})`,
      );
    }
    report.addedColumns.push(`${model.table}.${column}`);
  }
}

function reportDrift(model: ModelMeta, columns: ColumnInfo[], adapter: Adapter, report: MigrationReport): void {
  const dialect = adapter.dialect;
  const declared = new Map(model.columns.map((c) => [c.column, c]));
  for (const column of columns) {
    const expected = declared.get(column.name);
    if (!expected) {
      report.warnings.push(
        `${model.table}.${column.name} exists in the database but model ${model.name} does not declare it; it is kept (migration never drops columns)`,
      );
      continue;
    }
    const type = dialect.columnType(expected.field ?? { type: expected.type }).toLowerCase();
    if (column.type !== type) {
      report.warnings.push(`${model.table}.${column.name} is ${column.type} in the database but model ${model.name} declares ${type}; migration does not change column types`);
    }
    const isPrimaryKey = expected.field?.base === 'id';
    if (!isPrimaryKey && column.nullable !== expected.nullable) {
      report.warnings.push(
        `${model.table}.${column.name} is ${column.nullable ? 'NULL' : 'NOT NULL'} in the database but model ${model.name} declares it ${expected.nullable ? 'nullable' : 'not nullable'}; migration does not change nullability`,
      );
    }
  }
}

/**
 * Foreign keys are added NOT VALID (new writes are checked at once); this
 * validates the ones not validated yet, and warns naming table and column
 * when older rows still point at parents that do not exist.
 */
async function validateForeignKeys(adapter: Adapter, models: readonly ModelMeta[], report: MigrationReport): Promise<void> {
  const pending = await adapter.raw(
    `SELECT c.conname AS name, t.relname AS "table" FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
     WHERE c.contype = 'f' AND NOT c.convalidated AND t.relnamespace = current_schema()::regnamespace`,
  );
  const byName = new Map<string, { table: string; column: string }>();
  for (const model of models) {
    for (const relation of model.relations.values()) {
      if (relation.kind === 'belongsTo') byName.set(constraintName('fk', model.table, relation.column), { table: model.table, column: relation.column });
    }
  }
  for (const row of pending) {
    const target = byName.get(String(row.name));
    if (!target || target.table !== row.table) continue;
    try {
      await adapter.exec(`ALTER TABLE ${adapter.dialect.quote(target.table)} VALIDATE CONSTRAINT ${adapter.dialect.quote(String(row.name))}`);
    } catch {
      report.warnings.push(
        `${target.table}.${target.column} has rows whose parent does not exist; the foreign key applies to new writes only until they are fixed (the next migration validates it)`,
      );
    }
  }
}
