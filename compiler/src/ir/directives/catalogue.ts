/**
 * The directive catalogue: one row per `@mfx` directive.
 *
 * A row says where the directive may appear (property, relation property,
 * interface), how its value is parsed, which field types it fits, what it
 * conflicts with, what it writes into the IR, which checks it needs once the
 * model is complete, and its JSON-Schema fragment. Adding a directive means
 * adding a row here; nothing else dispatches on directive names.
 *
 * Rows run in catalogue order: `db` and the type-shaping rows (`int`,
 * `json_array`, `json_object`, `locale`) come first, so later rows check the
 * final type, and `default` comes after every row it is checked against.
 */
import type { FieldManifest, FieldType, LocaleMode, OnDelete, QueryLimits } from '@mfx/runtime/manifest';
import { findField } from '../model.js';
import { didYouMean } from '../suggest.js';
import {
  BASE_OPTIONS,
  type BaseOption,
  type BaseOptionColumn,
  type DirectiveRow,
  type FieldContext,
  type ModelDraft,
  type Report,
} from './rule.js';
import type { DirectiveUse } from './syntax.js';
import {
  castLiteral,
  DirectiveProblem,
  INT32,
  parseChoice,
  parseInteger,
  parseList,
  parseNamedList,
  parseNumber,
  parseSize,
  SAFE_INTEGER,
} from './values.js';

const NUMERIC: readonly FieldType[] = ['number', 'integer', 'bigint'];
const ORDERED: readonly FieldType[] = ['string', 'number', 'integer', 'bigint', 'boolean', 'timestamp', 'localized'];
const LOCALE_MODES: readonly LocaleMode[] = ['split', 'resolve', 'dynamic'];
const ON_DELETE: readonly Exclude<OnDelete, 'noAction'>[] = ['cascade', 'setNull', 'restrict'];
const QUERY_LIMIT_KEYS: readonly (keyof QueryLimits)[] = [
  'maxFilters',
  'maxOrGroups',
  'maxOrGroupClauses',
  'maxSorts',
  'maxIncludes',
  'aggregateSelect',
  'aggregateGroupBy',
  'aggregateWhere',
  'aggregateHaving',
  'aggregateOrderBy',
];

/** The directive takes no value. */
function flag(use: DirectiveUse): true {
  if (use.value !== undefined) throw new DirectiveProblem(`'${use.name}' takes no value`, `Write '${use.name}' alone`);
  return true;
}

/** The directive needs a non-empty value; `form` shows it, e.g. `N` for `min:N`. */
function text(use: DirectiveUse, form: string): string {
  if (!use.value) throw new DirectiveProblem(`'${use.name}' needs a value`, `Write '${use.name}:${form}'`);
  return use.value;
}

function localeCode(use: DirectiveUse): string {
  const code = text(use, 'en');
  if (!/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(code)) {
    throw new DirectiveProblem(`'${code}' is not a locale code`, 'Write a code such as en, de or pt-BR');
  }
  return code;
}

function ensureLocale(field: FieldContext['field']) {
  field.locale ??= {};
  return field.locale;
}

/** The row of one localized response mode; it conflicts with the modes after it, so a pair is reported once. */
function localeModeRow(mode: LocaleMode): DirectiveRow {
  const others = LOCALE_MODES.filter((m) => m !== mode && LOCALE_MODES.indexOf(m) > LOCALE_MODES.indexOf(mode));
  return {
    name: mode,
    summary: `response mode '${mode}' of a localized field`,
    field: {
      parse: flag,
      types: ['localized'],
      conflicts: Object.fromEntries(others.map((m) => [m, 'A localized field has one response mode; keep one of them'])),
      apply: (_, { field }) => void (ensureLocale(field).mode = mode),
    },
  };
}

function setVersioned(model: ModelDraft, diffOnly: boolean): void {
  model.versioned = { diffOnly: diffOnly || (model.versioned?.diffOnly ?? false) };
}

