import type { FieldManifest } from '../manifest/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { hasNul, NUL_REFUSAL } from '../util/nul.js';
import { explicitLocaleKey, filterableAs } from '../locale/query.js';
import { invalidQuery, notAField, quote } from './messages.js';
import { coerceValue, OPERATORS } from './operators.js';
import { DEFAULT_LIMIT, FILTER_OPS, type FilterClause, type FilterOp, type IncludePath, type ListQuery, MAX_LIMIT, type SortKey } from './types.js';

const invalid = invalidQuery;

/** How deep relation paths may go: a relation and one nested relation (`author.company`). */
const MAX_RELATION_DEPTH = 2;


/** A positive integer parameter, or a 400 naming it. */
function positiveInt(name: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw invalid(`${name} must be a positive integer, got "${raw.slice(0, 40)}"`);
  const value = Number(raw);
  if (value < 1 || !Number.isSafeInteger(value)) throw invalid(`${name} must be at least 1, got "${raw.slice(0, 40)}"`);
  return value;
}

/** Deep enough for any real client; keeps OFFSET well inside every database's integer range. */
export const MAX_PAGE = 10_000_000;

/** page and limit: limit defaults to 20 and is clamped to 200; below 1 or not a number is 400. */
export function parsePaging(params: URLSearchParams): { page: number; limit: number } {
  const rawPage = params.get('page');
  const rawLimit = params.get('limit');
  const page = rawPage === null || rawPage === '' ? 1 : positiveInt('page', rawPage);
  if (page > MAX_PAGE) throw invalid(`page must be at most ${MAX_PAGE}, got "${rawPage!.slice(0, 40)}"`);
  const limit = rawLimit === null || rawLimit === '' ? DEFAULT_LIMIT : Math.min(positiveInt('limit', rawLimit), MAX_LIMIT);
  return { page, limit };
}

/** select=a,b: only visible fields by JSON or column name; anything else is 400. */
export function parseSelect(model: ModelMeta, params: URLSearchParams): string[] | null {
  const raw = params.getAll('select');
  if (raw.length === 0) return null;
  const names: string[] = [];
  for (const part of raw.flatMap((r) => r.split(','))) {
    const name = part.trim();
    if (name === '') continue;
    const field = model.field(name);
    if (!field || !model.roles(field).selectable) {
      throw invalid(`select names unknown field "${name.slice(0, 60)}" of ${model.name}; selectable: ${model.fieldsWith('selectable').map((f) => f.name).join(', ')}`);
    }
    if (!names.includes(field.name)) names.push(field.name);
  }
  return names.length > 0 ? names : null;
}

/** `a.b.field`: walks the relation keys and returns the model the field belongs to. */
function walk(model: ModelMeta, dotted: string, purpose: string, allow: (kind: string) => boolean): { path: string[]; owner: ModelMeta; name: string } {
  const parts = dotted.split('.');
  const name = parts.pop()!;
  if (parts.length > MAX_RELATION_DEPTH) throw invalid(`${purpose} ${quote(dotted)} goes through more than ${MAX_RELATION_DEPTH} relations`);
  let owner = model;
  for (const key of parts) {
    const next = owner.target(key);
    if (!next) throw invalid(`${purpose} ${quote(dotted)}: ${owner.name} has no relation ${quote(key)}${relationHint(owner)}`);
    if (!allow(next.relation.kind)) throw invalid(`${purpose} ${quote(dotted)}: ${key} is a ${next.relation.kind} relation; only belongsTo relations can be sorted through`);
    owner = next.target;
  }
  return { path: parts, owner, name };
}

function relationHint(model: ModelMeta): string {
  const keys = [...model.relations.keys()];
  return keys.length ? ` (relations: ${keys.join(', ')})` : ' (it has no relations)';
}

/** The field a filter or sort names, checked against its directive (base columns name their opt-in setting). */
function usableField(owner: ModelMeta, name: string, label: string, use: 'filterable' | 'sortable'): FieldManifest {
  const field = owner.field(name);
  // Hidden and writeonly fields are never acknowledged, so a client cannot probe for them.
  if (!field || !owner.roles(field).visible) {
    throw invalid(notAField(owner, label, use));
  }
  if (!owner.roles(field)[use]) {
    if (field.base) throw invalid(`${label} is a base column of ${owner.name} and is not ${use}; opt in with the model directive base:${field.column}=${use}`);
    if (field.encrypted) throw invalid(`${label} of ${owner.name} is encrypted, and encrypted fields cannot be ${use === 'filterable' ? 'filtered' : 'sorted'}`);
    throw invalid(`${label} of ${owner.name} is not ${use}; add the ${use} directive to the field`);
  }
  return field;
}

