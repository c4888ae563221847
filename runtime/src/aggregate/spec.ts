/**
 * The aggregate route's `aggregate` parameter (spec "Optional model routes"):
 * parsed and checked against the registry into a plan the SQL writer reads.
 * Every mistake is 400 INVALID_AGGREGATE with a message naming the key, the
 * term and what to write instead.
 */
import { ApiError } from '../errors/api-error.js';
import type { FieldManifest, FieldType } from '../manifest/types.js';
import { coerceItems, coerceValue, OPERATORS, type OperatorRow } from '../query/operators.js';
import { FILTER_OPS, type FilterClause, type FilterOp } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { hasNul, NUL_REFUSAL } from '../util/nul.js';
import type { NamedExpression } from './expression.js';

export const AGGREGATE_OPS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateOp = (typeof AGGREGATE_OPS)[number];

/** The keys of the parameter's object, in the spec's order. */
export const AGGREGATE_KEYS = ['select', 'group_by', 'where', 'having', 'order_by', 'limit'] as const;

export const DEFAULT_AGGREGATE_LIMIT = 100;
export const MAX_AGGREGATE_LIMIT = 200;

/** What a select term aggregates: a field, a named expression, or (count without field) the rows. */
export type AggregateTarget = { kind: 'field'; field: FieldManifest } | { kind: 'expression'; expression: NamedExpression } | { kind: 'rows' };

/**
 * How a result reads back: `integer` results (counts, integer sums, min and
 * max of integer columns) keep every digit; `number` results are double
 * precision; `field` results (min and max of text and timestamps) decode
 * as the field does in list rows.
 */
export type ResultKind = { kind: 'integer' } | { kind: 'number' } | { kind: 'field'; field: FieldManifest };

export interface SelectTerm {
  op: AggregateOp;
  target: AggregateTarget;
  alias: string;
  result: ResultKind;
}

export interface HavingTerm {
  term: SelectTerm;
  operator: OperatorRow;
  /** Coerced as the operator table does for a field of the result's type. */
  value: unknown;
  /** The synthetic field the operator writes against (its type is the result's). */
  field: FieldManifest;
}

export type OrderTarget = { kind: 'select'; term: SelectTerm } | { kind: 'group'; field: FieldManifest };

export interface AggregatePlan {
  select: SelectTerm[];
  groupBy: FieldManifest[];
  /** `where` as list filter clauses (bare: each its own AND term). */
  where: FilterClause[];
  having: HavingTerm[];
  orderBy: { target: OrderTarget; direction: 'asc' | 'desc' }[];
  limit: number;
}

/** Who asks: the HTTP route sees exposed expressions only; code (`app.aggregate`) sees every one. */
export interface PlanOptions {
  exposedOnly: boolean;
}

const invalid = (message: string) => new ApiError('INVALID_AGGREGATE', message);
const show = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
};
const NUMERIC: ReadonlySet<FieldType> = new Set(['number', 'integer', 'bigint']);
const ORDERED: ReadonlySet<FieldType> = new Set(['string', 'number', 'integer', 'bigint', 'timestamp']);
const STRUCTURED: ReadonlySet<FieldType> = new Set(['json_array', 'json_object', 'localized']);

/** The fields a client may name: visible, not encrypted, filterable or sortable (rule 2), not localized. */
export function aggregatableFields(model: ModelMeta): FieldManifest[] {
  return model.fields.filter((f) => f.type !== 'localized' && (model.roles(f).filterable || model.roles(f).sortable));
}

/** The expressions a caller may select. */
export function selectableExpressions(model: ModelMeta, options: PlanOptions): NamedExpression[] {
  return [...model.expressions.values()].filter((e) => e.exposed || !options.exposedOnly);
}

