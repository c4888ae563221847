import type { SqlTemplates } from '../manifest/types.js';
import { type ModelShape, storedColumns } from './columns.js';
import { liveCondition } from './ddl.js';
import type { SqlDialect } from './dialect.js';
import { historyTable, modelTable, searchColumns } from './schema.js';

/** Condition that keeps only rows that are not soft-deleted, or null for models without soft delete. */
export function notDeleted(model: ModelShape, dialect: SqlDialect, alias?: string): string | null {
  const marker = model.options.softDelete;
  return marker ? liveCondition(dialect, marker, alias) : null;
}

/**
 * Every statement template of one model for one dialect. The DDL is the
 * dialect's rendering of `modelTable`, the spec the migration works from.
 *
 * `tables` maps every model name to its table, for foreign-key references.
 *
 * @example
 * buildSqlTemplates(model, new Map([['Post', 'posts'], ['User', 'users']]), sqlite).insert
 */
export function buildSqlTemplates(model: ModelShape, tables: ReadonlyMap<string, string>, dialect: SqlDialect): SqlTemplates {
  const q = dialect.quote;
  const table = q(model.table);
  const spec = modelTable(model, tables);
  const columns = storedColumns(model);
  const selectList = columns.map((c) => q(c.column)).join(', ');
  const live = notDeleted(model, dialect);
  const andLive = live ? ` AND ${live}` : '';

  const createTable = dialect.createTable(spec);
  const createIndexes = spec.indexes.map((index) => dialect.createIndex(spec.name, index));
  const foreignKeys = spec.columns.flatMap((c) => (c.references ? dialect.addForeignKey(spec.name, c.name, c.references) : []));

  const insertColumns = columns.map((c) => c.column);
  const insert = `INSERT INTO ${table} (${insertColumns.map(q).join(', ')}) VALUES (${insertColumns
    .map((_, i) => dialect.param(i + 1))
    .join(', ')}) RETURNING ${selectList}`;

  const selectById = `SELECT ${selectList} FROM ${table} WHERE ${q('id')} = ${dialect.param(1)}${andLive}`;

  const deleteById = `DELETE FROM ${table} WHERE ${q('id')} = ${dialect.param(1)}`;

  const marker = model.options.softDelete;
  const softDeleteById = marker
    ? `UPDATE ${table} SET ${q(marker.column)} = ${dialect.param(1)}, ${q('updated_at')} = ${dialect.param(2)} WHERE ${q('id')} = ${dialect.param(3)}${andLive}`
    : null;

  const searchable = searchColumns(model);
  const search = searchable.length > 0 ? dialect.searchStatements(model.table, searchable) : [];
  const searchBackfill = searchable.length > 0 ? dialect.searchBackfill(model.table) : null;

  return { createTable, createIndexes, foreignKeys, insert, insertColumns, selectById, deleteById, softDeleteById, search, searchBackfill };
}

/** The history table of a versioned model: name and DDL for one dialect. */
export interface HistoryTemplates {
  table: string;
  createTable: string;
  createIndexes: string[];
}

/**
 * DDL of the `<model>_history` table of a versioned model, or null: the
 * dialect's rendering of `historyTable`.
 *
 * @example
 * buildHistoryTemplates(model, postgres)?.createTable
 */
export function buildHistoryTemplates(model: ModelShape, dialect: SqlDialect): HistoryTemplates | null {
  const spec = historyTable(model);
  if (!spec) return null;
  return { table: spec.name, createTable: dialect.createTable(spec), createIndexes: spec.indexes.map((index) => dialect.createIndex(spec.name, index)) };
}
