import type { Executor, QueryOptions, Row } from '../db/adapter.js';
import type { ScopeFilter } from '../pipeline/context.js';
import type { IncludePath } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import type { SqlDialect } from '../sql/dialect.js';
import { notDeleted } from '../sql/templates.js';
import { decoderFor, type RecordData } from './codec.js';
import { scopeFor, writeScope } from './scope.js';

/** Owner column alias of many-to-many rows; not a field name any model can have. */
const OWNER = '__mfx_owner';

/** `include` paths as a tree: relation key → nested keys. */
function tree(paths: readonly IncludePath[]): Map<string, IncludePath[]> {
  const out = new Map<string, IncludePath[]>();
  for (const [head, ...rest] of paths) {
    const nested = out.get(head) ?? [];
    if (rest.length > 0) nested.push(rest);
    out.set(head, nested);
  }
  return out;
}

function selectColumns(sql: SqlBuilder, model: ModelMeta, alias: string): void {
  sql.text('SELECT ').join(model.fields, ', ', (f, s) => s.column(alias, f.column));
}

function writeLive(sql: SqlBuilder, model: ModelMeta, alias: string, dialect: SqlDialect): void {
  const live = notDeleted(model.manifest, dialect, alias);
  if (live) sql.text(` AND ${live}`);
}

const unique = (values: unknown[]): string[] => [...new Set(values.filter((v): v is string => typeof v === 'string'))];

/**
 * Loads the included relations of `records` (decoded rows of `model`) and
 * sets each record's relation key to the related records, decoded with every
 * field (the response's projection shows them like any record): one
 * statement per relation and level, whatever the number of records, so
 * never N+1. Soft-deleted and out-of-scope related rows are left out.
 *
 * @example
 * await loadIncludes(db, dialect, posts, records, [['author'], ['author', 'company'], ['comments']], scope);
 */
export async function loadIncludes(
  db: Executor,
  dialect: SqlDialect,
  model: ModelMeta,
  records: RecordData[],
  paths: readonly IncludePath[],
  scope: readonly ScopeFilter[] | undefined,
  options: QueryOptions = {},
): Promise<void> {
  if (records.length === 0 || paths.length === 0) return;
  for (const [key, nested] of tree(paths)) {
    const { relation, target, through } = model.target(key)!;
    const decode = decoderFor(target, dialect.name);
    const sql = new SqlBuilder(dialect);
    const r = 'r';
    let keyOf: (row: Row) => unknown;
    let ownersOf: (record: RecordData) => unknown;
    if (relation.kind === 'belongsTo') {
      const ids = unique(records.map((rec) => rec[relation.field]));
      if (ids.length === 0) {
        for (const record of records) record[key] = null;
        continue;
      }
      selectColumns(sql, target, r);
      sql.text(' FROM ').id(target.table).text(' ').id(r).text(' WHERE ');
      dialect.inTextValues(sql, `${dialect.quote(r)}.${dialect.quote('id')}`, ids);
      keyOf = (row) => row.id;
      ownersOf = (record) => record[relation.field];
    } else if (relation.kind === 'hasMany') {
      selectColumns(sql, target, r);
      sql.text(' FROM ').id(target.table).text(' ').id(r).text(' WHERE ');
      dialect.inTextValues(sql, `${dialect.quote(r)}.${dialect.quote(relation.remoteColumn)}`, unique(records.map((rec) => rec.id)));
      keyOf = (row) => row[relation.remoteColumn];
      ownersOf = (record) => record.id;
    } else {
      const j = 'j';
      selectColumns(sql, target, r);
      sql.text(', ').column(j, relation.localColumn).text(' AS ').id(OWNER);
      sql.text(' FROM ').id(relation.throughTable).text(' ').id(j).text(' JOIN ').id(target.table).text(' ').id(r);
      sql.text(' ON ').column(r, 'id').text(' = ').column(j, relation.targetColumn).text(' WHERE ');
      dialect.inTextValues(sql, `${dialect.quote(j)}.${dialect.quote(relation.localColumn)}`, unique(records.map((rec) => rec.id)));
      writeLive(sql, through!, j, dialect);
      writeScope(sql, through!, scopeFor(through!, scope, false), j);
      keyOf = (row) => row[OWNER];
      ownersOf = (record) => record.id;
    }
    writeLive(sql, target, r, dialect);
    writeScope(sql, target, scopeFor(target, scope, false), r);
    sql.text(' ORDER BY ').column(r, 'id');

    const rows = await db.all(sql.sql, sql.params, options);
    const related = new Map<unknown, RecordData[]>();
    const all: RecordData[] = [];
    const byId = new Map<unknown, RecordData>();
    for (const row of rows) {
      // The same related row reached twice (many-to-many) is decoded once, so nested includes load once.
      let record = byId.get(row.id);
      if (!record) {
        record = decode(row);
        byId.set(row.id, record);
        all.push(record);
      }
      const owner = keyOf(row);
      const list = related.get(owner) ?? [];
      list.push(record);
      related.set(owner, list);
    }
    await loadIncludes(db, dialect, target, all, nested, scope, options);

    for (const record of records) {
      const found = related.get(ownersOf(record)) ?? [];
      record[key] = relation.kind === 'belongsTo' ? (found[0] ?? null) : found;
    }
  }
}
