import type { Executor, QueryOptions } from '../db/adapter.js';
import { ApiError } from '../errors/api-error.js';
import type { ScopeFilter } from '../pipeline/context.js';
import { coerceScalar, coerceValue, OPERATORS } from '../query/operators.js';
import type { FilterOp } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import type { SqlDialect } from '../sql/dialect.js';
import { notDeleted } from '../sql/templates.js';
import { decoderFor, type RecordData } from './codec.js';
import { scopeFor, writeScope } from './scope.js';

/** One condition of a tree query: any filter operator on a field of the model itself. */
export interface TreeCondition {
  /** JSON or column name; nested-relation paths are not supported. */
  field: string;
  operator: FilterOp;
  /** The value as in a URL filter (`'a,b'` for in), or already typed (a number, a list). */
  value?: unknown;
}

/**
 * A tree query (the spec's RecursiveQuery): the rows reachable from `rootId`
 * through `parentField`, each with `_depth` (0 is the root), ordered by depth.
 */
export interface RecursiveQuery {
  /** Id of the row to start from (required). */
  rootId: string;
  /** The field that holds the parent's id, e.g. `parentId` (required). */
  parentField: string;
  /** `descendants` (default) walks down to children; `ancestors` up to parents. */
  direction?: 'descendants' | 'ancestors';
  /** How many levels below (or above) the root: 0 or absent means 100, negative means unlimited. */
  maxDepth?: number;
  /** Conditions on every row, root included; a row that fails one stops the walk through it. */
  where?: TreeCondition[];
}

/** A row of a tree query: every field (JSON names) plus its depth. */
export type TreeRow = RecordData & { _depth: number };

export const DEFAULT_TREE_DEPTH = 100;

const invalid = (message: string) => new ApiError('INVALID_QUERY', message);

function conditionValue(model: ModelMeta, condition: TreeCondition): { column: string; write: (sql: SqlBuilder, column: string) => void } {
  if (condition.field.includes('.')) throw invalid(`tree query condition on ${condition.field}: nested-relation filters are not supported in tree queries`);
  const field = model.field(condition.field);
  if (!field) throw invalid(`tree query condition names ${condition.field}, which is not a field of ${model.name}`);
  const row = OPERATORS.get(condition.operator);
  if (!row) throw invalid(`tree query condition on ${condition.field} has unknown operator ${condition.operator}`);
  const raw = condition.value;
  let value: unknown;
  if (raw === undefined || raw === null) value = coerceValue(row, field, undefined, field.name);
  else if (Array.isArray(raw)) value = raw.map((v) => coerceScalar(field.type, String(v), field.name));
  else value = coerceValue(row, field, String(raw), field.name);
  return { column: field.column, write: (sql, column) => row.write(sql, column, value, field) };
}

/**
 * Runs a tree query with one recursive statement. A parent cycle is not an
 * error: each row comes back once, at its smallest depth. Soft-deleted rows
 * and rows outside the scope are left out and end the walk there.
 *
 * @example
 * const rows = await recursiveQuery(db, app.registry.get('Category')!, { rootId, parentField: 'parentId', maxDepth: 3 });
 */
export async function recursiveQuery(
  db: Executor,
  model: ModelMeta,
  query: RecursiveQuery,
  options: QueryOptions & { scope?: readonly ScopeFilter[] } = {},
): Promise<TreeRow[]> {
  const dialect: SqlDialect = db.dialect;
  if (!query.rootId) throw invalid('tree query needs rootId');
  const parent = model.field(query.parentField ?? '');
  if (!parent) throw invalid(`tree query parentField ${query.parentField} is not a field of ${model.name}`);
  const direction = query.direction ?? 'descendants';
  if (direction !== 'descendants' && direction !== 'ancestors') throw invalid(`tree query direction must be descendants or ancestors, got ${direction}`);
  const maxDepth = !query.maxDepth ? DEFAULT_TREE_DEPTH : query.maxDepth < 0 ? null : Math.floor(query.maxDepth);
  const conditions = (query.where ?? []).map((c) => conditionValue(model, c));

  const q = dialect.quote;
  const col = (alias: string, column: string) => `${q(alias)}.${q(column)}`;
  const filters = (sql: SqlBuilder, alias: string) => {
    const live = notDeleted(model.manifest, dialect, alias);
    if (live) sql.text(` AND ${live}`);
    writeScope(sql, model, scopeFor(model, options.scope, true), alias);
    for (const c of conditions) {
      sql.text(' AND ');
      c.write(sql, col(alias, c.column));
    }
  };

  // path holds ",id1,id2," so a row already on the path is not visited again (cycles end).
  const sql = new SqlBuilder(dialect).text(`WITH RECURSIVE ${q('walk')} (${q('id')}, ${q('parent')}, ${q('depth')}, ${q('path')}) AS (`);
  sql.text(`SELECT ${col('a', 'id')}, ${col('a', parent.column)}, 0, ',' || ${col('a', 'id')} || ',' FROM ${q(model.table)} ${q('a')} WHERE ${col('a', 'id')} = `).value(query.rootId);
  filters(sql, 'a');
  sql.text(` UNION ALL SELECT ${col('c', 'id')}, ${col('c', parent.column)}, ${col('w', 'depth')} + 1, ${col('w', 'path')} || ${col('c', 'id')} || ','`);
  sql.text(` FROM ${q(model.table)} ${q('c')} JOIN ${q('walk')} ${q('w')} ON `);
  sql.text(direction === 'descendants' ? `${col('c', parent.column)} = ${col('w', 'id')}` : `${col('c', 'id')} = ${col('w', 'parent')}`);
  sql.text(' WHERE ');
  dialect.textPosition(sql, col('w', 'path'), `',' || ${col('c', 'id')} || ','`);
  sql.text(' = 0');
  if (maxDepth !== null) sql.text(` AND ${col('w', 'depth')} < `).value(maxDepth);
  filters(sql, 'c');
  sql.text(`) SELECT `).join(model.fields, ', ', (f, s) => s.text(col('t', f.column)));
  sql.text(`, ${col('d', 'depth')} AS ${q('_depth')} FROM (SELECT ${q('id')}, MIN(${q('depth')}) AS ${q('depth')} FROM ${q('walk')} GROUP BY ${q('id')}) ${q('d')}`);
  sql.text(` JOIN ${q(model.table)} ${q('t')} ON ${col('t', 'id')} = ${col('d', 'id')} ORDER BY ${col('d', 'depth')}, ${col('t', 'id')}`);

  const decode = decoderFor(model, dialect.name);
  const rows = await db.all(sql.sql, sql.params, options);
  return rows.map((row) => ({ ...decode(row), _depth: Number(row._depth) }));
}
