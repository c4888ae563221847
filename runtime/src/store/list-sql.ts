import type { ScopeFilter } from '../pipeline/context.js';
import { OPERATORS } from '../query/operators.js';
import type { FilterClause, ListQuery, SortKey } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { SqlBuilder } from '../sql/builder.js';
import { notDeleted } from '../sql/templates.js';
import { writeLocalizedClause } from '../locale/query.js';
import { scopeFor, writeScope } from './scope.js';

/** The alias of the listed table in every list statement. */
export const ROOT = 't';

/** A keyset position: the last row's cursor-field value and id, and the direction of the walk. */
export interface KeysetPosition {
  value: unknown;
  id: string;
}

export interface Keyset {
  field: string;
  direction: 'asc' | 'desc';
  after: KeysetPosition | null;
}

/** Hands out distinct table aliases within one statement. */
class Aliases {
  private n = 0;
  next(prefix: string): string {
    this.n += 1;
    return `${prefix}${this.n}`;
  }
}

const qualified = (sql: SqlBuilder, alias: string, column: string) => `${sql.dialect.quote(alias)}.${sql.dialect.quote(column)}`;

/** ` AND <alias> is live` for soft-delete models. */
function writeLive(sql: SqlBuilder, model: ModelMeta, alias: string): void {
  const live = notDeleted(model.manifest, sql.dialect, alias);
  if (live) sql.text(` AND ${live}`);
}

/** One clause on `alias` of `model`: the operator itself, or EXISTS through the next relation of its path. */
function writeClause(sql: SqlBuilder, model: ModelMeta, alias: string, clause: FilterClause, depth: number, scope: readonly ScopeFilter[] | undefined, aliases: Aliases): void {
  if (depth === clause.path.length) {
    const operator = OPERATORS.get(clause.op)!;
    const column = qualified(sql, alias, clause.field.column);
    // Localized fields read one key of their map, or the raw column as text (runtime/src/locale).
    if (clause.field.type === 'localized') writeLocalizedClause(sql, column, clause, (text) => operator.write(sql, text, clause.value, clause.field));
    else operator.write(sql, column, clause.value, clause.field);
    return;
  }
  const { relation, target, through } = model.target(clause.path[depth])!;
  const r = aliases.next('r');
  if (relation.kind === 'manyToMany') {
    const j = aliases.next('j');
    sql.text('EXISTS (SELECT 1 FROM ').id(relation.throughTable).text(' ').id(j).text(' JOIN ').id(target.table).text(' ').id(r);
    sql.text(` ON ${qualified(sql, r, 'id')} = ${qualified(sql, j, relation.targetColumn)}`);
    sql.text(` WHERE ${qualified(sql, j, relation.localColumn)} = ${qualified(sql, alias, 'id')}`);
    writeLive(sql, through!, j);
    writeScope(sql, through!, scopeFor(through!, scope, false), j);
  } else {
    sql.text('EXISTS (SELECT 1 FROM ').id(target.table).text(' ').id(r);
    if (relation.kind === 'belongsTo') sql.text(` WHERE ${qualified(sql, r, 'id')} = ${qualified(sql, alias, relation.column)}`);
    else sql.text(` WHERE ${qualified(sql, r, relation.remoteColumn)} = ${qualified(sql, alias, 'id')}`);
  }
  writeLive(sql, target, r);
  writeScope(sql, target, scopeFor(target, scope, false), r);
  sql.text(' AND ');
  writeClause(sql, target, r, clause, depth + 1, scope, aliases);
  sql.text(')');
}

/** Whether a filter names the model's own soft-delete marker: then deleted rows are asked for. */
function asksForDeleted(model: ModelMeta, filters: readonly FilterClause[]): boolean {
  const marker = model.options.softDelete;
  return marker !== null && filters.some((f) => f.path.length === 0 && f.field.column === marker.column);
}

/**
 * The words of a search text (`q`, global search): runs of letters and
 * digits; everything else separates them and is never query syntax.
 *
 * @example
 * searchWords('"budget" AND seeds*'); // ['budget', 'AND', 'seeds']
 */
export function searchWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

export interface WhereInput {
  query: ListQuery;
  scope: readonly ScopeFilter[] | undefined;
  keyset: Keyset | null;
}

/**
 * ` WHERE ...` of a list: live rows (unless the marker is filtered), scope,
 * bare filters ANDed, `filter[N]` groups ORed inside and ANDed together,
 * full-text search and the keyset position.
 */
