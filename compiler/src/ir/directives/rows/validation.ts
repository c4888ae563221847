// Validation: required, enum, bounds, lengths and defaults.
import type { DirectiveRow } from '../rule.js';
import { castLiteral, DirectiveProblem, parseInteger, parseList, parseNumber } from '../values.js';
import { NUMERIC, flag, text, checkBounds, checkDefault, integerRange } from './shared.js';

export const validationRows: readonly DirectiveRow[] = [
  // ── Validation ───────────────────────────────────────────────────────
  {
    name: 'required',
    summary: 'must be present on create',
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