function setCursor(model: ModelDraft, name: string): void {
  if (model.cursor && model.cursor.name !== name) {
    throw new DirectiveProblem(
      `cursor_field is set twice ('${model.cursor.name}' and '${name}')`,
      'A model has one keyset pagination field; keep one cursor_field',
    );
  }
  model.cursor = { name, resolved: false };
}

/** Resolves the cursor field once and checks that it is sortable (keyset pagination orders by it). */
function resolveCursor(model: ModelDraft, report: Report): void {
  const cursor = model.cursor;
  if (!cursor || cursor.resolved) return;
  cursor.resolved = true;
  const field = findField(model.ir, cursor.name);
  if (!field) {
    report(`'cursor_field:${cursor.name}' names no field of ${model.ir.name}`, didYouMean(cursor.name, model.ir.fields.map((f) => f.name)));
    return;
  }
  if (!field.sortable) {
    report(
      `'cursor_field:${field.name}' needs ${field.name} to be sortable`,
      field.base ? `Add 'base:${field.name}=sortable' to the model's @mfx` : `Add 'sortable' to the @mfx of ${model.ir.name}.${field.name}`,
    );
    return;
  }
  model.ir.options.cursorField = field.name;
}

type NamedList = { name: string; items: string[] };

/** Resolves the columns of `index:`/`unique_index:` (JSON names or column names) and records the index. */
function addIndex(model: ModelDraft, { name, items }: NamedList, unique: boolean, report: Report): void {
  const directive = unique ? 'unique_index' : 'index';
  if (model.ir.options.indices.some((index) => index.name === name)) {
    report(`'${directive}:${name}' reuses the index name ${name}`, 'Give every index its own name');
    return;
  }
  const columns: string[] = [];
  for (const item of items) {
    const field = findField(model.ir, item);
    if (!field) {
      report(`'${directive}:${name}' names ${item}, which is no field of ${model.ir.name}`, didYouMean(item, model.ir.fields.map((f) => f.name)));
      return;
    }
    columns.push(field.column);
  }
  model.ir.options.indices.push({ name, columns, unique });
}

/** min/max/minlen/maxlen must not contradict each other. */
function checkBounds(lower: number | undefined, upper: number | undefined, names: string, report: Report): void {
  if (lower !== undefined && upper !== undefined && lower > upper) {
    report(`${names} are contradictory (${lower} > ${upper})`, 'The lower bound must not exceed the upper bound');
  }
}

/** A default must satisfy the field's own rules, or every create that omits the field would be refused. */
function checkDefault(field: FieldContext['field'], report: Report): void {
  const value = field.default;
  if (value === null || value === undefined) return;
  if (field.enum && !field.enum.includes(String(value))) {
    report(`default ${JSON.stringify(value)} is not one of the enum values (${field.enum.join(', ')})`, 'Use one of the enum values, or add it to the enum');
  }
  if (typeof value === 'number') {
    if (field.min !== undefined && value < field.min) report(`default ${value} is below min:${field.min}`, 'Pick a default inside the bounds');
    if (field.max !== undefined && value > field.max) report(`default ${value} is above max:${field.max}`, 'Pick a default inside the bounds');
  }
  if (typeof value === 'string' && field.type === 'string') {
    const length = [...value].length;
    if (field.minlen !== undefined && length < field.minlen) report(`default "${value}" is shorter than minlen:${field.minlen}`, 'Pick a longer default');
    if (field.maxlen !== undefined && length > field.maxlen) report(`default "${value}" is longer than maxlen:${field.maxlen}`, 'Pick a shorter default');
  }
}

function integerRange(field: FieldManifest) {
  return field.type === 'integer' ? INT32 : field.type === 'bigint' ? SAFE_INTEGER : undefined;
}