/** One `field:op:value` clause. The value keeps any further colons (timestamps). */
export function parseFilter(model: ModelMeta, raw: string, group: number): FilterClause {
  const first = raw.indexOf(':');
  if (first <= 0) throw invalid(`filter ${quote(raw)} must look like <field>:<operator>:<value>`);
  const second = raw.indexOf(':', first + 1);
  const name = raw.slice(0, first);
  const op = (second === -1 ? raw.slice(first + 1) : raw.slice(first + 1, second)) as FilterOp;
  const value = second === -1 ? undefined : raw.slice(second + 1);
  const row = OPERATORS.get(op);
  if (!row) throw invalid(`filter ${quote(raw)} has unknown operator ${quote(op)}; operators: ${FILTER_OPS.join(', ')}`);
  // Localized fields: `name.<locale>` names one key of the map (runtime/src/locale).
  const localeKey = explicitLocaleKey(model, name, 'filterable');
  const { path, owner, name: fieldName } = walk(model, localeKey?.name ?? name, 'filter', () => true);
  const field = usableField(owner, fieldName, quote(name), 'filterable');
  const clause: FilterClause = { path, field, op, value: coerceValue(row, filterableAs(field), value, name), group };
  if (localeKey) clause.localeKey = localeKey.locale;
  return clause;
}

/** `filter` (bare, its own AND term) and `filter[N]` (same N ORed), within the model's query limits. */
export function parseFilters(model: ModelMeta, params: URLSearchParams): FilterClause[] {
  const limits = model.queryLimits;
  const clauses: FilterClause[] = [];
  let groupSizes: Map<number, number> | null = null;
  for (const [key, raw] of params) {
    let group = 0;
    if (key !== 'filter') {
      if (!key.startsWith('filter[')) continue;
      const index = /^filter\[(\d{1,6})\]$/.exec(key);
      if (!index) throw invalid(`filter group ${quote(key)} needs a non-negative integer index, as in filter[0]=...`);
      group = Number(index[1]) + 1;
      groupSizes ??= new Map();
      groupSizes.set(group, (groupSizes.get(group) ?? 0) + 1);
      if (groupSizes.size > limits.maxOrGroups) throw invalid(`too many filter groups: at most ${limits.maxOrGroups} (query_limits:maxOrGroups)`);
      if (groupSizes.get(group)! > limits.maxOrGroupClauses) {
        throw invalid(`too many clauses in filter group ${group - 1}: at most ${limits.maxOrGroupClauses} (query_limits:maxOrGroupClauses)`);
      }
    }
    if (clauses.length >= limits.maxFilters) throw invalid(`too many filter clauses: at most ${limits.maxFilters} (query_limits:maxFilters)`);
    clauses.push(parseFilter(model, raw, group));
  }
  return clauses;
}

/** `sort=a:asc,b:desc`, repeatable, left to right; through belongsTo relations (`author.name:asc`). */
export function parseSorts(model: ModelMeta, params: URLSearchParams): SortKey[] {
  const sorts: SortKey[] = [];
  const raw = params.getAll('sort');
  if (raw.length === 0) return sorts;
  for (const part of raw.flatMap((r) => r.split(','))) {
    const item = part.trim();
    if (item === '') continue;
    const at = item.lastIndexOf(':');
    const name = at === -1 ? item : item.slice(0, at);
    const direction = at === -1 ? 'asc' : item.slice(at + 1);
    if (direction !== 'asc' && direction !== 'desc') throw invalid(`sort ${quote(item)} must end in :asc or :desc`);
    // Localized fields: `name.<locale>` sorts by one key of the map (runtime/src/locale), as the filter form does.
    const localeKey = explicitLocaleKey(model, name, 'sortable');
    const { path, owner, name: fieldName } = walk(model, localeKey?.name ?? name, 'sort', (kind) => kind === 'belongsTo');
    const field = usableField(owner, fieldName, quote(name), 'sortable');
    if (sorts.length >= model.queryLimits.maxSorts) throw invalid(`too many sort keys: at most ${model.queryLimits.maxSorts} (query_limits:maxSorts)`);
    sorts.push(localeKey ? { path, field, direction, localeKey: localeKey.locale } : { path, field, direction });
  }
  return sorts;
}

