/**
 * Parsers for directive values, and casting of literal values (`default:`,
 * `enum:`, scheduled `to=`) to a field's type.
 *
 * Each parser throws a {@link DirectiveProblem} that says what is wrong with
 * the value; the caller adds the model, property and directive.
 */
import type { FieldType, JsonValue, ScalarType } from '@mfx/runtime/manifest';

/** A directive value that cannot be used, with an optional hint to fix it. */
export class DirectiveProblem extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

const INTEGER = /^[-+]?\d+$/;
const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Range of `Int` (a 32-bit integer column). */
export const INT32 = { min: -2147483648, max: 2147483647 } as const;
/** Range of `bigint` on the wire: JSON numbers that no client rounds. */
export const SAFE_INTEGER = { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } as const;

/** A decimal number such as `0`, `-1.5` or `1e3`. */
export function parseNumber(text: string): number {
  if (!DECIMAL.test(text)) throw new DirectiveProblem(`'${text}' is not a number`, 'Write a decimal number such as 0, 10 or 2.5');
  return Number(text);
}

/** A whole number no smaller than `min`. */
export function parseInteger(text: string, min = 0): number {
  if (!INTEGER.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new DirectiveProblem(`'${text}' is not a whole number`, `Write a whole number such as ${Math.max(min, 1)}`);
  }
  const value = Number(text);
  if (value < min) throw new DirectiveProblem(`${value} is below the minimum of ${min}`);
  return value;
}

/** A byte size: a whole number with an optional `B`, `KB`, `MB` or `GB` suffix (binary multiples). */
export function parseSize(text: string): number {
  const match = /^(\d+)\s*(B|KB|MB|GB)?$/i.exec(text);
  if (!match) throw new DirectiveProblem(`'${text}' is not a size`, 'Write bytes or a number with KB, MB or GB, such as 5MB');
  const unit = (match[2] ?? 'B').toUpperCase();
  const factor = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[unit] ?? 1;
  return Number(match[1]) * factor;
}

/** A `|`-separated list with no empty entries. */
export function parseList(text: string): string[] {
  const items = text.split('|').map((item) => item.trim());
  if (items.some((item) => item === '')) {
    throw new DirectiveProblem(`'${text}' has an empty option`, "Remove the extra '|' or fill in the missing value");
  }
  return items;
}

/** `NAME=a|b`: a name and a list. */
export function parseNamedList(text: string): { name: string; items: string[] } {
  const at = text.indexOf('=');
  if (at <= 0) throw new DirectiveProblem(`'${text}' is not NAME=a|b`, 'Write a name, an equals sign and a |-separated list');
  return { name: text.slice(0, at).trim(), items: parseList(text.slice(at + 1).trim()) };
}

/** The value is one of a fixed set of words. */
export function parseChoice<T extends string>(text: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(text)) return text as T;
  throw new DirectiveProblem(`'${text}' is not one of ${choices.join(', ')}`);
}

/**
 * Cast a literal to a field's type: the stored form of `default:`, enum
 * members and scheduled targets.
 *
 * `null` means NULL; a JSON double-quoted string may hold commas and
 * semicolons; JSON columns take JSON text.
 *
 * @example castLiteral('true', 'boolean', false) // true
 * @example castLiteral('["a"]', 'json_array', false, 'string') // ['a']
 */
export function castLiteral(text: string, type: FieldType, nullable: boolean, items?: ScalarType): JsonValue {
  if (text === 'null') {
    if (nullable) return null;
    throw new DirectiveProblem('null is not allowed on a non-nullable field', 'Make the field nullable (`| null`) or give another value');
  }
  switch (type) {
    case 'string':
      return text.startsWith('"') ? parseJsonAs(text, 'string', 'a string') : text;
    case 'number':
      return parseNumber(text);
    case 'integer':
      return parseIntegerIn(text, INT32, 'a 32-bit integer');
    case 'bigint':
      return parseIntegerIn(text, SAFE_INTEGER, 'a safe integer (at most 2^53 - 1)');
    case 'boolean':
      if (text === 'true' || text === '1') return true;
      if (text === 'false' || text === '0') return false;
      throw new DirectiveProblem(`'${text}' is not a boolean`, 'Write true, false, 1 or 0');
    case 'timestamp':
      return parseTimestamp(text.startsWith('"') ? String(parseJsonAs(text, 'string', 'a string')) : text);
    case 'json_array': {
      const value = parseJsonAs(text, 'array', 'a JSON array such as ["a","b"]') as JsonValue[];
      if (items) value.forEach((item) => castItem(item, items));
      return value;
    }
    case 'json_object':
      return parseJsonAs(text, 'object', 'a JSON object such as {"a":1}');
    case 'localized': {
      const value = parseJsonAs(text, 'object', 'a JSON map of locale to text such as {"en":"Hi"}') as Record<string, JsonValue>;
      if (Object.values(value).some((v) => typeof v !== 'string')) {
        throw new DirectiveProblem(`'${text}' is not a map of locale to text`, 'Write a JSON object of strings such as {"en":"Hi"}');
      }
      return value;
    }
  }
}

function parseIntegerIn(text: string, range: { min: number; max: number }, what: string): number {
  const value = INTEGER.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    throw new DirectiveProblem(`'${text}' is not ${what}`, `Write a whole number from ${range.min} to ${range.max}`);
  }
  return value;
}

function parseTimestamp(text: string): string {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  const time = Date.parse(text);
  if (!iso.test(text) || Number.isNaN(time)) {
    throw new DirectiveProblem(`'${text}' is not an ISO 8601 date-time`, 'Write a UTC time such as 2024-01-31T12:00:00Z');
  }
  return new Date(time).toISOString();
}

function parseJsonAs(text: string, kind: 'string' | 'array' | 'object', what: string): JsonValue {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DirectiveProblem(`'${text}' is not valid JSON`, `Write ${what}`);
  }
  const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  if (actual !== kind) throw new DirectiveProblem(`'${text}' is not ${what}`);
  return value as JsonValue;
}

function castItem(item: JsonValue, type: ScalarType): void {
  const ok =
    type === 'string' || type === 'timestamp'
      ? typeof item === 'string'
      : type === 'boolean'
        ? typeof item === 'boolean'
        : type === 'number'
          ? typeof item === 'number'
          : Number.isInteger(item);
  if (!ok) throw new DirectiveProblem(`${JSON.stringify(item)} is not a ${type}`, `Every element must be a ${type}`);
}
