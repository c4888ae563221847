/**
 * The aggregate statement of a plan, and its rows read back with exact
 * digits. One statement on both databases:
 *
 *   SELECT <group columns>, CAST(<integer results> AS TEXT), <other results>
 *   FROM (SELECT <group columns> AS g0.., <aggregates> AS a0..
 *         FROM <table> t WHERE <the list's WHERE> GROUP BY <group columns>) q
 *   WHERE <having on a0..> ORDER BY <order_by>, <group columns> LIMIT n
 *
 * The inner query names every column itself (client aliases never reach the
 * SQL), so having and order_by read the raw aggregate values, never the text
 * cast that carries integers out with every digit.
 */
import { randomBytes } from 'node:crypto';
import type { Executor, QueryOptions, Row } from '../db/adapter.js';
import type { ScopeFilter } from '../pipeline/context.js';
import type { FilterClause, ListQuery } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import type { SqlDialect } from '../sql/dialect.js';
import { valueDecoder } from '../store/codec.js';
import { ROOT, writeWhere } from '../store/list-sql.js';
import { type AggregatePlan, type AggregateTarget, planAggregate, readAggregateParameter, type SelectTerm } from './spec.js';

const INNER = 'q';

/** `x` of an aggregate: the column, the expression, or nothing for the row count. */
function writeTarget(sql: SqlBuilder, target: AggregateTarget): void {
  if (target.kind === 'field') sql.column(ROOT, target.field.column);
  else if (target.kind === 'expression') target.expression.write(sql, ROOT);
}

/** Whether a term's operand is integer-valued (integer columns, integer expressions). */
function integerOperand(target: AggregateTarget): boolean {
  if (target.kind === 'field') return target.field.type === 'integer' || target.field.type === 'bigint';
  return target.kind === 'expression' && target.expression.kind === 'integer';
}

/**
 * The aggregate itself. The average of integers is the exact sum, rounded
 * once to double precision, over the count: the same number on both
 * databases (PostgreSQL's own AVG would answer a rounded numeric).
 */
function writeAggregate(sql: SqlBuilder, term: SelectTerm): void {
  const { op, target } = term;
  if (target.kind === 'rows') {
    sql.text('COUNT(*)');
    return;
  }
  const call = (fn: string, distinct = false) => {
    sql.text(`${fn}(${distinct ? 'DISTINCT ' : ''}`);
    writeTarget(sql, target);
    sql.text(')');
  };
  switch (op) {
    case 'count':
      return call('COUNT');
    case 'count_distinct':
      return call('COUNT', true);
    case 'sum':
      return call('SUM');
    case 'min':
      return call('MIN');
    case 'max':
      return call('MAX');
    case 'avg':
      if (!integerOperand(target)) return call('AVG');
      sql.text('(CAST(');
      call('SUM');
      sql.text(` AS ${sql.dialect.columnType('number')}) / NULLIF(`);
      call('COUNT');
      sql.text(', 0))');
  }
}

export interface AggregateInput {
  plan: AggregatePlan;
  /** The request's `filter` and `filter[N]` clauses, folded in with the list's grouping. */
  filters: readonly FilterClause[];
  scope: readonly ScopeFilter[] | undefined;
}

/**
 * Writes the statement of a plan.
 *
 * @example
 * const sql = aggregateStatement(dialect, order, { plan, filters: [], scope: undefined });
 * await db.all(sql.sql, sql.params);
 */
export function aggregateStatement(dialect: SqlDialect, model: ModelMeta, { plan, filters, scope }: AggregateInput): SqlBuilder {
  const sql = new SqlBuilder(dialect);
  const text = dialect.columnType('string');
  const outer = (name: string) => `${dialect.quote(INNER)}.${dialect.quote(name)}`;
  sql.text('SELECT ');
  const columns = [
    ...plan.groupBy.map((_, i) => outer(`g${i}`)),
    ...plan.select.map((term, i) => (term.result.kind === 'integer' ? `CAST(${outer(`a${i}`)} AS ${text})` : outer(`a${i}`))),
  ];
  sql.text(columns.map((c, i) => `${c} AS ${dialect.quote(`c${i}`)}`).join(', '));

  sql.text(' FROM (SELECT ');
  plan.groupBy.forEach((field, i) => sql.column(ROOT, field.column).text(` AS ${dialect.quote(`g${i}`)}, `));
  sql.join(plan.select, ', ', (term, s) => {
    writeAggregate(s, term);
    s.text(` AS ${dialect.quote(`a${plan.select.indexOf(term)}`)}`);
  });
  sql.text(' FROM ').id(model.table).text(' ').id(ROOT);
  const query: ListQuery = { filters: [...filters, ...plan.where], sorts: [], page: 1, limit: plan.limit, include: [], select: null, q: null, cursor: null, locale: null };
  writeWhere(sql, model, { query, scope, keyset: null });
  if (plan.groupBy.length > 0) sql.text(' GROUP BY ').join(plan.groupBy, ', ', (field, s) => s.column(ROOT, field.column));
  sql.text(') ').id(INNER);

  if (plan.having.length > 0) {
    sql.text(' WHERE ').join(plan.having, ' AND ', (h, s) => h.operator.write(s, outer(`a${plan.select.indexOf(h.term)}`), h.value, h.field));
  }
  const order = [
    ...plan.orderBy.map(({ target, direction }) => ({
      column: target.kind === 'select' ? outer(`a${plan.select.indexOf(target.term)}`) : outer(`g${plan.groupBy.indexOf(target.field)}`),
      direction,
    })),
    // Then the group columns not ordered yet, so equal rows come in one order on every run.
    ...plan.groupBy.filter((field) => !plan.orderBy.some((o) => o.target.kind === 'group' && o.target.field === field)).map((field) => ({ column: outer(`g${plan.groupBy.indexOf(field)}`), direction: 'asc' as const })),
  ];
  if (order.length > 0) {
    sql.text(' ORDER BY ').text(order.map((o) => `${o.column} ${o.direction === 'asc' ? 'ASC NULLS LAST' : 'DESC NULLS FIRST'}`).join(', '));
  }
  sql.text(' LIMIT ').value(plan.limit);
  return sql;
}

