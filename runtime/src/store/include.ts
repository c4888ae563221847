import type { Executor, QueryOptions, Row } from '../db/adapter.js';
import { ApiError } from '../errors/api-error.js';
import type { QueryLimits } from '../manifest/types.js';
import type { ScopeFilter } from '../pipeline/context.js';
import type { IncludePath } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import type { SqlDialect } from '../sql/dialect.js';
import { notDeleted } from '../sql/templates.js';
import { decoderFor, type RecordData, TRUNCATED_KEY } from './codec.js';
import { scopeFor, writeScope } from './scope.js';

/** Owner column alias of related rows; not a field name any model can have. */
const OWNER = '__mfx_owner';
/** Position of a related row among its owner's (by id), and how many its owner has: the per-parent cap. */
const POSITION = '__mfx_n';
const SIBLINGS = '__mfx_count';

/** The caps of one response's includes (the request model's query limits). */
export type IncludeLimits = Pick<QueryLimits, 'maxIncludePerParent' | 'maxIncludeRows'>;

/**
 * The related records one response may still carry, counted as they will
 * be sent: a record included under several parents (a tag of many posts)
 * counts once per place it appears, nested levels multiply.
 */
class IncludeBudget {
  private sent = 0;

  constructor(readonly limits: IncludeLimits) {}

  get remaining(): number {
    return Math.max(0, this.limits.maxIncludeRows - this.sent);
  }

  spend(count: number): void {
    this.sent += count;
    if (this.sent > this.limits.maxIncludeRows) {
      throw new ApiError(
        'INVALID_QUERY',
        `include would send more than ${this.limits.maxIncludeRows} related records (query_limits:maxIncludeRows); ask for fewer records with limit, or include fewer relations`,
      );
    }
  }
}

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

/**
 * Loads the included relations of `records` (decoded rows of `model`) and
 * sets each record's relation key to the related records, decoded with every
 * field (the response's projection shows them like any record): one
 * statement per relation and level, whatever the number of records, so
 * never N+1. Soft-deleted and out-of-scope related rows are left out.
 *
 * Bounded by `limits`: a to-many relation carries at most
 * `maxIncludePerParent` records per parent (the first by id; a parent whose
 * list was cut names the key in its `_truncated` list), counted by a window
 * function in the same statement; and the response at most `maxIncludeRows`
 * related records, or the request is 400 `INVALID_QUERY`. Each statement is
 * limited to what the response may still carry, so an oversized include is
 * refused without being read.
 *
 * @example
 * await loadIncludes(db, dialect, posts, records, [['author'], ['author', 'company'], ['comments']], scope, posts.queryLimits);
 */
export async function loadIncludes(
  db: Executor,
  dialect: SqlDialect,
  model: ModelMeta,
  records: RecordData[],
  paths: readonly IncludePath[],
  scope: readonly ScopeFilter[] | undefined,
  limits: IncludeLimits,
  options: QueryOptions = {},
): Promise<void> {
  if (records.length === 0 || paths.length === 0) return;
  const weights = new Map(records.map((record) => [record, 1]));
  await loadLevel({ db, dialect, scope, budget: new IncludeBudget(limits), options }, model, records, weights, paths);
}

interface Loading {
  db: Executor;
  dialect: SqlDialect;
  scope: readonly ScopeFilter[] | undefined;
  budget: IncludeBudget;
  options: QueryOptions;
}