function scheduledAction(use: DirectiveUse): NonNullable<FieldManifest['scheduled']> | { action: 'set-field'; field: string; to: string; from?: string } {
  const forms = "Write 'scheduled;soft-delete', 'scheduled;hard-delete', 'scheduled;field=NAME;to=VALUE' or 'scheduled;field=NAME;from=OLD;to=NEW'";
  if (use.value !== undefined) throw new DirectiveProblem(`'scheduled' takes ';' options, not a ':' value`, forms);
  const keys = use.options.map((o) => o.key);
  if (keys.length === 1 && (keys[0] === 'soft-delete' || keys[0] === 'hard-delete') && use.options[0].value === undefined) {
    return { action: keys[0] };
  }
  const option = (key: string) => use.options.find((o) => o.key === key)?.value;
  const unknown = keys.filter((k) => !['field', 'to', 'from'].includes(k));
  if (keys.length === 0) throw new DirectiveProblem("'scheduled' needs an action", forms);
  if (unknown.length) throw new DirectiveProblem(`'${unknown[0]}' is not a scheduled option`, forms);
  const field = option('field');
  const to = option('to');
  if (!field || to === undefined) throw new DirectiveProblem("'scheduled;field=NAME' needs both field= and to=", forms);
  const from = option('from');
  return from === undefined ? { action: 'set-field', field, to } : { action: 'set-field', field, to, from };
}

/**
 * Every directive, in the order rows are applied to a property.
 */
