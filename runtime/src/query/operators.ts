import { ApiError } from '../errors/api-error.js';
import type { FieldManifest, FieldType } from '../manifest/types.js';
import type { SqlBuilder } from '../sql/builder.js';
import type { FilterOp } from './types.js';

const invalid = (message: string) => new ApiError('INVALID_QUERY', message);

/** How many values an operator takes after its second colon. */
type Arity = 'none' | 'one' | 'list' | 'pair';

/** Which column kinds an operator works on. */
type Kinds = 'scalar' | 'ordered' | 'text' | 'json' | 'any';

/**
 * One row per filter operator: what it accepts, how its value is read and
 * the SQL it writes. `column` is the already quoted (and qualified) column.
 */
export interface OperatorRow {
  op: FilterOp;
  arity: Arity;
  kinds: Kinds;
  /** What it matches, for the generated reference (docs/query-language.md). */
  doc: string;
  write(sql: SqlBuilder, column: string, value: unknown, field: FieldManifest): void;
}

const JSON_TYPES: ReadonlySet<FieldType> = new Set(['json_array', 'json_object']);
const ORDERED_TYPES: ReadonlySet<FieldType> = new Set(['string', 'number', 'integer', 'bigint', 'timestamp']);

/** Escapes LIKE wildcards so a literal matches itself (escape character `\`). */
export const escapeLike = (literal: string): string => literal.replace(/[\\%_]/g, (ch) => `\\${ch}`);

const compare = (op: FilterOp, symbol: string, doc: string, kinds: Kinds = 'ordered'): OperatorRow => ({
  op,
  arity: 'one',
  kinds,
  doc,
  write: (sql, column, value) => void sql.text(`${column} ${symbol} `).value(value),
});

const literalMatch = (op: FilterOp, doc: string, pattern: (literal: string) => string): OperatorRow => ({
  op,
  arity: 'one',
  kinds: 'text',
  doc,
  write: (sql, column, value) => sql.dialect.likeInsensitiveEscaped(sql, column, pattern(escapeLike(String(value)))),
});

function has(sql: SqlBuilder, column: string, value: unknown, field: FieldManifest): void {
  if (field.type === 'json_array') sql.dialect.jsonArrayHas(sql, column, value);
  else {
    const pair = value as { key: string; value: string };
    sql.dialect.jsonObjectHas(sql, column, pair.key, pair.value);
  }
}

const rows: OperatorRow[] = [
  compare('eq', '=', 'equal to the value', 'scalar'),
  {
    op: 'neq',
    arity: 'one',
    kinds: 'scalar',
    doc: 'not equal to the value; rows where the field is null match too',
    // NULL is "not equal" too: a client asking for status other than x expects rows without a status.
    write: (sql, column, value) => void sql.text(`(${column} <> `).value(value).text(` OR ${column} IS NULL)`),
  },
  compare('gt', '>', 'greater than the value'),
  compare('gte', '>=', 'greater than or equal to the value'),
  compare('lt', '<', 'less than the value'),
  compare('lte', '<=', 'less than or equal to the value'),
  { op: 'like', arity: 'one', kinds: 'text', doc: 'matches a pattern, case-sensitive: `%` is any run of characters, `_` any one character', write: (sql, column, value) => sql.dialect.likeSensitive(sql, column, String(value)) },
  { op: 'ilike', arity: 'one', kinds: 'text', doc: 'matches a pattern as `like` does, ignoring case', write: (sql, column, value) => sql.dialect.likeInsensitive(sql, column, String(value)) },
  literalMatch('contains', 'contains the text, ignoring case; `%`, `_` and `\\` match themselves', (s) => `%${s}%`),
  literalMatch('starts_with', 'starts with the text, ignoring case', (s) => `${s}%`),
  literalMatch('ends_with', 'ends with the text, ignoring case', (s) => `%${s}`),
  {
    op: 'has',
    arity: 'one',
    kinds: 'json',
    doc: 'a JSON array holds the element, or a JSON object holds `key=value` (the value compared as text)',
    write: has,
  },
  {
    op: 'not_has',
    arity: 'one',
    kinds: 'json',
    doc: 'the opposite of `has`; rows where the field is null match too',
    write: (sql, column, value, field) => {
      sql.text(`(${column} IS NULL OR NOT (`);
      has(sql, column, value, field);
      sql.text('))');
    },
  },
  {
    op: 'in',
    arity: 'list',
    kinds: 'scalar',
    doc: 'equal to one of the comma-separated values',
    write: (sql, column, value) => void sql.text(`${column} IN (`).join(value as unknown[], ', ', (v, s) => s.value(v)).text(')'),
  },
  {
    op: 'not_in',
    arity: 'list',
    kinds: 'scalar',
    doc: 'equal to none of the values; rows where the field is null match too',
    write: (sql, column, value) => void sql.text(`(${column} NOT IN (`).join(value as unknown[], ', ', (v, s) => s.value(v)).text(`) OR ${column} IS NULL)`),
  },
  {
    op: 'between',
    arity: 'pair',
    kinds: 'ordered',
    doc: 'from the low value to the high value, both included',
    write: (sql, column, value) => {
      const [lo, hi] = value as [unknown, unknown];
      sql.text(`${column} BETWEEN `).value(lo).text(' AND ').value(hi);
    },
  },
  { op: 'is_null', arity: 'none', kinds: 'any', doc: 'the field is null', write: (sql, column) => void sql.text(`${column} IS NULL`) },
  { op: 'not_null', arity: 'none', kinds: 'any', doc: 'the field is not null', write: (sql, column) => void sql.text(`${column} IS NOT NULL`) },
];

