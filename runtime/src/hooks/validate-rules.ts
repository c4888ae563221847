/**
 * The field-rule validation hooks of the `validate` namespace (spec:
 * Errors, validation rule 6): regex, forbidden values, at least one,
 * cross-field, date range, required-when. Each is a Validate-step hook
 * whose rule the step's default judges with the directive rules, in one
 * 422 VALIDATION_ERROR, on the record the write would store (on update, the
 * stored record with the patch over it): see pipeline/write-rules.ts.
 */
import { ConfigError, type ValidationDetail } from '../errors/api-error.js';
import { ruleHook, type WriteRecord } from '../pipeline/write-rules.js';
import type { Hook } from '../pipeline/types.js';

const NONE: readonly ValidationDetail[] = Object.freeze([]);

/** Absent, null, an empty or blank string, or an empty list: what "not given" means to these hooks. */
const blank = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);

const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

const needs = (name: string, shape: string) => new ConfigError(`${name} needs ${shape}`);

/** Longest text validate.regex tests; a longer value fails (see the decision "validate.regex and catastrophic backtracking"). */
export const REGEX_MAX_INPUT = 10_000;

/**
 * Why a pattern could backtrack catastrophically, or null: a quantified
 * group whose body holds another unbounded quantifier (`(a+)+`, `(\w*)*`,
 * `(a|b+){2,}`), or a back-reference. Linear-time shapes pass.
 */
export function backtrackingRisk(pattern: RegExp): string | null {
  const source = pattern.source;
  // Per open group: whether its body holds an unbounded quantifier.
  const groups: boolean[] = [];
  let inClass = false;
  let lastClosed: boolean | null = null;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') {
      if (!inClass && /[1-9k]/.test(source[i + 1] ?? '')) return 'it uses a back-reference';
      i++;
      lastClosed = null;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      lastClosed = null;
      continue;
    }
    if (ch === '(') {
      groups.push(false);
      lastClosed = null;
      continue;
    }
    if (ch === ')') {
      const inner = groups.pop() ?? false;
      if (inner && groups.length > 0) groups[groups.length - 1] = true;
      lastClosed = inner;
      continue;
    }
    const brace = ch === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i)) : null;
    const unbounded = ch === '*' || ch === '+' || (brace !== null && brace[2] !== undefined && (brace[3] === '' || Number(brace[3]) > 1));
    if (unbounded || (brace && Number(brace[1]) > 1)) {
      if (lastClosed) return 'a repeated group holds another repetition (such as (a+)+)';
      if (unbounded && groups.length > 0) groups[groups.length - 1] = true;
      if (brace) i += brace[0].length - 1;
    }
    lastClosed = null;
  }
  return null;
}

export interface RegexOptions {
  /** JSON name of a text field. */
  field: string;
  /** The pattern the whole value must match somewhere (anchor it with ^ and $ to match all of it). */
  pattern: RegExp;
  /** The detail's message; default `must match <pattern>`. */
  message?: string;
}

/**
 * A text field must match `pattern`. An absent, null or non-string value is
 * not judged (required and type are the directives' rules). Patterns that
 * can backtrack catastrophically (a repeated group holding another
 * repetition, back-references) are refused at registration, and a value
 * longer than 10,000 characters fails without being tested.
 *
 * @example
 * app.use('validate', validate.regex({ field: 'slug', pattern: /^[a-z0-9-]+$/, message: 'lower-case letters, digits and dashes only' }), { models: ['Post'] });
 */
export function regex(options: RegexOptions): Hook {
  if (!options?.field || !(options.pattern instanceof RegExp)) throw needs('validate.regex()', '{ field, pattern }: a text field and a RegExp, such as { field: "slug", pattern: /^[a-z0-9-]+$/ }');
  const { field } = options;
  const label = `validate.regex({ field: '${field}' })`;
  const risk = backtrackingRisk(options.pattern);
  if (risk) throw new ConfigError(`${label}: the pattern ${String(options.pattern)} can take exponential time on some inputs because ${risk}; rewrite it without nested repetition`);
  // A global or sticky pattern keeps lastIndex between tests; a copy without those flags does not.
  const pattern = new RegExp(options.pattern.source, options.pattern.flags.replace(/[gy]/g, ''));
  const message = options.message ?? `must match ${String(pattern)}`;
  return ruleHook({
    label,
    fields: [field],
    rule: () => ({
      details(record) {
        const value = record[field];
        if (typeof value !== 'string') return NONE;
        if (value.length > REGEX_MAX_INPUT) return [{ field, message: `is too long to check against its pattern (at most ${REGEX_MAX_INPUT} characters)` }];
        return pattern.test(value) ? NONE : [{ field, message }];
      },
    }),
  });
}

export interface ForbiddenOptions {
  field: string;
  /** Values the field may not hold (compared with ===). */
  values: readonly unknown[];
}

/**
 * The field may not hold any of `values`.
 *
 * @example
 * app.use('validate', validate.forbidden({ field: 'username', values: ['admin', 'root'] }), { models: ['User'] });
 */
export function forbidden(options: ForbiddenOptions): Hook {
  if (!options?.field || !Array.isArray(options.values) || options.values.length === 0) {
    throw needs('validate.forbidden()', '{ field, values }: a field and the values it may not hold, such as { field: "username", values: ["admin"] }');
  }
  const { field } = options;
  const values = new Set(options.values);
  return ruleHook({
    label: `validate.forbidden({ field: '${field}' })`,
    fields: [field],
    rule: () => ({
      details: (record) => (values.has(record[field]) ? [{ field, message: `must not be ${show(record[field])}` }] : NONE),
    }),
  });
}

