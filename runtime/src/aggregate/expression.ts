/**
 * Named expressions of the aggregate route (spec "Optional model routes",
 * rule 6): arithmetic over a model's numeric columns, built with `col`,
 * `lit`, `add`, `sub`, `mul` and `div`, checked once at registration and
 * written into SQL with every literal bound.
 */
import { ConfigError } from '../errors/api-error.js';
import type { FieldManifest } from '../manifest/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { Registry } from '../registry/registry.js';
import type { SqlBuilder } from '../sql/builder.js';

/** A column reference, by JSON or column name. */
export interface ColumnNode {
  kind: 'col';
  name: string;
}

/** A number, bound as a parameter. */
export interface LiteralNode {
  kind: 'lit';
  value: number;
}

export type ArithmeticOp = 'add' | 'sub' | 'mul' | 'div';

export interface ArithmeticNode {
  kind: ArithmeticOp;
  left: ExpressionNode;
  right: ExpressionNode;
}

/** An expression tree, plain data (what the builders return). */
export type ExpressionNode = ColumnNode | LiteralNode | ArithmeticNode;

/** What an expression's value is: integer arithmetic (64-bit, truncating division) or floating point. */
export type NumericKind = 'integer' | 'number';

/** `col('revenue')`: a numeric column of the expression's model (JSON or column name). */
export const col = (name: string): ColumnNode => ({ kind: 'col', name });
/** `lit(2)`: a number, bound as a parameter (an integer literal keeps integer arithmetic integer). */
export const lit = (value: number): LiteralNode => ({ kind: 'lit', value });
/** `add(a, b)`: a + b. */
export const add = (left: ExpressionNode, right: ExpressionNode): ArithmeticNode => ({ kind: 'add', left, right });
/** `sub(a, b)`: a - b. */
export const sub = (left: ExpressionNode, right: ExpressionNode): ArithmeticNode => ({ kind: 'sub', left, right });
/** `mul(a, b)`: a * b. */
export const mul = (left: ExpressionNode, right: ExpressionNode): ArithmeticNode => ({ kind: 'mul', left, right });
/** `div(a, b)`: a / NULLIF(b, 0): dividing by zero gives NULL; integer operands divide with truncation. */
export const div = (left: ExpressionNode, right: ExpressionNode): ArithmeticNode => ({ kind: 'div', left, right });

/** How deep an expression may nest: a column or literal is depth 1, `add(col, lit)` depth 2. */
export const MAX_EXPRESSION_DEPTH = 8;

const SYMBOLS: Record<ArithmeticOp, string> = { add: '+', sub: '-', mul: '*', div: '/' };
const NUMERIC_TYPES = new Set(['number', 'integer', 'bigint']);

/** What `app.expression()` takes. */
export interface ExpressionDefinition {
  /** The model name, as in the manifest. */
  model: string;
  /** The name a select term uses as its `field`; must not be a field's JSON or column name. */
  name: string;
  expr: ExpressionNode;
  /** Available on the HTTP route (default false: only `app.aggregate()` from code can select it). */
  exposed?: boolean;
}

/** A checked expression: its columns resolved, its result kind known. */
export class NamedExpression {
  constructor(
    readonly name: string,
    readonly exposed: boolean,
    readonly kind: NumericKind,
    private readonly root: ResolvedNode,
    /** `(price * qty)` style text for documentation, with JSON names. */
    readonly text: string,
  ) {}

  /** Writes the expression on table alias `alias`; literals are bound, columns quoted from the registry. */
  write(sql: SqlBuilder, alias: string): void {
    writeNode(sql, alias, this.root);
  }
}

type ResolvedNode =
  | { kind: 'col'; field: FieldManifest; integer: boolean }
  | { kind: 'lit'; value: number; integer: boolean }
  | { kind: ArithmeticOp; left: ResolvedNode; right: ResolvedNode; integer: boolean };

/**
 * Integer columns and literals are cast to the 64-bit integer type (so
 * `integer * integer` cannot overflow 32 bits on PostgreSQL), fractional
 * literals to double precision; both databases then truncate integer
 * division towards zero.
 */
function writeNode(sql: SqlBuilder, alias: string, node: ResolvedNode): void {
  switch (node.kind) {
    case 'col':
      if (node.integer) sql.text('CAST(').column(alias, node.field.column).text(` AS ${sql.dialect.columnType('bigint')})`);
      else sql.column(alias, node.field.column);
      return;
    case 'lit':
      sql.text('CAST(').value(node.value).text(` AS ${sql.dialect.columnType(node.integer ? 'bigint' : 'number')})`);
      return;
    case 'div':
      sql.text('(');
      writeNode(sql, alias, node.left);
      sql.text(' / NULLIF(');
      writeNode(sql, alias, node.right);
      sql.text(', 0))');
      return;
    default:
      sql.text('(');
      writeNode(sql, alias, node.left);
      sql.text(` ${SYMBOLS[node.kind]} `);
      writeNode(sql, alias, node.right);
      sql.text(')');
  }
}

