import type { SqlDialect } from './dialect.js';
import type { ColumnSpec, ForeignKeySpec, IndexSpec, TableSpec } from './schema.js';

/**
 * DDL text the two dialects write alike, from structured specs. Each
 * dialect decides where a foreign key goes (`inlineReferences`: SQLite
 * declares it with the column, PostgreSQL adds it once every table exists).
 */

/**
 * `REFERENCES "table" ("column")`
 *
 * @example
 * referenceClause(sqlite, { name: 'fk_posts_userId', table: 'users', column: 'id' }) // 'REFERENCES "users" ("id")'
 */
export function referenceClause(dialect: SqlDialect, key: ForeignKeySpec): string {
  return `REFERENCES ${dialect.quote(key.table)} (${dialect.quote(key.column)})`;
}

/**
 * One column's definition: name, type, then PRIMARY KEY, or NOT NULL,
 * DEFAULT, UNIQUE and (when inline) REFERENCES.
 *
 * @example
 * columnDefinition(sqlite, { name: 'title', type: 'string', nullable: false, default: '' }, true) // '"title" TEXT NOT NULL DEFAULT \'\''
 */
export function columnDefinition(dialect: SqlDialect, column: ColumnSpec, inlineReferences: boolean): string {
  const parts = [dialect.quote(column.name), dialect.columnType(column.type)];
  if (column.primaryKey) return [...parts, 'PRIMARY KEY'].join(' ');
  if (!column.nullable) parts.push('NOT NULL');
  if (column.default !== undefined) parts.push(`DEFAULT ${dialect.literal(column.default, column.type)}`);
  if (column.unique) parts.push('UNIQUE');
  if (column.references && inlineReferences) parts.push(referenceClause(dialect, column.references));
  return parts.join(' ');
}

/**
 * `CREATE TABLE IF NOT EXISTS`, one column per line.
 *
 * @example
 * createTableStatement(postgres, historyTable(model)!, false)
 */
export function createTableStatement(dialect: SqlDialect, table: TableSpec, inlineReferences: boolean): string {
  const columns = table.columns.map((c) => columnDefinition(dialect, c, inlineReferences));
  return `CREATE TABLE IF NOT EXISTS ${dialect.quote(table.name)} (\n  ${columns.join(',\n  ')}\n)`;
}

/**
 * `CREATE [UNIQUE] INDEX IF NOT EXISTS`
 *
 * @example
 * createIndexStatement(sqlite, 'h', { name: 'uq_h', columns: ['a', { column: 'b', descending: true }], unique: true }) // '... ON "h" ("a", "b" DESC)'
 */
export function createIndexStatement(dialect: SqlDialect, table: string, index: IndexSpec): string {
  const columns = index.columns.map((c) => (typeof c === 'string' ? dialect.quote(c) : `${dialect.quote(c.column)} DESC`));
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${dialect.quote(index.name)} ON ${dialect.quote(table)} (${columns.join(', ')})`;
}

/**
 * `ALTER TABLE "table" ADD COLUMN <definition>`
 *
 * @example
 * addColumnStatement(postgres, 'posts', { name: 'views', type: 'integer', nullable: false, default: 0 }, false)
 */
export function addColumnStatement(dialect: SqlDialect, table: string, column: ColumnSpec, inlineReferences: boolean): string {
  return `ALTER TABLE ${dialect.quote(table)} ADD COLUMN ${columnDefinition(dialect, column, inlineReferences)}`;
}