/** The operator catalogue, by name. */
export const OPERATORS: ReadonlyMap<FilterOp, OperatorRow> = new Map(rows.map((row) => [row.op, row]));

/** Whether an operator applies to a field of this type. */
export function appliesTo(row: OperatorRow, type: FieldType): boolean {
  return kindAllows(row.kinds, type);
}

function kindAllows(kinds: Kinds, type: FieldType): boolean {
  switch (kinds) {
    case 'any':
      return true;
    case 'json':
      return JSON_TYPES.has(type);
    case 'text':
      return type === 'string';
    case 'ordered':
      return ORDERED_TYPES.has(type);
    case 'scalar':
      return !JSON_TYPES.has(type) && type !== 'localized';
  }
}

function refusal(row: OperatorRow, field: FieldManifest, label: string): string {
  if (JSON_TYPES.has(field.type)) {
    return `operator ${row.op} does not apply to ${label}, a ${field.type} column; use has or not_has (${field.type === 'json_object' ? `${label}:has:<key>=<value>` : `${label}:has:<element>`}), is_null or not_null`;
  }
  if (row.kinds === 'json') return `operator ${row.op} needs a json_array or json_object column; ${label} is ${field.type}`;
  if (row.kinds === 'text') return `operator ${row.op} needs a text column; ${label} is ${field.type} (use eq, in or between)`;
  return `operator ${row.op} does not apply to ${label}, a ${field.type} column`;
}

const INT32 = 2 ** 31;

/** One value read as the column's type, or a 400 naming the field and the expected shape. */
export function coerceScalar(type: FieldType, raw: string, label: string): unknown {
  const wrong = (expected: string) => invalid(`filter value "${raw.slice(0, 40)}" for ${label} is not ${expected}`);
  switch (type) {
    case 'integer':
    case 'bigint': {
      if (!/^-?\d{1,16}$/.test(raw)) throw wrong('an integer');
      const n = Number(raw);
      if (!Number.isSafeInteger(n) || (type === 'integer' && (n < -INT32 || n >= INT32))) throw wrong(`an integer in range`);
      return n;
    }
    case 'number': {
      if (!/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(raw)) throw wrong('a number');
      const n = Number(raw);
      if (!Number.isFinite(n)) throw wrong('a finite number');
      return n;
    }
    case 'boolean':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw wrong('a boolean (true, false, 1 or 0)');
    case 'timestamp': {
      const date = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw) ? new Date(raw) : null;
      if (!date || Number.isNaN(date.getTime())) throw wrong('an ISO 8601 timestamp (2026-01-31 or 2026-01-31T10:00:00Z)');
      return date.toISOString();
    }
    default:
      return raw;
  }
}

/** Splits a comma list; empty items are refused. */
function list(raw: string, label: string, op: FilterOp): string[] {
  if (raw === '') throw invalid(`operator ${op} on ${label} needs at least one value: ${label}:${op}:a,b`);
  return raw.split(',');
}

/**
 * Checks that `op` applies to `field` and coerces the raw value text.
 *
 * @example
 * coerceValue(OPERATORS.get('between')!, viewsField, '10,20', 'views') // [10, 20]
 */
export function coerceValue(row: OperatorRow, field: FieldManifest, raw: string | undefined, label: string): unknown {
  if (!kindAllows(row.kinds, field.type)) throw invalid(refusal(row, field, label));
  switch (row.arity) {
    case 'none':
      if (raw !== undefined && raw !== '') throw invalid(`operator ${row.op} takes no value: write ${label}:${row.op}`);
      return null;
    case 'list':
      return list(raw ?? '', label, row.op).map((item) => coerceScalar(field.type, item, label));
    case 'pair': {
      const items = (raw ?? '').split(',');
      if (items.length !== 2 || items.some((i) => i === '')) throw invalid(`operator between on ${label} needs exactly two values: ${label}:between:low,high`);
      return items.map((item) => coerceScalar(field.type, item, label));
    }
    case 'one': {
      if (raw === undefined) throw invalid(`operator ${row.op} on ${label} needs a value: ${label}:${row.op}:<value>`);
      if (row.kinds === 'json') return jsonOperand(field, raw, label, row.op);
      return coerceScalar(field.type, raw, label);
    }
  }
}

/**
 * coerceValue for a value given as separate items (the aggregate route's
 * JSON arrays for in, not_in and between), so an item may hold a comma.
 *
 * @example
 * coerceItems(OPERATORS.get('in')!, titleField, ['a,b', 'c'], 'title') // ['a,b', 'c']
 */
export function coerceItems(row: OperatorRow, field: FieldManifest, items: readonly string[], label: string): unknown {
  if (!kindAllows(row.kinds, field.type)) throw invalid(refusal(row, field, label));
  if (row.arity === 'list') {
    if (items.length === 0) throw invalid(`operator ${row.op} on ${label} needs at least one value`);
    return items.map((item) => coerceScalar(field.type, item, label));
  }
  if (row.arity === 'pair') {
    if (items.length !== 2) throw invalid(`operator between on ${label} needs exactly two values: [low, high]`);
    return items.map((item) => coerceScalar(field.type, item, label));
  }
  throw invalid(`operator ${row.op} on ${label} takes one value, not a list`);
}

/** has / not_has: an element of a json_array, or `key=value` of a json_object. */
function jsonOperand(field: FieldManifest, raw: string, label: string, op: FilterOp): unknown {
  if (field.type === 'json_array') return field.items ? coerceScalar(field.items, raw, label) : raw;
  const at = raw.indexOf('=');
  if (at <= 0) throw invalid(`operator ${op} on ${label}, a json_object column, needs key=value: ${label}:${op}:<key>=<value>`);
  return { key: raw.slice(0, at), value: raw.slice(at + 1) };
}