/** `include=author,comments,author.company`: relation keys, one nested level; `a.b` implies `a`. */
export function parseIncludes(model: ModelMeta, params: URLSearchParams): IncludePath[] {
  const paths: IncludePath[] = [];
  const raw = params.getAll('include');
  if (raw.length === 0) return paths;
  const seen = new Set<string>();
  for (const part of raw.flatMap((r) => r.split(','))) {
    const item = part.trim();
    if (item === '' || seen.has(item)) continue;
    const keys = item.split('.');
    if (keys.length > MAX_RELATION_DEPTH) throw invalid(`include ${quote(item)} nests more than ${MAX_RELATION_DEPTH} relations`);
    let owner = model;
    for (const key of keys) {
      const next = owner.target(key);
      if (!next) throw invalid(`include ${quote(item)}: ${owner.name} has no relation ${quote(key)}${relationHint(owner)}`);
      owner = next.target;
    }
    seen.add(item);
    if (paths.length >= model.queryLimits.maxIncludes) throw invalid(`too many include paths: at most ${model.queryLimits.maxIncludes} (query_limits:maxIncludes)`);
    paths.push(keys);
  }
  return paths;
}

/** `q`: null when absent or blank; 400 when the model has nothing searchable. */
export function parseSearch(model: ModelMeta, params: URLSearchParams): string | null {
  const q = params.get('q');
  if (q === null || q.trim() === '') return null;
  if (model.fieldsWith('searchable').length === 0) throw invalid(`q needs searchable fields, and ${model.name} has none; add the searchable directive to its text fields`);
  return q;
}

/** `cursor`: null for offset paging; '' or a token for keyset paging on the model's cursor_field. */
export function parseCursor(model: ModelMeta, params: URLSearchParams): string | null {
  const cursor = params.get('cursor');
  if (cursor === null) return null;
  if (!model.options.cursorField) throw invalid(`cursor pagination needs a cursor field; ${model.name} has none (add the model directive cursor_field:<column>), or page with page and limit`);
  if (params.get('page') !== null) throw invalid('page and cursor cannot be combined: follow meta.next_cursor instead of page numbers');
  return cursor;
}

/** No column holds NUL (PostgreSQL text refuses it), so a parameter carrying one can only be a mistake or a probe. */
export function refuseNul(params: URLSearchParams): void {
  for (const [key, value] of params) {
    if (hasNul(key) || hasNul(value)) throw invalid(`query parameter ${quote(key.replaceAll('\0', '\\0'))} ${NUL_REFUSAL}`);
  }
}

/** The read route's parameters: select and include; null when the request has none. */
export function parseReadQuery(model: ModelMeta, params: URLSearchParams | null): ListQuery {
  if (!params) return { filters: [], sorts: [], page: 1, limit: 1, include: [], select: null, q: null, cursor: null, locale: null };
  refuseNul(params);
  return {
    filters: [],
    sorts: [],
    page: 1,
    limit: 1,
    include: parseIncludes(model, params),
    select: parseSelect(model, params),
    q: null,
    cursor: null,
    locale: params.get('locale'),
  };
}

/** The list route's parameters; null when the request has none (the defaults, without parsing). */
export function parseListQuery(model: ModelMeta, params: URLSearchParams | null): ListQuery {
  if (!params) return { filters: [], sorts: [], page: 1, limit: DEFAULT_LIMIT, include: [], select: null, q: null, cursor: null, locale: null };
  refuseNul(params);
  const { page, limit } = parsePaging(params);
  return {
    filters: parseFilters(model, params),
    sorts: parseSorts(model, params),
    page,
    limit,
    include: parseIncludes(model, params),
    select: parseSelect(model, params),
    q: parseSearch(model, params),
    cursor: parseCursor(model, params),
    locale: params.get('locale'),
  };
}