export interface AtLeastOneOptions {
  /** Two or more fields; one of them must be given (not absent, null, blank or an empty list). */
  fields: readonly string[];
}

/**
 * At least one of `fields` must be given. The detail names the first field.
 *
 * @example
 * app.use('validate', validate.atLeastOne({ fields: ['email', 'phone'] }), { models: ['Contact'] });
 */
export function atLeastOne(options: AtLeastOneOptions): Hook {
  if (!Array.isArray(options?.fields) || options.fields.length < 2) throw needs('validate.atLeastOne()', '{ fields }: two or more fields, such as { fields: ["email", "phone"] }');
  const fields = [...options.fields];
  const detail = [{ field: fields[0], message: `is required unless one of ${fields.slice(1).join(', ')} is given: give at least one of ${fields.join(', ')}` }];
  return ruleHook({
    label: `validate.atLeastOne({ fields: [${fields.map((f) => `'${f}'`).join(', ')}] })`,
    fields,
    rule: () => ({ details: (record) => (fields.every((f) => blank(record[f])) ? detail : NONE) }),
  });
}

export interface CrossFieldOptions {
  /** The fields `check` reads; the detail names the last one. */
  fields: readonly string[];
  /** True when the values (by field name, absent as undefined) are acceptable together. */
  check: (values: Readonly<Record<string, unknown>>) => boolean;
  /** The detail's message. */
  message: string;
}

/**
 * A rule over several fields: `check` gets their values as the write would
 * store them (on update the stored values with the patch over them) and
 * answers whether they go together. A `check` that throws is a hook error
 * (500 INTERNAL, logged).
 *
 * @example
 * app.use('validate', validate.crossField({ fields: ['minPrice', 'maxPrice'], check: (v) => v.minPrice == null || v.maxPrice == null || (v.minPrice as number) <= (v.maxPrice as number), message: 'must not be below minPrice' }), { models: ['Offer'] });
 */
export function crossField(options: CrossFieldOptions): Hook {
  if (!Array.isArray(options?.fields) || options.fields.length === 0 || typeof options.check !== 'function' || !options.message) {
    throw needs('validate.crossField()', '{ fields, check, message }: the fields, a function (values) => boolean and the message when it answers false');
  }
  const { check, message } = options;
  const fields = [...options.fields];
  const detail = [{ field: fields[fields.length - 1], message }];
  return ruleHook({
    label: `validate.crossField({ fields: [${fields.map((f) => `'${f}'`).join(', ')}] })`,
    fields,
    rule: () => ({
      details(record: WriteRecord) {
        const values: Record<string, unknown> = {};
        for (const f of fields) values[f] = record[f];
        return check(values) ? NONE : detail;
      },
    }),
  });
}

export interface DateRangeOptions {
  /** The field holding the start (a timestamp or ISO 8601 text). */
  start: string;
  /** The field holding the end; it may equal the start, not precede it. */
  end: string;
}

/**
 * `end` must not be before `start`; the detail names `end`. Either side
 * absent, null or not a date: not judged.
 *
 * @example
 * app.use('validate', validate.dateRange({ start: 'startsAt', end: 'endsAt' }), { models: ['Event'] });
 */
export function dateRange(options: DateRangeOptions): Hook {
  if (!options?.start || !options.end) throw needs('validate.dateRange()', '{ start, end }: the two date fields, such as { start: "startsAt", end: "endsAt" }');
  const { start, end } = options;
  const detail = [{ field: end, message: `must not be before ${start}` }];
  const time = (value: unknown) => (typeof value === 'string' || value instanceof Date ? new Date(value).getTime() : Number.NaN);
  return ruleHook({
    label: `validate.dateRange({ start: '${start}', end: '${end}' })`,
    fields: [start, end],
    rule: () => ({
      details(record) {
        const from = time(record[start]);
        const to = time(record[end]);
        return Number.isNaN(from) || Number.isNaN(to) || to >= from ? NONE : detail;
      },
    }),
  });
}

export interface RequiredWhenOptions {
  /** The field that becomes required. */
  field: string;
  /** When this other field equals this value (compared with ===). */
  when: { field: string; equals: unknown };
}

/**
 * `field` is required (not absent, null, blank or an empty list) when
 * `when.field` equals `when.equals`.
 *
 * @example
 * app.use('validate', validate.requiredWhen({ field: 'shippedAt', when: { field: 'status', equals: 'shipped' } }), { models: ['Order'] });
 */
export function requiredWhen(options: RequiredWhenOptions): Hook {
  if (!options?.field || !options.when?.field || !('equals' in options.when)) {
    throw needs('validate.requiredWhen()', '{ field, when: { field, equals } }, such as { field: "shippedAt", when: { field: "status", equals: "shipped" } }');
  }
  const { field, when } = options;
  const detail = [{ field, message: `is required when ${when.field} is ${show(when.equals)}` }];
  return ruleHook({
    label: `validate.requiredWhen({ field: '${field}', when: { field: '${when.field}' } })`,
    fields: [field, when.field],
    rule: () => ({ details: (record) => (record[when.field] === when.equals && blank(record[field]) ? detail : NONE) }),
  });
}
