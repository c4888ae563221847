import type { SqlDialect } from './dialect.js';
import type { ColumnSpec, ForeignKeySpec, IndexSpec, LiveMarker, TableSpec } from './schema.js';

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
 * The condition a live row meets: its soft-delete marker is NULL
 * (timestamp) or false (flag). Read queries and partial unique indexes
 * spell it the same way.
 *
 * @example
 * liveCondition(postgres, { column: 'is_deleted', type: 'boolean' }, 'r') // '"r"."is_deleted" = FALSE'
 */
export function liveCondition(dialect: SqlDialect, marker: LiveMarker, alias?: string): string {
  const column = (alias ? `${dialect.quote(alias)}.` : '') + dialect.quote(marker.column);
  return marker.type === 'boolean' ? `${column} = ${dialect.bool(false)}` : `${column} IS NULL`;
}

/**
 * `CREATE [UNIQUE] INDEX IF NOT EXISTS`, partial (`WHERE <live>`) when the index binds live rows only.
 *
 * @example
 * createIndexStatement(sqlite, 'h', { name: 'uq_h', columns: ['a', { column: 'b', descending: true }], unique: true }) // '... ON "h" ("a", "b" DESC)'
 */
export function createIndexStatement(dialect: SqlDialect, table: string, index: IndexSpec): string {
  const columns = index.columns.map((c) => (typeof c === 'string' ? dialect.quote(c) : `${dialect.quote(c.column)} DESC`));
  const where = index.liveOnly ? ` WHERE ${liveCondition(dialect, index.liveOnly)}` : '';
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${dialect.quote(index.name)} ON ${dialect.quote(table)} (${columns.join(', ')})${where}`;
}

/**
 * A query answering one row when live rows of `table` share a value of the
 * index's columns (NULLs never collide), none otherwise: whether the unique
 * index can be created.
 *
 * @example
 * liveDuplicatesQuery(sqlite, 'customers', { name: 'uq_customers_email', columns: ['email'], unique: true, liveOnly: marker })
 */
export function liveDuplicatesQuery(dialect: SqlDialect, table: string, index: IndexSpec): string {
  const columns = index.columns.map((c) => dialect.quote(typeof c === 'string' ? c : c.column));
  const conditions = [...(index.liveOnly ? [liveCondition(dialect, index.liveOnly)] : []), ...columns.map((c) => `${c} IS NOT NULL`)];
  return `SELECT 1 AS duplicated FROM ${dialect.quote(table)} WHERE ${conditions.join(' AND ')} GROUP BY ${columns.join(', ')} HAVING COUNT(*) > 1 LIMIT 1`;
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