/**
 * A JSON number that is not a safe integer, with every digit (JSON numbers
 * have no size limit; JavaScript's Number does).
 */
export class ExactNumber {
  constructor(
    readonly digits: string,
    readonly approximate: number,
  ) {}
  toJSON(): number {
    return this.approximate;
  }
}

/** An integer result as text: a number, or an ExactNumber beyond 2^53. */
function integerOf(value: unknown): number | ExactNumber | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  const n = Number(text);
  if (Number.isSafeInteger(n) || !/^-?\d+$/.test(text)) return n;
  return new ExactNumber(text.replace(/^(-?)0+(?=\d)/, '$1'), n);
}

export interface AggregateRows {
  rows: Record<string, unknown>[];
  /** The response text with exact digits, when a value is an ExactNumber; else null (plain JSON.stringify is exact). */
  exactText: string | null;
}

/** Reads the rows of a plan's statement into `{ group fields..., aliases... }` objects. */
export function readRows(dialect: SqlDialect, plan: AggregatePlan, rows: readonly Row[]): AggregateRows {
  const readers: { key: string; read: (value: unknown) => unknown }[] = [
    ...plan.groupBy.map((field) => ({ key: field.name, read: valueDecoder(field, dialect.name) })),
    ...plan.select.map((term) => ({
      key: term.alias,
      read:
        term.result.kind === 'integer'
          ? integerOf
          : term.result.kind === 'number'
            ? (value: unknown) => (value === null || value === undefined ? null : Number(value))
            : valueDecoder(term.result.field, dialect.name),
    })),
  ];
  let exact = false;
  const out = rows.map((row) => {
    const record: Record<string, unknown> = {};
    readers.forEach(({ key, read }, i) => {
      const value = read(row[`c${i}`]);
      if (value instanceof ExactNumber) exact = true;
      record[key] = value;
    });
    return record;
  });
  return { rows: out, exactText: exact ? exactJson({ data: out }) : null };
}

/** JSON text in which every ExactNumber is written with its digits. */
function exactJson(body: unknown): string {
  const marks: string[] = [];
  // A random token per response: stored text cannot forge a mark.
  const token = randomBytes(9).toString('base64url');
  const text = JSON.stringify(body, function replace(this: unknown, key: string, value: unknown) {
    const raw = (this as Record<string, unknown>)[key];
    if (raw instanceof ExactNumber) {
      marks.push(raw.digits);
      return `${token}:${marks.length - 1}`;
    }
    return value;
  });
  return text.replace(new RegExp(`"${token}:(\\d+)"`, 'g'), (_, i: string) => marks[Number(i)]);
}

/** Runs a plan against `db`. */
export async function runAggregate(db: Executor, dialect: SqlDialect, model: ModelMeta, input: AggregateInput, options: QueryOptions = {}): Promise<AggregateRows> {
  const sql = aggregateStatement(dialect, model, input);
  return readRows(dialect, input.plan, await db.all(sql.sql, sql.params, options));
}

/** What `app.aggregate()` takes besides the model and the spec. */
export interface CodeAggregateOptions extends QueryOptions {
  /** Equalities the rows must satisfy (what tenancy and force filters add over HTTP). */
  scope?: readonly ScopeFilter[];
}

/**
 * The aggregate route's query from code: no pipeline, every named
 * expression (exposed or not) selectable; integers beyond 2^53 come back
 * as BigInt.
 */
export async function aggregateFromCode(db: Executor, dialect: SqlDialect, model: ModelMeta, spec: Record<string, unknown> | string, options: CodeAggregateOptions = {}): Promise<Record<string, unknown>[]> {
  const object = typeof spec === 'string' ? readAggregateParameter(new URLSearchParams({ aggregate: spec })) : spec;
  const plan = planAggregate(model, object, { exposedOnly: false });
  const { rows } = await runAggregate(db, dialect, model, { plan, filters: [], scope: options.scope }, options);
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) if (value instanceof ExactNumber) row[key] = BigInt(value.digits);
  }
  return rows;
}