export function writeWhere(sql: SqlBuilder, model: ModelMeta, { query, scope, keyset }: WhereInput): void {
  const aliases = new Aliases();
  sql.text(' WHERE 1 = 1');
  if (!asksForDeleted(model, query.filters)) writeLive(sql, model, ROOT);
  writeScope(sql, model, scopeFor(model, scope, true), ROOT);

  const groups = new Map<number, FilterClause[]>();
  for (const clause of query.filters) {
    if (clause.group === 0) {
      sql.text(' AND ');
      writeClause(sql, model, ROOT, clause, 0, scope, aliases);
    } else {
      const members = groups.get(clause.group) ?? [];
      members.push(clause);
      groups.set(clause.group, members);
    }
  }
  for (const members of groups.values()) {
    sql.text(' AND (').join(members, ' OR ', (clause, s) => writeClause(s, model, ROOT, clause, 0, scope, aliases)).text(')');
  }

  if (query.q !== null) {
    const words = searchWords(query.q);
    const columns = model.fieldsWith('searchable').map((f) => f.column);
    // Nothing searchable in the text (only punctuation): nothing matches.
    if (words.length === 0) sql.text(' AND 1 = 0');
    else {
      sql.text(' AND ');
      sql.dialect.searchMatch(sql, model.table, ROOT, columns, words);
    }
  }

  if (keyset?.after) {
    const column = qualified(sql, ROOT, model.field(keyset.field)!.column);
    const id = qualified(sql, ROOT, 'id');
    const cmp = keyset.direction === 'asc' ? '>' : '<';
    sql.text(` AND (${column} ${cmp} `).value(keyset.after.value);
    sql.text(` OR (${column} = `).value(keyset.after.value).text(` AND ${id} ${cmp} `).value(keyset.after.id).text('))');
  }
}

/** LEFT JOINs for sorts through belongsTo relations, keyed by path; their aliases for ORDER BY. */
export function writeSortJoins(sql: SqlBuilder, model: ModelMeta, sorts: readonly SortKey[], scope: readonly ScopeFilter[] | undefined): Map<string, string> {
  const joined = new Map<string, string>([['', ROOT]]);
  let n = 0;
  for (const sort of sorts) {
    let owner = model;
    let key = '';
    for (const step of sort.path) {
      const parentAlias = joined.get(key)!;
      key = key ? `${key}.${step}` : step;
      const { relation, target } = owner.target(step)!;
      if (!joined.has(key) && relation.kind === 'belongsTo') {
        n += 1;
        const alias = `s${n}`;
        sql.text(' LEFT JOIN ').id(target.table).text(' ').id(alias);
        sql.text(` ON ${qualified(sql, alias, 'id')} = ${qualified(sql, parentAlias, relation.column)}`);
        writeLive(sql, target, alias);
        writeScope(sql, target, scopeFor(target, scope, false), alias);
        joined.set(key, alias);
      }
      owner = target;
    }
  }
  return joined;
}

/**
 * ` ORDER BY ...`: the sort keys left to right, NULLs last ascending and
 * first descending on both databases, then id so pages never overlap.
 * Keyset paging orders by its field and id only.
 */
export function writeOrder(sql: SqlBuilder, model: ModelMeta, sorts: readonly SortKey[], joins: ReadonlyMap<string, string>, keyset: Keyset | null): void {
  if (keyset) {
    const column = model.field(keyset.field)!.column;
    const dir = keyset.direction.toUpperCase();
    sql.text(` ORDER BY ${qualified(sql, ROOT, column)} ${dir}, ${qualified(sql, ROOT, 'id')} ${dir}`);
    return;
  }
  sql.text(' ORDER BY ');
  for (const sort of sorts) {
    const alias = joins.get(sort.path.join('.'))!;
    // A localized field sorts by the text of the request's locale (runtime/src/locale).
    if (sort.locale !== undefined) sql.dialect.localeText(sql, qualified(sql, alias, sort.field.column), sort.locale);
    else sql.text(qualified(sql, alias, sort.field.column));
    sql.text(` ${sort.direction === 'asc' ? 'ASC NULLS LAST' : 'DESC NULLS FIRST'}, `);
  }
  sql.text(`${qualified(sql, ROOT, 'id')} ASC`);
}