/** One level of includes; `weights` says how many times each record appears in the response. */
async function loadLevel(run: Loading, model: ModelMeta, records: RecordData[], weights: Map<RecordData, number>, paths: readonly IncludePath[]): Promise<void> {
  const { dialect, budget } = run;
  const perParent = budget.limits.maxIncludePerParent;
  for (const [key, nested] of tree(paths)) {
    const { relation, target, through } = model.target(key)!;
    const decode = decoderFor(target, dialect.name);
    const ownerOf = (record: RecordData) => (relation.kind === 'belongsTo' ? record[relation.field] : record.id);
    // How many times each owner's related records will be sent: the sum of the weights of the records that share it.
    const ownerWeights = new Map<string, number>();
    for (const record of records) {
      const owner = ownerOf(record);
      if (typeof owner === 'string') ownerWeights.set(owner, (ownerWeights.get(owner) ?? 0) + (weights.get(record) ?? 1));
    }
    if (ownerWeights.size === 0) {
      for (const record of records) record[key] = relation.kind === 'belongsTo' ? null : [];
      continue;
    }
    const owners = [...ownerWeights.keys()];
    const sql = new SqlBuilder(dialect);
    const r = 'r';
    if (relation.kind === 'belongsTo') {
      // At most one parent per record: nothing to cap per parent.
      selectColumns(sql, target, r);
      sql.text(', ').column(r, 'id').text(' AS ').id(OWNER);
      sql.text(' FROM ').id(target.table).text(' ').id(r).text(' WHERE ');
      dialect.inTextValues(sql, `${dialect.quote(r)}.${dialect.quote('id')}`, owners);
      writeLive(sql, target, r, dialect);
      writeScope(sql, target, scopeFor(target, run.scope, false), r);
      sql.text(' ORDER BY ').column(r, 'id');
    } else {
      // The related rows numbered per owner, in the statement that reads them: the cap costs no extra round trip.
      const w = 'w';
      const ownerColumn = relation.kind === 'hasMany' ? [r, relation.remoteColumn] : ['j', relation.localColumn];
      const writeOwner = (s: SqlBuilder) => s.column(ownerColumn[0], ownerColumn[1]);
      sql.text('SELECT ').join(target.fields, ', ', (f, s) => s.column(w, f.column));
      sql.text(', ').column(w, OWNER).text(', ').column(w, SIBLINGS).text(' FROM (');
      selectColumns(sql, target, r);
      sql.text(', ');
      writeOwner(sql);
      sql.text(' AS ').id(OWNER).text(', ROW_NUMBER() OVER (PARTITION BY ');
      writeOwner(sql);
      sql.text(' ORDER BY ').column(r, 'id').text(') AS ').id(POSITION).text(', COUNT(*) OVER (PARTITION BY ');
      writeOwner(sql);
      sql.text(') AS ').id(SIBLINGS);
      if (relation.kind === 'hasMany') {
        sql.text(' FROM ').id(target.table).text(' ').id(r).text(' WHERE ');
      } else {
        sql.text(' FROM ').id(relation.throughTable).text(' ').id('j').text(' JOIN ').id(target.table).text(' ').id(r);
        sql.text(' ON ').column(r, 'id').text(' = ').column('j', relation.targetColumn).text(' WHERE ');
      }
      dialect.inTextValues(sql, `${dialect.quote(ownerColumn[0])}.${dialect.quote(ownerColumn[1])}`, owners);
      if (through) {
        writeLive(sql, through, 'j', dialect);
        writeScope(sql, through, scopeFor(through, run.scope, false), 'j');
      }
      writeLive(sql, target, r, dialect);
      writeScope(sql, target, scopeFor(target, run.scope, false), r);
      sql.text(') ').id(w).text(' WHERE ').column(w, POSITION).text(' <= ').value(perParent);
      // One row past what the response may still carry is enough to know it would carry too much.
      sql.text(' ORDER BY ').column(w, 'id').text(' LIMIT ').value(budget.remaining + 1);
    }

    const rows = await run.db.all(sql.sql, sql.params, run.options);
    const related = new Map<unknown, RecordData[]>();
    const cut = new Set<unknown>();
    const all: RecordData[] = [];
    const byId = new Map<unknown, RecordData>();
    const nextWeights = new Map<RecordData, number>();
    let sent = 0;
    for (const row of rows as Row[]) {
      // The same related row reached twice (many-to-many) is decoded once, so nested includes load once.
      let record = byId.get(row.id);
      if (!record) {
        record = decode(row);
        byId.set(row.id, record);
        all.push(record);
      }
      const owner = row[OWNER];
      if (Number(row[SIBLINGS]) > perParent) cut.add(owner);
      const list = related.get(owner) ?? [];
      list.push(record);
      related.set(owner, list);
      const weight = ownerWeights.get(owner as string) ?? 0;
      sent += weight;
      nextWeights.set(record, (nextWeights.get(record) ?? 0) + weight);
    }
    budget.spend(sent);
    await loadLevel(run, target, all, nextWeights, nested);

    for (const record of records) {
      const owner = ownerOf(record);
      const found = related.get(owner) ?? [];
      record[key] = relation.kind === 'belongsTo' ? (found[0] ?? null) : found;
      if (cut.has(owner)) record[TRUNCATED_KEY] = [...((record[TRUNCATED_KEY] as string[] | undefined) ?? []), key];
    }
  }
}
