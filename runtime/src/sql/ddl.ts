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
 * `CREATE [UNIQUE] INDEX IF NOT EXISTS`, partial (`WHERE <live>`, `WHERE <column> IS NOT NULL`, or both)
 * when the index binds live rows only or skips rows without a value.
 *
 * @example
 * createIndexStatement(sqlite, 'h', { name: 'uq_h', columns: ['a', { column: 'b', descending: true }], unique: true }) // '... ON "h" ("a", "b" DESC)'
 * createIndexStatement(sqlite, 'jobs', { name: 'ix_g', columns: ['g'], unique: false, whereNotNull: 'g' }) // '... ON "jobs" ("g") WHERE "g" IS NOT NULL'
 */
export function createIndexStatement(dialect: SqlDialect, table: string, index: IndexSpec): string {
  const columns = index.columns.map((c) => (typeof c === 'string' ? dialect.quote(c) : `${dialect.quote(c.column)} DESC`));
  const conditions = [...(index.liveOnly ? [liveCondition(dialect, index.liveOnly)] : []), ...(index.whereNotNull ? [`${dialect.quote(index.whereNotNull)} IS NOT NULL`] : [])];
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${dialect.quote(index.name)} ON ${dialect.quote(table)} (${columns.join(', ')})${where}`;
}

/**
 * A query answering one row when live rows of `table` share a value of
 * `columns` (NULLs never collide), none otherwise: whether a unique index
 * over them can be created. `marker` limits it to live rows (null: every row
 * is live). With no columns, whether there are two live rows at all: the
 * columns a migration is about to add hold one default on every row.
 *
 * @example
 * liveDuplicatesQuery(sqlite, 'customers', ['email'], { column: 'deleted_at', type: 'timestamp' })
 */
export function liveDuplicatesQuery(dialect: SqlDialect, table: string, columns: readonly string[], marker: LiveMarker | null): string {
  const quoted = columns.map((c) => dialect.quote(c));
  const conditions = [...(marker ? [liveCondition(dialect, marker)] : []), ...quoted.map((c) => `${c} IS NOT NULL`)];
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  if (quoted.length === 0) return `SELECT 1 AS duplicated FROM (SELECT COUNT(*) AS n FROM ${dialect.quote(table)}${where}) counted WHERE n > 1`;
  return `SELECT 1 AS duplicated FROM ${dialect.quote(table)}${where} GROUP BY ${quoted.join(', ')} HAVING COUNT(*) > 1 LIMIT 1`;
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

/**
 * `ALTER TABLE "table" RENAME COLUMN "from" TO "to"`: the same on both databases, which carry the column's data, constraints and indexes over.
 *
 * @example
 * renameColumnStatement(postgres, 'posts', 'title', 'headline')
 */
export function renameColumnStatement(dialect: SqlDialect, table: string, from: string, to: string): string {
  return `ALTER TABLE ${dialect.quote(table)} RENAME COLUMN ${dialect.quote(from)} TO ${dialect.quote(to)}`;
}

/**
 * `ALTER TABLE "table" DROP COLUMN "column"`: only ever suggested to a person, never run by the migration.
 *
 * @example
 * dropColumnStatement(sqlite, 'posts', 'legacy') // 'ALTER TABLE "posts" DROP COLUMN "legacy"'
 */
export function dropColumnStatement(dialect: SqlDialect, table: string, column: string): string {
  return `ALTER TABLE ${dialect.quote(table)} DROP COLUMN ${dialect.quote(column)}`;
}
