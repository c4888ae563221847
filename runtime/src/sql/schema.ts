import { createHash } from 'node:crypto';
import { fieldRoles } from '../manifest/roles.js';
import type { FieldManifest, FieldType, JsonValue } from '../manifest/types.js';
import { absentValue, HMAC_SUFFIX, type ModelShape, storedColumns } from './columns.js';

/**
 * The database schema as structured data: what a model, a history table or
 * a feature's system table needs. The dialect renders it into DDL
 * (`SqlDialect.createTable`, `addColumn`, ...); nothing ever edits SQL text.
 */

/** A foreign key from a column to `table`.`column`, under the constraint name `name`. */
export interface ForeignKeySpec {
  name: string;
  table: string;
  column: string;
}

export interface ColumnSpec {
  name: string;
  type: FieldType;
  nullable: boolean;
  primaryKey?: boolean;
  /** The DEFAULT clause's value, a constant; absent means no DEFAULT clause. */
  default?: JsonValue;
  unique?: boolean;
  references?: ForeignKeySpec;
  /**
   * The column's previous name (`renamed_from:`): an existing table that
   * has this one and not `name` gets it renamed instead of a new column.
   */
  renamedFrom?: string;
}

/** An index column: its name, or the name and a descending order. */
export type IndexColumn = string | { column: string; descending: true };

/** A soft-delete marker column: a row is live while it is NULL (timestamp) or false (flag). */
export interface LiveMarker {
  column: string;
  type: 'timestamp' | 'boolean';
}

export interface IndexSpec {
  name: string;
  columns: readonly IndexColumn[];
  unique: boolean;
  /**
   * Index live rows only (a partial index `WHERE <marker> IS NULL` or
   * `= false`): on soft-delete models a unique value binds rows that are
   * not soft-deleted, so a deleted record's value is free again.
   */
  liveOnly?: LiveMarker;
  /**
   * Index only rows whose column of this name is not NULL (a partial index
   * `WHERE <column> IS NOT NULL`): for a column most rows leave empty, such
   * as a job's group key, whose rows then cost the index nothing. A query
   * that compares the column with a value (`=`, `IN`) implies it is not
   * NULL, so both databases use the index for it.
   */
  whereNotNull?: string;
}

/**
 * A table: its columns in order and the indexes it needs. Features declare
 * their system tables this way (`app.declareTable`, or `tables` in a hook's
 * `describeHook` metadata); the migration creates them like models' tables.
 *
 * @example
 * const jobs: TableSpec = {
 *   name: 'mfx_jobs',
 *   columns: [{ name: 'id', type: 'string', nullable: false, primaryKey: true }, { name: 'payload', type: 'json_object', nullable: false, default: {} }],
 *   indexes: [],
 * };
 */
export interface TableSpec {
  name: string;
  columns: readonly ColumnSpec[];
  indexes: readonly IndexSpec[];
}

/**
 * Indexes a feature adds to a table a model owns, declared like a system
 * table without columns (`app.declareTable`): the migration creates those
 * the table lacks, on a new table and an existing one alike. For indexes
 * the model directives cannot express, such as the runtime's partial index
 * on its own `job_statuses` (`index:` declares full indexes only).
 *
 * @example
 * app.declareTable(tableIndexes('job_statuses', [{ name: 'ix_job_statuses_completed', columns: ['completed_at'], unique: false, whereNotNull: 'completed_at' }]));
 */
export function tableIndexes(table: string, indexes: readonly IndexSpec[]): TableSpec {
  return { name: table, columns: [], indexes };
}

/**
 * A constraint or index name: PostgreSQL truncates identifiers at 63 bytes,
 * so long names keep a hash and stay distinct.
 *
 * @example
 * constraintName('fk', 'posts', 'authorId') // 'fk_posts_authorId'
 */
