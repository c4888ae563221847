// Validation: required, enum, bounds, lengths and defaults.
import type { DirectiveRow } from '../rule.js';
import { castLiteral, DirectiveProblem, parseInteger, parseList, parseNumber } from '../values.js';
import { NUMERIC, flag, text, checkBounds, checkDefault, integerRange } from './shared.js';

export const validationRows: readonly DirectiveRow[] = [
  // ── Validation ───────────────────────────────────────────────────────
  {
    name: 'required',
    summary: 'must be present on create',
    docs: {
      text: "The key must be present in the body of a create (422 `VALIDATION_ERROR` naming the field otherwise). An empty string is a value and satisfies it (add `minlen:1` to refuse it); `null` is refused unless the property's type includes `null`. Updates never require it. Not allowed on singletons, whose one row is created from defaults.",
      example: `export interface Signup extends Model {
  /** @mfx required, minlen:3 */
  email: string;
}`,
    },
    field: {
      parse: flag,
      conflicts: {
        readonly: 'A readonly field is stripped from every write, so a client can never send it; drop one of them',
        hidden: 'A hidden field is absent from the create schema, so a client can never send it; drop one of them',
      },
      apply: (_, { field }) => void (field.required = true),
      check: (_, { model }, report) => {
        if (model.ir.options.singleton) {
          report(
            `'required' is not allowed on a singleton model (its one row is created from defaults)`,
            'Give the field a default:V or make it nullable instead',
          );
        }
      },
    },
  },
  {
    name: 'enum',
    summary: 'the value must be one of a |-separated set',
    docs: {
      syntax: ['enum:a|b|c'],
      text: "The value must be one of the listed values (422 otherwise); the OpenAPI schema lists them. Works on strings and numbers; each value is read as the field's type.",
      example: `export interface Ticket extends Model {
  /** @mfx enum:low|normal|high, default:normal, filterable */
  priority: string;
}`,
    },
    field: {
      parse: (use) => parseList(text(use, 'a|b|c')),
      types: ['string', 'number', 'integer', 'bigint'],
      apply: (values: string[], { field }) => {
        const members = values.map((v) => String(castLiteral(v, field.type, false)));
        const repeated = members.find((m, i) => members.indexOf(m) !== i);
        if (repeated !== undefined) throw new DirectiveProblem(`'${repeated}' is listed twice`, 'List each value once');
        field.enum = members;
      },
      schema: (field) =>
        field.enum && {
          enum: [...field.enum.map((v) => castLiteral(v, field.type, false)), ...(field.nullable ? [null] : [])],
        },
    },
  },
  {
    name: 'min',
    summary: 'lower bound of a numeric value',
    docs: {
      syntax: ['min:N'],
      text: 'The smallest value a number field accepts, inclusive (422 below it).',
      example: `export interface Rating extends Model {
  /** @mfx min:1, max:5 */
  stars: Int;
}`,
    },
    field: {
      parse: (use) => parseNumber(text(use, 'N')),
      types: NUMERIC,
      typeHints: { string: "Use 'minlen:N' / 'maxlen:N' to bound a string's length" },
      apply: (min: number, { field }) => void (field.min = min),
      schema: (field) => (field.min === undefined ? undefined : { minimum: Math.max(field.min, integerRange(field)?.min ?? -Infinity) }),
    },
  },
  {
    name: 'max',
    summary: 'upper bound of a numeric value',
    docs: {
      syntax: ['max:N'],
      text: 'The largest value a number field accepts, inclusive (422 above it). `min` above `max` is a compile error.',
      example: `export interface Discount extends Model {
  /** @mfx min:0, max:100 */
  percent: number;
}`,
    },
    field: {
      parse: (use) => parseNumber(text(use, 'N')),
      types: NUMERIC,
      typeHints: { string: "Use 'minlen:N' / 'maxlen:N' to bound a string's length" },
      apply: (max: number, { field }) => void (field.max = max),
      check: (_, { field }, report) => checkBounds(field.min, field.max, 'min and max', report),
      schema: (field) => (field.max === undefined ? undefined : { maximum: Math.min(field.max, integerRange(field)?.max ?? Infinity) }),
    },
  },
  {
    name: 'minlen',
    summary: 'minimum string length',
    docs: {
      syntax: ['minlen:N'],
      text: 'The fewest characters a string accepts (422 below it). Characters are counted as code points.',
      example: `export interface Username extends Model {
  /** @mfx minlen:3, maxlen:32, unique */
  handle: string;
}`,
    },
    field: {
      parse: (use) => parseInteger(text(use, 'N')),
      types: ['string'],
      typeHints: Object.fromEntries(NUMERIC.map((t) => [t, "Use 'min:N' / 'max:N' to bound a number"])),
      apply: (n: number, { field }) => void (field.minlen = n),
      schema: (field) => (field.minlen === undefined ? undefined : { minLength: field.minlen }),
    },
  },
  {
    name: 'maxlen',
    summary: 'maximum string length',
    docs: {
      syntax: ['maxlen:N'],
      text: 'The most characters a string accepts (422 above it). Indexed text (`unique`, `index`, foreign keys, the cursor field) has a maximum of 255 characters by default and searchable text 100,000; `maxlen` lowers or raises it up to what the index can hold, and `mfx build` refuses a value the index cannot hold.',
      example: `export interface Tweet extends Model {
  /** @mfx required, maxlen:280 */
  text: string;
}`,
    },
    field: {
      parse: (use) => parseInteger(text(use, 'N')),
      types: ['string'],
      typeHints: Object.fromEntries(NUMERIC.map((t) => [t, "Use 'min:N' / 'max:N' to bound a number"])),
      apply: (n: number, { field }) => void (field.maxlen = n),
      check: (_, { field }, report) => checkBounds(field.minlen, field.maxlen, 'minlen and maxlen', report),
      schema: (field) => (field.maxlen === undefined ? undefined : { maxLength: field.maxlen }),
    },
  },

  {
    name: 'default',
    summary: 'used when the field is absent on create, cast to the field type',
    docs: {
      syntax: ['default:V'],
      text: "The value a create gets when the body leaves the key out, read as the field's type: `default:0`, `default:true`, `default:open`, `default:\"a, b\"` (quotes keep commas), `default:[\"inbox\"]` for arrays, `default:null` for nullable fields. It must satisfy the field's own `enum`, `min`, `max`, `minlen` and `maxlen`. Without a default, a NOT NULL field left out gets its type's zero value (`''`, `0`, `false`, `[]`, `{}`).",
      example: `export interface Task extends Model {
  /** @mfx required */
  title: string;
  /** @mfx default:false */
  done: boolean;
  /** @mfx default:["inbox"] */
  lists: string[];
}`,
    },
    field: {
      // The whole value, semicolons included: defaults are data, not sub-options.
      parse: (use) => {
        if (use.raw === undefined || use.raw === '') throw new DirectiveProblem("'default' needs a value", "Write 'default:V'");
        return use.raw;
      },
      options: true,
      apply: (value: string, { field }) => void (field.default = castLiteral(value, field.type, field.nullable, field.items)),
      check: (_, { field }, report) => checkDefault(field, report),
    },
  },
];