function describe(node: ResolvedNode): string {
  switch (node.kind) {
    case 'col':
      return node.field.name;
    case 'lit':
      return String(node.value);
    default:
      return `(${describe(node.left)} ${SYMBOLS[node.kind]} ${describe(node.right)})`;
  }
}

/**
 * Checks a definition against its model and resolves it: an unknown,
 * hidden or non-numeric column, a name that is a field's, a malformed node
 * or nesting over MAX_EXPRESSION_DEPTH is a ConfigError naming the
 * expression.
 *
 * @example
 * checkExpression(order, { model: 'Order', name: 'margin', expr: sub(col('price'), col('cost')) }).kind; // 'integer'
 */
export function checkExpression(model: ModelMeta, definition: ExpressionDefinition): NamedExpression {
  const { name } = definition;
  const label = `expression ${JSON.stringify(name)} of ${model.name}`;
  const fail = (problem: string) => new ConfigError(`${label}: ${problem}`);
  if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new ConfigError(`expression of ${model.name}: name ${JSON.stringify(name)} must be an identifier (letters, digits and _, not starting with a digit)`);
  }
  const field = model.field(name);
  if (field) throw fail(`the name collides with the field ${field.name}${field.column !== field.name ? ` (column ${field.column})` : ''}; choose another name`);
  if (definition.exposed !== undefined && typeof definition.exposed !== 'boolean') throw fail('exposed must be true or false');

  const resolve = (node: ExpressionNode, depth: number): ResolvedNode => {
    if (depth > MAX_EXPRESSION_DEPTH) throw fail(`nests deeper than ${MAX_EXPRESSION_DEPTH} levels; split it or simplify it`);
    if (node === null || typeof node !== 'object') throw fail(`${JSON.stringify(node)} is not an expression node; build it with col, lit, add, sub, mul and div`);
    switch (node.kind) {
      case 'col': {
        const target = typeof node.name === 'string' ? model.field(node.name) : undefined;
        const numeric = model.fieldsWith('recorded').filter((f) => NUMERIC_TYPES.has(f.type)).map((f) => f.name);
        const hint = `numeric columns: ${numeric.join(', ') || 'none'}`;
        if (!target) throw fail(`unknown column ${JSON.stringify(node.name)}; ${hint}`);
        if (!model.roles(target).recorded) throw fail(`column ${target.name} is hidden, writeonly or encrypted and cannot be aggregated; ${hint}`);
        if (!NUMERIC_TYPES.has(target.type)) throw fail(`column ${target.name} is not numeric (${target.type}); ${hint}`);
        return { kind: 'col', field: target, integer: target.type !== 'number' };
      }
      case 'lit': {
        const value = node.value;
        if (typeof value !== 'number' || !Number.isFinite(value)) throw fail(`literal ${String(value)} is not a finite number`);
        if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw fail(`literal ${value} is outside the safe integer range`);
        return { kind: 'lit', value, integer: Number.isInteger(value) };
      }
      case 'add':
      case 'sub':
      case 'mul':
      case 'div': {
        const left = resolve(node.left, depth + 1);
        const right = resolve(node.right, depth + 1);
        return { kind: node.kind, left, right, integer: left.integer && right.integer };
      }
      default:
        throw fail(`unknown node kind ${JSON.stringify((node as { kind?: unknown }).kind)}; build it with col, lit, add, sub, mul and div`);
    }
  };
  const root = resolve(definition.expr, 1);
  return new NamedExpression(name, definition.exposed ?? false, root.integer ? 'integer' : 'number', root, describe(root));
}

/**
 * `app.expression()`: checks the definition against its (registered) model
 * and adds it to the model's expressions; a second expression of the same
 * name is a ConfigError too.
 */
export function registerExpression(registry: Registry, definition: ExpressionDefinition): NamedExpression {
  if (definition === null || typeof definition !== 'object') throw new ConfigError('app.expression() needs { model, name, expr, exposed? }');
  const model = registry.require(definition.model, `the expression ${JSON.stringify(definition.name)}`);
  if (model.expressions.has(definition.name)) throw new ConfigError(`expression ${JSON.stringify(definition.name)} of ${model.name} is registered twice; give each expression its own name`);
  const expression = checkExpression(model, definition);
  model.expressions.set(expression.name, expression);
  return expression;
}