export function constraintName(...parts: string[]): string {
  const name = parts.join('_');
  if (Buffer.byteLength(name) <= 63) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${Buffer.from(name).subarray(0, 54).toString().replace(/\uFFFD+$/, '')}_${hash}`;
}

/**
 * The columns of a model's full-text index: exactly the fields the `q` parameter searches (the `searchable` role).
 *
 * @example
 * dialect.searchStatements(model.table, searchColumns(model))
 */
export function searchColumns(model: { readonly fields: readonly FieldManifest[] }): string[] {
  return model.fields.filter((f) => fieldRoles(f).searchable).map((f) => f.column);
}

/**
 * A model's table: every stored column with the default a create that
 * leaves it out gets (base timestamps are always written, so they have
 * none), its unique and foreign-key constraints, and its indexes (declared
 * ones, every scheduled column, every BelongsTo column, and `indices`).
 * `tables` maps every model name to its table, for the references.
 *
 * On a soft-delete model uniqueness binds live rows only: a `unique` field
 * (and the HMAC companion of an `encrypted,unique` one) gets a partial
 * unique index `uq_<table>_<column>` instead of a UNIQUE constraint, and
 * the unique `indices` are partial too (unless they name the marker
 * column themselves).
 *
 * @example
 * dialect.createTable(modelTable(model, new Map([['User', 'users']])));
 */
export function modelTable(model: ModelShape, tables: ReadonlyMap<string, string>): TableSpec {
  const tableOf = (name: string) => {
    const table = tables.get(name);
    if (!table) throw new Error(`mfx: relation of ${model.name} targets unknown model ${name}`);
    return table;
  };
  const marker = model.options.softDelete;
  const live: LiveMarker | undefined = marker ? { column: marker.column, type: marker.type } : undefined;
  const liveUnique: string[] = [];
  const columns = storedColumns(model).map((stored): ColumnSpec => {
    const { field } = stored;
    const column: ColumnSpec = { name: stored.column, type: stored.type, nullable: stored.nullable };
    if (field?.base === 'id') return { ...column, primaryKey: true };
    // An HMAC companion is renamed with its encrypted field.
    const renamedFrom = field ? field.renamedFrom : model.fields.find((f) => f.column === stored.hmacOf)?.renamedFrom;
    if (renamedFrom !== undefined) column.renamedFrom = field ? renamedFrom : renamedFrom + HMAC_SUFFIX;
    if (field && field.base !== 'created_at' && field.base !== 'updated_at') {
      const value = absentValue(field);
      if (value !== null) column.default = value;
    }
    // HMAC companions are the blind index of an `encrypted,unique` field: unique themselves.
    if (field?.unique || stored.hmacOf) {
      if (live) liveUnique.push(stored.column);
      else column.unique = true;
    }
    const relation = field?.relation ? model.relations.find((r) => r.kind === 'belongsTo' && r.key === field.relation) : undefined;
    if (relation?.kind === 'belongsTo') {
      column.references = { name: constraintName('fk', model.table, relation.column), table: tableOf(relation.target), column: 'id' };
    }
    return column;
  });

  const indexes: IndexSpec[] = [];
  const seen = new Set<string>();
  const add = (name: string, names: string[], unique: boolean) => {
    const key = `${unique}:${names.join(',')}`;
    if (seen.has(key)) return;
    seen.add(key);
    const partial = unique && live && !names.includes(live.column);
    indexes.push({ name: constraintName(name), columns: names, unique, ...(partial ? { liveOnly: live } : {}) });
  };
  for (const column of liveUnique) add(`uq_${model.table}_${column}`, [column], true);
  for (const field of model.fields) {
    // The scheduled runner looks for due rows by each scheduled column.
    if ((field.index || field.scheduled) && !field.unique) add(`idx_${model.table}_${field.column}`, [field.column], false);
  }
  for (const relation of model.relations) {
    if (relation.kind === 'belongsTo') add(`idx_${model.table}_${relation.column}`, [relation.column], false);
  }
  for (const index of model.options.indices) add(index.name, index.columns, index.unique);
  return { name: model.table, columns, indexes };
}

/** `BlogPost` → `blog_post`: the history table is named after the model, not pluralised. */
function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/**
 * Name of a model's history table: `<snake_case model name>_history`.
 *
 * @example
 * historyTableName({ name: 'BlogPost' }) // 'blog_post_history'
 */
export function historyTableName(model: Pick<ModelShape, 'name'>): string {
  return `${snakeCase(model.name)}_history`;
}

/**
 * The `<model>_history` table of a versioned model, or null. The unique
 * (record_id, version DESC) index is what concurrent writers collide on;
 * the writer retries when they do.
 *
 * @example
 * const history = historyTable(model.manifest); // { name: 'blog_post_history', ... }
 */
export function historyTable(model: Pick<ModelShape, 'name' | 'options'>): TableSpec | null {
  if (!model.options.versioned) return null;
  const name = historyTableName(model);
  const text = (column: string, nullable = false): ColumnSpec => ({ name: column, type: 'string', nullable });
  return {
    name,
    columns: [
      { ...text('id'), primaryKey: true },
      text('record_id'),
      { name: 'version', type: 'integer', nullable: false },
      text('operation'),
      text('actor_id', true),
      { name: 'timestamp', type: 'timestamp', nullable: false },
      text('request_id', true),
      text('diff'),
      text('snapshot', true),
    ],
    indexes: [{ name: constraintName('uq', name, 'record_version'), columns: ['record_id', { column: 'version', descending: true }], unique: true }],
  };
}
