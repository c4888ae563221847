import { createHash } from 'node:crypto';
import type { FieldManifest, SqlTemplates } from '../manifest/types.js';
import { absentValue, type ModelShape, storedColumns } from './columns.js';
import type { SqlDialect } from './dialect.js';

/** PostgreSQL truncates identifiers at 63 bytes; long names keep a hash so they stay distinct. */
export function constraintName(...parts: string[]): string {
  const name = parts.join('_');
  if (Buffer.byteLength(name) <= 63) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${Buffer.from(name).subarray(0, 54).toString().replace(/\uFFFD+$/, '')}_${hash}`;
}

/** Condition that keeps only rows that are not soft-deleted, or null for models without soft delete. */
export function notDeleted(model: ModelShape, dialect: SqlDialect, alias?: string): string | null {
  const marker = model.options.softDelete;
  if (!marker) return null;
  const column = (alias ? `${dialect.quote(alias)}.` : '') + dialect.quote(marker.column);
  return marker.type === 'boolean' ? `${column} = ${dialect.bool(false)}` : `${column} IS NULL`;
}

function columnDefinition(
  model: ModelShape,
  dialect: SqlDialect,
  tableOf: (model: string) => string,
  field: FieldManifest | undefined,
  column: string,
  nullable: boolean,
  type: string,
): string {
  const parts = [dialect.quote(column), type];
  if (field?.base === 'id') {
    parts.push('PRIMARY KEY');
    return parts.join(' ');
  }
  if (!nullable) parts.push('NOT NULL');
  // Base timestamps are always written by the runtime, so they carry no default.
  if (field && field.base !== 'created_at' && field.base !== 'updated_at') {
    const value = absentValue(field);
    if (value !== null) parts.push(`DEFAULT ${dialect.literal(value, field.type)}`);
  }
  if (field?.unique) parts.push('UNIQUE');
  if (field?.relation && dialect.inlineForeignKeys) {
    const relation = model.relations.find((r) => r.kind === 'belongsTo' && r.key === field.relation);
    if (relation?.kind === 'belongsTo') parts.push(`REFERENCES ${dialect.quote(tableOf(relation.target))} (${dialect.quote('id')})`);
  }
  return parts.join(' ');
}

function tableLookup(model: ModelShape, tables: ReadonlyMap<string, string>): (name: string) => string {
  return (name) => {
    const table = tables.get(name);
    if (!table) throw new Error(`mfx: relation of ${model.name} targets unknown model ${name}`);
    return table;
  };
}

/** Column name → its DDL definition, in table order (HMAC companions are unique). */
export function columnDefinitions(model: ModelShape, tables: ReadonlyMap<string, string>, dialect: SqlDialect): Map<string, string> {
  const tableOf = tableLookup(model, tables);
  const out = new Map<string, string>();
  for (const c of storedColumns(model)) {
    let definition = columnDefinition(model, dialect, tableOf, c.field, c.column, c.nullable, dialect.columnType(c.field ?? { type: c.type }));
    if (c.hmacOf) definition += ' UNIQUE';
    out.set(c.column, definition);
  }
  return out;
}

/**
 * Every statement template of one model for one dialect.
 *
 * `tables` maps every model name to its table, for foreign-key references.
 */
export function buildSqlTemplates(model: ModelShape, tables: ReadonlyMap<string, string>, dialect: SqlDialect): SqlTemplates {
  const tableOf = tableLookup(model, tables);
  const q = dialect.quote;
  const table = q(model.table);
  const columns = storedColumns(model);
  const selectList = columns.map((c) => q(c.column)).join(', ');
  const live = notDeleted(model, dialect);
  const andLive = live ? ` AND ${live}` : '';

  const definitions = [...columnDefinitions(model, tables, dialect).values()];
  const createTable = `CREATE TABLE IF NOT EXISTS ${table} (\n  ${definitions.join(',\n  ')}\n)`;

  const createIndexes: string[] = [];
  const indexed = new Set<string>();
  const addIndex = (name: string, cols: string[], unique: boolean) => {
    const key = `${unique}:${cols.join(',')}`;
    if (indexed.has(key)) return;
    indexed.add(key);
    createIndexes.push(
      `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${q(constraintName(name))} ON ${table} (${cols.map(q).join(', ')})`,
    );
  };
  for (const field of model.fields) {
    if (field.index && !field.unique) addIndex(`idx_${model.table}_${field.column}`, [field.column], false);
  }
  for (const relation of model.relations) {
    if (relation.kind === 'belongsTo') addIndex(`idx_${model.table}_${relation.column}`, [relation.column], false);
  }
  for (const index of model.options.indices) addIndex(index.name, index.columns, index.unique);

  const foreignKeys: string[] = [];
  if (!dialect.inlineForeignKeys) {
    for (const relation of model.relations) {
      if (relation.kind !== 'belongsTo') continue;
      const name = constraintName('fk', model.table, relation.column);
      // NOT VALID: enforced for every new write at once; rows written before the relation
      // existed are checked by the migration, which warns instead of refusing to start.
      const add = `ALTER TABLE ${table} ADD CONSTRAINT ${q(name)} FOREIGN KEY (${q(relation.column)}) REFERENCES ${q(tableOf(relation.target))} (${q('id')}) NOT VALID`;
      foreignKeys.push(
        `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = '${name.replaceAll("'", "''")}' AND conrelid = '${table.replaceAll("'", "''")}'::regclass) THEN ${add}; END IF; END $$`,
      );
    }
  }

  const insertColumns = columns.map((c) => c.column);
  const insert = `INSERT INTO ${table} (${insertColumns.map(q).join(', ')}) VALUES (${insertColumns
    .map((_, i) => dialect.param(i + 1))
    .join(', ')}) RETURNING ${selectList}`;

  const selectById = `SELECT ${selectList} FROM ${table} WHERE ${q('id')} = ${dialect.param(1)}${andLive}`;

  const updateColumns = columns
    .filter((c) => !c.field?.base || c.field.base === 'updated_at')
    .map((c) => c.column);
  const update = `UPDATE ${table} SET ${updateColumns
    .map((c, i) => `${q(c)} = ${dialect.param(i + 1)}`)
    .join(', ')} WHERE ${q('id')} = ${dialect.param(updateColumns.length + 1)}${andLive} RETURNING ${selectList}`;

  const deleteById = `DELETE FROM ${table} WHERE ${q('id')} = ${dialect.param(1)}`;

  const marker = model.options.softDelete;
  const softDeleteById = marker
    ? `UPDATE ${table} SET ${q(marker.column)} = ${dialect.param(1)}, ${q('updated_at')} = ${dialect.param(2)} WHERE ${q('id')} = ${dialect.param(3)}${andLive}`
    : null;

  const searchable = model.fields.filter((f) => f.searchable && f.type === 'string').map((f) => f.column);
  const search = searchable.length > 0 ? dialect.searchStatements(model.table, searchable) : [];
  const searchBackfill = searchable.length > 0 ? dialect.searchBackfill(model.table) : null;

  return { createTable, createIndexes, foreignKeys, insert, insertColumns, selectById, update, updateColumns, deleteById, softDeleteById, search, searchBackfill };
}

/** The history table of a versioned model: name and DDL for one dialect. */
export interface HistoryTemplates {
  table: string;
  createTable: string;
  createIndexes: string[];
}

/** `BlogPost` → `blog_post`: the history table is named after the model, not pluralised. */
function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** Name of a model's history table: `<snake_case model name>_history`. */
export function historyTableName(model: Pick<ModelShape, 'name'>): string {
  return `${snakeCase(model.name)}_history`;
}

/**
 * DDL of the `<model>_history` table of a versioned model, or null. The
 * unique (record_id, version DESC) index is what concurrent writers collide
 * on; the writer retries when they do.
 */
export function buildHistoryTemplates(model: ModelShape, dialect: SqlDialect): HistoryTemplates | null {
  if (!model.options.versioned) return null;
  const q = dialect.quote;
  const table = historyTableName(model);
  const text = dialect.columnType({ type: 'string' });
  const integer = dialect.columnType({ type: 'integer' });
  const columns = [
    `${q('id')} ${text} PRIMARY KEY`,
    `${q('record_id')} ${text} NOT NULL`,
    `${q('version')} ${integer} NOT NULL`,
    `${q('operation')} ${text} NOT NULL`,
    `${q('actor_id')} ${text}`,
    `${q('timestamp')} ${dialect.timestampType} NOT NULL`,
    `${q('request_id')} ${text}`,
    `${q('diff')} ${text} NOT NULL`,
    `${q('snapshot')} ${text}`,
  ];
  return {
    table,
    createTable: `CREATE TABLE IF NOT EXISTS ${q(table)} (\n  ${columns.join(',\n  ')}\n)`,
    createIndexes: [
      `CREATE UNIQUE INDEX IF NOT EXISTS ${q(constraintName('uq', table, 'record_version'))} ON ${q(table)} (${q('record_id')}, ${q('version')} DESC)`,
    ],
  };
}