export const CATALOGUE: readonly DirectiveRow[] = [
  // ── Exclusion and naming ─────────────────────────────────────────────
  {
    name: '-',
    summary: 'drop the property: no column, no field',
    excludes: true,
    field: { parse: flag, apply: () => {} },
    relationProperty: { parse: flag, apply: () => {} },
  },
  {
    name: 'db',
    summary: 'column name (default: the JSON name)',
    field: {
      parse: (use) => text(use, 'NAME'),
      apply: (column: string, { field }) => void (field.column = column),
    },
  },
  {
    name: 'abstract',
    summary: 'the interface is a base for other models, not a model itself',
    // Read before any model is built (ir/index.ts): an abstract base is only checked through its sub-models.
    model: { parse: flag, apply: () => {} },
  },
  {
    name: 'table',
    summary: 'table name (default: snake_case plural of the model name)',
    model: { parse: (use) => text(use, 'NAME'), apply: (table: string, model) => void (model.ir.table = table) },
  },

  // ── Type shaping ─────────────────────────────────────────────────────
  {
    name: 'int',
    summary: 'store a number as a 32-bit integer (like the Int type)',
    field: {
      parse: flag,
      types: ['number', 'integer'],
      apply: (_, { field }) => void (field.type = 'integer'),
    },
  },
  {
    name: 'json_array',
    summary: 'the column holds a JSON array',
    field: {
      parse: flag,
      fits: ({ field, shape }) => field.type === 'json_array' || shape.opaque === true,
      typeHints: { json_object: 'Declare the property as an array type (or unknown) to store a JSON array' },
      apply: (_, { field }) => void (field.type = 'json_array'),
    },
  },
  {
    name: 'json_object',
    summary: 'the column holds a JSON object',
    field: {
      parse: flag,
      fits: ({ field }) => field.type === 'json_object',
      typeHints: { json_array: 'Arrays are stored as JSON arrays; use json_array or declare an object type' },
      apply: () => {},
    },
  },
  {
    name: 'locale',
    summary: 'a localized string field (a map of locale code to text)',
    field: {
      parse: flag,
      fits: ({ field, shape }) => field.type === 'localized' || (field.type === 'json_object' && shape.stringMap === true),
      typeHints: { string: "Declare the property as Localized (from '@mfx/runtime') to store one text per locale" },
      apply: (_, { field }) => {
        field.type = 'localized';
        ensureLocale(field);
      },
    },
  },

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

  // ── Access ───────────────────────────────────────────────────────────
  {
    name: 'readonly',
    summary: 'stripped from all writes',
    field: {
      parse: flag,
      conflicts: {
        writeonly: 'A readonly field is never written and a writeonly field is never read; drop one of them',
        immutable: 'readonly already strips the field from every write; drop immutable',
      },
      apply: (_, { field }) => void (field.readonly = true),
    },
  },
  {
    name: 'immutable',
    summary: 'accepted on create, stripped on update',
    field: { parse: flag, apply: (_, { field }) => void (field.immutable = true) },
  },
  {
    name: 'writeonly',
    summary: 'accepted on write, never in responses',
    field: {
      parse: flag,
      conflicts: { hidden: 'A hidden field is not accepted on writes either; use writeonly alone for write-only input' },
      apply: (_, { field }) => void (field.writeonly = true),
    },
  },
  {
    name: 'hidden',
    summary: 'never in responses and absent from the create and update schemas',
    field: { parse: flag, apply: (_, { field }) => void (field.hidden = true) },
  },

  // ── Query ────────────────────────────────────────────────────────────
  {
    name: 'filterable',
    summary: 'usable in filter',
    field: { parse: flag, apply: (_, { field }) => void (field.filterable = true) },
  },
  {
    name: 'sortable',
    summary: 'usable in sort',
    field: {
      parse: flag,
      types: ORDERED,
      apply: (_, { field }) => void (field.sortable = true),
    },
  },
  {
    name: 'searchable',
    summary: 'full-text search hint; text columns only',
    field: {
      parse: flag,
      types: ['string'],
      typeHints: {
        localized: 'Full-text search covers plain text columns only and a localized field is a JSON map; drop searchable',
      },
      apply: (_, { field }) => void (field.searchable = true),
    },
  },

  // ── Storage ──────────────────────────────────────────────────────────
  {
    name: 'unique',
    summary: 'UNIQUE constraint on the column',
    field: { parse: flag, apply: (_, { field }) => void (field.unique = true) },
  },
  {
    name: 'index',
    summary: 'on a property: an index on its column; on a model: index:NAME=col|col',
    field: { parse: flag, apply: (_, { field }) => void (field.index = true) },
    model: {
      parse: (use) => parseNamedList(text(use, 'NAME=col|col')),
      repeatable: true,
      apply: () => {},
      check: (index: NamedList, model, report) => addIndex(model, index, false, report),
    },
  },
  {
    name: 'unique_index',
    summary: 'a UNIQUE index over several columns: unique_index:NAME=col|col',
    model: {
      parse: (use) => parseNamedList(text(use, 'NAME=col|col')),
      repeatable: true,
      apply: () => {},
      check: (index: NamedList, model, report) => addIndex(model, index, true, report),
    },
  },

  // ── Relations ────────────────────────────────────────────────────────
  {
    name: 'relation',
    summary: 'explicit foreign key relation:Name[;onDelete:cascade|setNull|restrict]; on an array, picks the inverse',
    field: {
      parse: (use): { name: string; onDelete: OnDelete } => {
        const name = text(use, 'Name');
        let onDelete: OnDelete = 'noAction';
        for (const option of use.options) {
          if (option.key !== 'onDelete') {
            throw new DirectiveProblem(`'${option.key}' is not a relation option`, didYouMean(option.key, ['onDelete']) ?? "The only option is 'onDelete'");
          }
          onDelete = parseChoice(option.value ?? '', ON_DELETE);
        }
        return { name, onDelete };
      },
      // A wrong onDelete still names the companion: bind it, so it is not reported as an orphan too.
      recover: (use, { field }) => {
        if (use.value) field.explicitRelation = { name: use.value, onDelete: 'noAction' };
      },
      options: true,
      types: ['string'],
      typeHints: Object.fromEntries(
        (['number', 'integer', 'bigint'] as const).map((t) => [t, 'A foreign key holds the parent id, which is a string']),
      ),
      apply: (relation: { name: string; onDelete: OnDelete }, { field }) => void (field.explicitRelation = relation),
    },
    relationProperty: {
      parse: (use) => text(use, 'KEY'),
      manyOnly: true,
      apply: (key: string, property) => void (property.pick = key),
    },
  },
  {
    name: 'through',
    summary: 'many-to-many through a junction model, on array properties',
    relationProperty: {
      parse: (use) => text(use, 'Junction'),
      manyOnly: true,
      apply: (junction: string, property) => void (property.through = junction),
    },
  },

  // ── Files ────────────────────────────────────────────────────────────
  {
    name: 'file',
    summary: 'multipart file field; the column stores the storage key',
    field: {
      parse: flag,
      types: ['string'],
      typeHints: Object.fromEntries(
        (['number', 'integer', 'bigint', 'boolean', 'timestamp', 'json_array', 'json_object', 'localized'] as const).map((t) => [
          t,
          'A file field stores the storage key, so declare it as string (or string | null)',
        ]),
      ),
      apply: (_, { field }) => void (field.file = { autoDelete: true }),
    },
  },
  {
    name: 'max_size',
    summary: 'file size cap: bytes or a KB/MB/GB suffix',
    field: {
      parse: (use) => parseSize(text(use, '5MB')),
      requires: 'file',
      apply: (bytes: number, { field }) => void (field.file!.maxSize = bytes),
    },
  },
  {
    name: 'accept',
    summary: 'allowed MIME patterns, e.g. image/*|application/pdf',
    field: {
      parse: (use) => {
        const patterns = parseList(text(use, 'image/*|application/pdf'));
        const bad = patterns.find((p) => !/^[\w.+-]+\/([\w.+-]+|\*)$/.test(p));
        if (bad) throw new DirectiveProblem(`'${bad}' is not a MIME type pattern`, 'Write type/subtype, e.g. image/png or image/*');
        return patterns;
      },
      requires: 'file',
      apply: (patterns: string[], { field }) => void (field.file!.accept = patterns),
    },
  },
  {
    name: 'auto_delete',
    summary: 'auto_delete:false keeps the stored file when the row is deleted or the field replaced',
    field: {
      parse: (use) => parseChoice(text(use, 'false'), ['true', 'false'] as const) === 'true',
      requires: 'file',
      apply: (keep: boolean, { field }) => void (field.file!.autoDelete = keep),
    },
  },

  // ── Encryption ───────────────────────────────────────────────────────
  {
    name: 'encrypted',
    summary: 'AES-256-GCM at rest; with unique, a <column>_hmac blind index',
    field: {
      parse: flag,
      types: ['string'],
      typeHints: Object.fromEntries(
        (['number', 'integer', 'bigint', 'boolean', 'timestamp', 'json_array', 'json_object', 'localized'] as const).map((t) => [
          t,
          'Encrypted values are stored as text; declare the field as string',
        ]),
      ),
      conflicts: {
        filterable: 'Encrypted values cannot be filtered; drop filterable (encrypted,unique still allows exact lookups)',
        sortable: 'Encrypted values cannot be sorted; drop sortable',
        searchable: 'Encrypted values cannot be searched; drop searchable',
        default: 'A column default would be stored unencrypted; drop default',
      },
      // The UNIQUE constraint moves to the HMAC companion column: ciphertexts of equal values differ.
      apply: (_, { field }) => {
        field.encrypted = { keyId: 'default', unique: field.unique };
        field.unique = false;
      },
    },
  },
  {
    name: 'key',
    summary: 'key id for the key provider (default: default)',
    field: {
      parse: (use) => text(use, 'NAME'),
      requires: 'encrypted',
      apply: (keyId: string, { field }) => void (field.encrypted!.keyId = keyId),
    },
  },

  // ── History ──────────────────────────────────────────────────────────
  {
    name: 'versioned',
    summary: 'keep change history in {model}_history; versioned:diff_only stores diffs only',
    field: {
      parse: (use) => use.value !== undefined && parseChoice(use.value, ['diff_only'] as const) === 'diff_only',
      apply: (diffOnly: boolean, { model }) => setVersioned(model, diffOnly),
    },
    model: {
      parse: (use) => use.value !== undefined && parseChoice(use.value, ['diff_only'] as const) === 'diff_only',
      apply: (diffOnly: boolean, model) => setVersioned(model, diffOnly),
    },
  },
  {
    name: 'versioned_required',
    summary: 'a failed history write fails the request',
    model: {
      parse: flag,
      apply: (_, model) => void (model.versionedRequired = true),
      check: (_, model, report) => {
        if (!model.versioned) report("'versioned_required' needs versioning", "Add 'versioned' to the model's @mfx");
      },
    },
  },

  // ── Scheduled transitions ────────────────────────────────────────────
  {
    name: 'scheduled',
    summary: 'a nullable timestamp that triggers soft-delete, hard-delete or a field change once passed',
    field: {
      parse: scheduledAction,
      options: true,
      types: ['timestamp'],
      typeHints: Object.fromEntries(
        (['string', 'number', 'integer', 'bigint', 'boolean', 'json_array', 'json_object', 'localized'] as const).map((t) => [
          t,
          'The runner fires when the time passes, so declare the field as Date | null',
        ]),
      ),
      apply: (action: ReturnType<typeof scheduledAction>, { field }) => {
        if (!field.nullable) {
          throw new DirectiveProblem(
            "'scheduled' needs a nullable timestamp",
            'Declare the field as Date | null: null means nothing is scheduled',
          );
        }
        field.scheduled = action;
      },
      check: (action: ReturnType<typeof scheduledAction>, { model, field }, report) => {
        if (action.action === 'soft-delete' && !model.ir.options.softDelete) {
          report("'scheduled;soft-delete' needs a soft-delete model", "Add 'soft_delete' to the model's @mfx or extend SoftDelete");
        }
        if (action.action !== 'set-field') return;
        const target = model.ir.fields.find((f) => f.name === action.field && !f.base);
        if (!target) {
          const names = model.ir.fields.filter((f) => !f.base).map((f) => f.name);
          report(`'scheduled;field=${action.field}' names no field of ${model.ir.name}`, didYouMean(action.field, names));
          return;
        }
        try {
          const to = castLiteral(String(action.to), target.type, target.nullable);
          const from = action.from === undefined ? undefined : castLiteral(String(action.from), target.type, target.nullable);
          field.scheduled = from === undefined ? { action: 'set-field', field: target.name, to } : { action: 'set-field', field: target.name, to, from };
        } catch (problem) {
          if (!(problem instanceof DirectiveProblem)) throw problem;
          report(`'scheduled' value for ${target.name} is invalid: ${problem.message}`, problem.hint);
        }
      },
    },
  },

  // ── Localized strings ────────────────────────────────────────────────
  localeModeRow('split'),
  localeModeRow('resolve'),
  localeModeRow('dynamic'),
  {
    name: 'default_locale',
    summary: 'default locale of a localized field, or of the whole model',
    field: {
      parse: localeCode,
      types: ['localized'],
      apply: (code: string, { field }) => void (ensureLocale(field).defaultLocale = code),
    },
    model: { parse: localeCode, apply: (code: string, model) => void (model.ir.options.defaultLocale = code) },
  },
  {
    name: 'locale_mode',
    summary: 'model-wide response mode of localized fields: split, resolve or dynamic',
    model: {
      parse: (use) => parseChoice(text(use, 'split'), LOCALE_MODES),
      apply: (mode: LocaleMode, model) => void (model.ir.options.localeMode = mode),
    },
  },

  // ── Pagination ───────────────────────────────────────────────────────
  {
    name: 'cursor_field',
    summary: 'keyset pagination field; it must be sortable',
    field: {
      parse: (use) => use.value ?? null,
      apply: (name: string | null, { model, field }) => setCursor(model, name ?? field.name),
      check: (_, { model }, report) => resolveCursor(model, report),
    },
    model: {
      parse: (use) => text(use, 'NAME'),
      apply: (name: string, model) => setCursor(model, name),
      check: (_, model, report) => resolveCursor(model, report),
    },
  },

  // ── Model options ────────────────────────────────────────────────────
  {
    name: 'soft_delete',
    summary: 'DELETE sets deleted_at (soft_delete) or is_deleted (soft_delete:flag)',
    model: {
      parse: (use): 'timestamp' | 'boolean' => {
        if (use.value === undefined) return 'timestamp';
        parseChoice(use.value, ['flag'] as const);
        return 'boolean';
      },
      apply: (type: 'timestamp' | 'boolean', model) => {
        const column = type === 'boolean' ? 'is_deleted' : 'deleted_at';
        model.ir.options.softDelete = { field: column, column, type };
      },
    },
  },
  {
    name: 'singleton',
    summary: 'a single-row resource without id routes',
    model: { parse: flag, apply: (_, model) => void (model.ir.options.singleton = true) },
  },
  {
    name: 'headless',
    summary: 'registered and migrated, but no routes',
    model: { parse: flag, apply: (_, model) => void (model.ir.options.headless = true) },
  },
  {
    name: 'aggregate',
    summary: 'mount the aggregate route',
    model: { parse: flag, apply: (_, model) => void (model.ir.options.aggregate = true) },
  },
  {
    name: 'export',
    summary: 'mount the export route',
    model: { parse: flag, apply: (_, model) => void (model.ir.options.export = true) },
  },
  {
    name: 'export_max',
    summary: 'export row cap (default 100000)',
    model: {
      parse: (use) => parseInteger(text(use, 'N'), 1),
      apply: (rows: number, model) => void (model.ir.options.maxExportRows = rows),
    },
  },
  {
    name: 'optimistic_lock',
    summary: 'If-Match / ETag control on PATCH and DELETE',
    model: { parse: flag, apply: (_, model) => void (model.ir.options.optimisticLock = true) },
  },
  {
    name: 'adapter',
    summary: 'route the model to a named database adapter',
    model: { parse: (use) => text(use, 'NAME'), apply: (name: string, model) => void (model.ir.options.adapter = name) },
  },
  {
    name: 'query_limits',
    summary: 'per-model query complexity caps: query_limits:maxFilters=10|maxSorts=2',
    model: {
      parse: (use) => {
        const limits: Partial<QueryLimits> = {};
        for (const entry of parseList(text(use, 'KEY=N|KEY=N'))) {
          const [key, value] = entry.split('=').map((s) => s.trim());
          if (!(QUERY_LIMIT_KEYS as readonly string[]).includes(key)) {
            throw new DirectiveProblem(
              `'${key}' is not a query limit`,
              didYouMean(key, QUERY_LIMIT_KEYS) ?? `Known limits: ${QUERY_LIMIT_KEYS.join(', ')}`,
            );
          }
          limits[key as keyof QueryLimits] = parseInteger(value ?? '', 1);
        }
        return limits;
      },
      repeatable: true,
      apply: (limits: Partial<QueryLimits>, model) => void Object.assign(model.ir.options.queryLimits, limits),
    },
  },
  {
    name: 'base',
    summary: 'opt-in options for base columns: base:created_at=filterable|sortable',
    model: {
      parse: (use) => {
        const { name, items } = parseNamedList(text(use, 'COLUMN=opt|opt'));
        if (!(name in BASE_OPTIONS)) {
          throw new DirectiveProblem(`'${name}' is not a base column`, `base: applies to ${Object.keys(BASE_OPTIONS).join(', ')}`);
        }
        const column = name as BaseOptionColumn;
        const accepted: readonly string[] = BASE_OPTIONS[column];
        const bad = items.find((item) => !accepted.includes(item));
        if (bad) {
          const hint = didYouMean(bad, accepted);
          throw new DirectiveProblem(
            `'${bad}' is not a base option of ${column}`,
            `${column} accepts ${accepted.join(', ')}${hint ? `. ${hint}` : ''}`,
          );
        }
        return { column, options: items as BaseOption[] };
      },
      repeatable: true,
      apply: ({ column, options }: { column: BaseOptionColumn; options: BaseOption[] }, model) => {
        for (const option of options) model.base[column].add(option);
      },
    },
  },
];

/** Catalogue rows by directive name. */
export const DIRECTIVES: ReadonlyMap<string, DirectiveRow> = new Map(CATALOGUE.map((row) => [row.name, row]));