/** Reads the `aggregate` query parameter: exactly one, JSON, an object. */
export function readAggregateParameter(params: URLSearchParams | null): Record<string, unknown> {
  const raw = params?.getAll('aggregate') ?? [];
  if (raw.length === 0 || raw[0].trim() === '') {
    throw invalid('the aggregate parameter is missing: send ?aggregate=<url-encoded JSON>, e.g. {"select":[{"op":"count"}]}');
  }
  if (raw.length > 1) throw invalid('the aggregate parameter is given more than once; send one JSON object');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw[0]);
  } catch (error) {
    throw invalid(`the aggregate parameter is not valid JSON (${(error as Error).message}); send a url-encoded JSON object`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid(`the aggregate parameter must be a JSON object, got ${show(parsed)}`);
  return parsed as Record<string, unknown>;
}

/** Checks that an object has only the keys it may have. */
function knownKeys(value: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalid(`${where} has unknown key ${show(key)}; keys: ${allowed.join(', ')}`);
  }
}

/** An array-valued key (absent is empty), its items objects, at most `cap` of them. */
function terms(spec: Record<string, unknown>, key: string, cap: number, limitName: string): Record<string, unknown>[] {
  const value = spec[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid(`${key} must be an array, got ${show(value)}`);
  if (value.length > cap) throw invalid(`too many ${key} terms: ${value.length}, at most ${cap} (query_limits:${limitName})`);
  return value.map((item, i) => {
    if (key === 'group_by') return { field: item } as Record<string, unknown>;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw invalid(`${key}[${i}] must be an object, got ${show(item)}`);
    return item as Record<string, unknown>;
  });
}

/**
 * Parses and checks the parameter against `model`.
 *
 * @example
 * planAggregate(order, { select: [{ op: 'sum', field: 'total' }], group_by: ['status'] }, { exposedOnly: true });
 */
export function planAggregate(model: ModelMeta, spec: Record<string, unknown>, options: PlanOptions): AggregatePlan {
  knownKeys(spec, AGGREGATE_KEYS, 'the aggregate object');
  const limits = model.queryLimits;
  const fields = aggregatableFields(model);
  const expressions = selectableExpressions(model, options);
  const fieldList = `aggregatable fields of ${model.name}: ${fields.map((f) => f.name).join(', ') || 'none'}`;

  /** A field a term names, by JSON or column name; an expression name is `null` (the caller decides). */
  const resolveField = (name: unknown, where: string): FieldManifest | NamedExpression => {
    if (typeof name !== 'string' || name === '') throw invalid(`${where} needs a field name, got ${show(name)}`);
    const field = model.field(name);
    // Hidden and writeonly fields (and unexposed expressions) are never acknowledged.
    if (!field || !model.roles(field).visible) {
      const expression = expressions.find((e) => e.name === name);
      if (expression) return expression;
      const named = expressions.length ? `; exposed expressions: ${expressions.map((e) => e.name).join(', ')}` : '';
      throw invalid(`${where} names unknown field ${show(name)}; ${fieldList}${named}`);
    }
    if (field.type === 'localized') throw invalid(`${where} names ${field.name}, a localized field; localized fields cannot be aggregated`);
    if (!model.roles(field).filterable && !model.roles(field).sortable) {
      if (field.encrypted) throw invalid(`${where} names ${field.name}, which is encrypted; encrypted fields cannot be aggregated`);
      throw invalid(`${where} names ${field.name}, which is neither filterable nor sortable; add one of those directives to the field (${fieldList})`);
    }
    return field;
  };
  const isField = (target: FieldManifest | NamedExpression): target is FieldManifest => !('write' in target);
  const onlySelected = (where: string, expression: NamedExpression, use: string) =>
    invalid(`${where} names the expression ${expression.name}; expressions can be selected, not ${use}`);

  // select
  const selectItems = terms(spec, 'select', limits.aggregateSelect, 'aggregateSelect');
  if (selectItems.length === 0) throw invalid('select needs at least one term, e.g. {"select":[{"op":"count"}]}');
  const select: SelectTerm[] = selectItems.map((item, i) => {
    const where = `select[${i}]`;
    knownKeys(item, ['op', 'field', 'as'], where);
    const op = item.op as AggregateOp;
    if (typeof op !== 'string' || !AGGREGATE_OPS.includes(op)) throw invalid(`${where} has unknown op ${show(item.op)}; ops: ${AGGREGATE_OPS.join(', ')}`);
    let target: AggregateTarget;
    if (item.field === undefined || item.field === null) {
      if (op !== 'count') throw invalid(`${where}: ${op} needs a field`);
      target = { kind: 'rows' };
    } else {
      const resolved = resolveField(item.field, where);
      target = isField(resolved) ? { kind: 'field', field: resolved } : { kind: 'expression', expression: resolved };
    }
    const result = resultOf(op, target, where);
    const alias = item.as === undefined ? defaultAlias(op, target) : item.as;
    if (typeof alias !== 'string' || alias === '' || alias.length > 64) throw invalid(`${where}.as must be a name of 1 to 64 characters, got ${show(item.as)}`);
    return { op, target, alias, result };
  });

  // group_by
  const groupBy: FieldManifest[] = [];
  terms(spec, 'group_by', limits.aggregateGroupBy, 'aggregateGroupBy').forEach((item, i) => {
    const where = `group_by[${i}]`;
    const resolved = resolveField(item.field, where);
    if (!isField(resolved)) throw onlySelected(where, resolved, 'grouped by');
    if (STRUCTURED.has(resolved.type)) throw invalid(`${where} names ${resolved.name}, a ${resolved.type} field; group by scalar fields`);
    if (groupBy.includes(resolved)) throw invalid(`${where} names ${resolved.name} twice`);
    groupBy.push(resolved);
  });

  // Output keys: group fields by JSON name, then aliases; each once.
  const keys = new Set(groupBy.map((f) => f.name));
  for (const [i, term] of select.entries()) {
    if (keys.has(term.alias)) {
      throw invalid(`duplicate alias ${show(term.alias)} at select[${i}]: every select term and group_by field needs its own name in the row; set "as" to tell them apart`);
    }
    keys.add(term.alias);
  }

  // where: list filter clauses through the one operator table
  const where: FilterClause[] = terms(spec, 'where', limits.aggregateWhere, 'aggregateWhere').map((item, i) => {
    const at = `where[${i}]`;
    knownKeys(item, ['field', 'operator', 'value'], at);
    const resolved = resolveField(item.field, at);
    if (!isField(resolved)) throw onlySelected(at, resolved, 'filtered on');
    const operator = operatorOf(item.operator, at);
    return { path: [], field: resolved, op: operator.op, value: operand(operator, resolved, item.value, at), group: 0 };
  });

  // having: on select aliases
  const having: HavingTerm[] = terms(spec, 'having', limits.aggregateHaving, 'aggregateHaving').map((item, i) => {
    const at = `having[${i}]`;
    knownKeys(item, ['alias', 'operator', 'value'], at);
    const term = select.find((t) => t.alias === item.alias);
    if (!term) throw invalid(`${at} names unknown alias ${show(item.alias)}; aliases: ${select.map((t) => t.alias).join(', ')}`);
    const operator = operatorOf(item.operator, at);
    const field = resultField(term);
    return { term, operator, field, value: operand(operator, field, item.value, at) };
  });

  // order_by: an alias, else a group column
  const orderBy = terms(spec, 'order_by', limits.aggregateOrderBy, 'aggregateOrderBy').map((item, i) => {
    const at = `order_by[${i}]`;
    knownKeys(item, ['field', 'direction'], at);
    const direction = item.direction ?? 'asc';
    if (direction !== 'asc' && direction !== 'desc') throw invalid(`${at}.direction must be "asc" or "desc", got ${show(item.direction)}`);
    const term = select.find((t) => t.alias === item.field);
    if (term) return { target: { kind: 'select', term } as OrderTarget, direction: direction as 'asc' | 'desc' };
    const resolved = resolveField(item.field, at);
    if (!isField(resolved)) throw onlySelected(at, resolved, 'ordered by (order by the alias of a select term instead)');
    if (!groupBy.includes(resolved)) {
      throw invalid(`${at} names ${resolved.name}, which is neither a select alias nor a group_by field; aliases: ${select.map((t) => t.alias).join(', ')}`);
    }
    return { target: { kind: 'group', field: resolved } as OrderTarget, direction: direction as 'asc' | 'desc' };
  });

  return { select, groupBy, where, having, orderBy, limit: limitOf(spec.limit) };
}

function defaultAlias(op: AggregateOp, target: AggregateTarget): string {
  switch (target.kind) {
    case 'rows':
      return 'count';
    case 'field':
      return `${op}_${target.field.name}`;
    case 'expression':
      return `${op}_${target.expression.name}`;
  }
}

/** What an op gives over its target, or a 400 when the op does not apply. */
function resultOf(op: AggregateOp, target: AggregateTarget, where: string): ResultKind {
  if (op === 'count' || op === 'count_distinct') {
    if (op === 'count_distinct' && target.kind === 'field' && STRUCTURED.has(target.field.type)) {
      throw invalid(`${where}: count_distinct does not apply to ${target.field.name}, a ${target.field.type} field`);
    }
    return { kind: 'integer' };
  }
  if (target.kind === 'expression') return op === 'avg' ? { kind: 'number' } : { kind: target.expression.kind };
  if (target.kind !== 'field') throw invalid(`${where}: ${op} needs a field`);
  const { field } = target;
  if (op === 'sum' || op === 'avg') {
    if (!NUMERIC.has(field.type)) throw invalid(`${where}: ${op} needs a numeric field; ${field.name} is ${field.type}`);
    return op === 'avg' || field.type === 'number' ? { kind: 'number' } : { kind: 'integer' };
  }
  if (!ORDERED.has(field.type)) throw invalid(`${where}: ${op} does not apply to ${field.name}, a ${field.type} field; use it on text, numbers or timestamps`);
  if (field.type === 'number') return { kind: 'number' };
  if (NUMERIC.has(field.type)) return { kind: 'integer' };
  return { kind: 'field', field };
}

/** A stand-in field of the result's type, for the operator table (having). */
function resultField(term: SelectTerm): FieldManifest {
  const type: FieldType = term.result.kind === 'field' ? term.result.field.type : term.result.kind === 'integer' ? 'bigint' : 'number';
  return { name: term.alias, column: term.alias, type, nullable: true } as FieldManifest;
}

function operatorOf(name: unknown, where: string): OperatorRow {
  const row = typeof name === 'string' ? OPERATORS.get(name as FilterOp) : undefined;
  if (!row) throw invalid(`${where} has unknown operator ${show(name)}; operators: ${FILTER_OPS.join(', ')}`);
  return row;
}

/** A JSON scalar as the filter language's text, or a 400. */
function scalarText(value: unknown, where: string): string {
  if (typeof value === 'string') {
    if (hasNul(value)) throw invalid(`${where}.value ${NUL_REFUSAL}`);
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw invalid(`${where}.value must be a string, number or boolean, got ${show(value)}`);
}

/** The operand of a where or having term, coerced by the operator table; its INVALID_QUERY answers become INVALID_AGGREGATE. */
function operand(row: OperatorRow, field: FieldManifest, value: unknown, where: string): unknown {
  try {
    if (row.arity === 'none') {
      if (value !== undefined && value !== null) throw invalid(`${where}: operator ${row.op} takes no value; leave value out`);
      return coerceValue(row, field, undefined, field.name);
    }
    if (value === undefined || value === null) throw invalid(`${where}: operator ${row.op} needs a value`);
    if (row.arity === 'list' || row.arity === 'pair') {
      if (!Array.isArray(value)) throw invalid(`${where}: operator ${row.op} needs an array value, e.g. ${row.arity === 'pair' ? '[1, 10]' : '["a", "b"]'}`);
      return coerceItems(row, field, value.map((item, i) => scalarText(item, `${where}.value[${i}]`)), field.name);
    }
    return coerceValue(row, field, scalarText(value, where), field.name);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'INVALID_QUERY') throw invalid(`${where}: ${error.message}`);
    throw error;
  }
}

function limitOf(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_AGGREGATE_LIMIT;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(`limit must be an integer, got ${show(value)}`);
  if (value < 0) throw invalid(`limit must not be negative, got ${value}`);
  return Math.min(value, MAX_AGGREGATE_LIMIT);
}
