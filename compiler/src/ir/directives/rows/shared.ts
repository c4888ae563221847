// Parsers and checks shared by several catalogue rows.
import type { FieldManifest, FieldType, LocaleMode, OnDelete, QueryLimits } from '@mfx/runtime/manifest';
import { findField } from '../../model.js';
import { didYouMean } from '../../suggest.js';
import type { DirectiveDocs, DirectiveRow, FieldContext, ModelDraft, Report } from '../rule.js';
import type { DirectiveUse } from '../syntax.js';
import { DirectiveProblem, INT32, SAFE_INTEGER } from '../values.js';

export const NUMERIC: readonly FieldType[] = ['number', 'integer', 'bigint'];
/** Every field type, once, in the manifest's order: a type the runtime adds without a key here does not compile. */
const FIELD_TYPES: Record<FieldType, true> = {
  string: true,
  number: true,
  integer: true,
  bigint: true,
  boolean: true,
  timestamp: true,
  json_array: true,
  json_object: true,
  localized: true,
};

/**
 * One type-mismatch hint for every field type a directive does not apply
 * to (its row's `types`): what to declare instead.
 *
 * @example typeHints: hintOtherTypes(['timestamp'], 'Declare the field as Date | null')
 */
export function hintOtherTypes(types: readonly FieldType[], hint: string): Partial<Record<FieldType, string>> {
  return Object.fromEntries((Object.keys(FIELD_TYPES) as FieldType[]).filter((t) => !types.includes(t)).map((t) => [t, hint]));
}
export const ORDERED: readonly FieldType[] = ['string', 'number', 'integer', 'bigint', 'boolean', 'timestamp', 'localized'];
/** Types an index can hold whole: scalars; a JSON or localized value has no size bound (see index-limits.ts). */
export const INDEXABLE: readonly FieldType[] = ['string', 'number', 'integer', 'bigint', 'boolean', 'timestamp'];
const UNINDEXABLE_HINT = "An index entry holds at most 2704 bytes on PostgreSQL and a JSON value's size has no bound; index a text or number field instead";
export const UNINDEXABLE_HINTS: Partial<Record<FieldType, string>> = { json_array: UNINDEXABLE_HINT, json_object: UNINDEXABLE_HINT, localized: UNINDEXABLE_HINT };
export const LOCALE_MODES: readonly LocaleMode[] = ['split', 'resolve', 'dynamic'];
export const ON_DELETE: readonly Exclude<OnDelete, 'noAction'>[] = ['cascade', 'setNull', 'restrict'];
/** Every key of QueryLimits, once: a key the runtime adds without a row here does not compile. */
const QUERY_LIMITS: Record<keyof QueryLimits, true> = {
  maxFilters: true,
  maxOrGroups: true,
  maxOrGroupClauses: true,
  maxSorts: true,
  maxIncludes: true,
  maxIncludePerParent: true,
  maxIncludeRows: true,
  aggregateSelect: true,
  aggregateGroupBy: true,
  aggregateWhere: true,
  aggregateHaving: true,
  aggregateOrderBy: true,
};
export const QUERY_LIMIT_KEYS = Object.keys(QUERY_LIMITS) as readonly (keyof QueryLimits)[];

/** The directive takes no value. */
export function flag(use: DirectiveUse): true {
  if (use.value !== undefined) throw new DirectiveProblem(`'${use.name}' takes no value`, `Write '${use.name}' alone`);
  return true;
}

/** The directive needs a non-empty value; `form` shows it, e.g. `N` for `min:N`. */
export function text(use: DirectiveUse, form: string): string {
  if (!use.value) throw new DirectiveProblem(`'${use.name}' needs a value`, `Write '${use.name}:${form}'`);
  return use.value;
}

export function localeCode(use: DirectiveUse): string {
  const code = text(use, 'en');
  if (!/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(code)) {
    throw new DirectiveProblem(`'${code}' is not a locale code`, 'Write a code such as en, de or pt-BR');
  }
  return code;
}

export function ensureLocale(field: FieldContext['field']) {
  field.locale ??= {};
  return field.locale;
}

/** The reference text of each response mode; the example model names are unique across the catalogue. */
const LOCALE_MODE_DOCS: Record<LocaleMode, DirectiveDocs> = {
  split: {
    text: 'Responses carry the text of the effective locale under the field\'s name and the whole map under `<field>_i18n` (the suffix is the `splitSuffix` locale option). A write may send that map back under `<field>_i18n`, which wins over `<field>`. The default mode.',
    example: `export interface Menu extends Model {
  /** @mfx split */
  label: Localized;
}`,
  },
  resolve: {
    text: 'Responses carry only the text of the effective locale.',
    example: `export interface Banner extends Model {
  /** @mfx resolve */
  headline: Localized;
}`,
  },
  dynamic: {
    text: 'Responses carry the text of the requested locale when the request names one (`?locale=de`), and the whole map when it does not.',
    example: `export interface GlossaryTerm extends Model {
  /** @mfx dynamic */
  term: Localized;
}`,
  },
};

/** The row of one localized response mode; it conflicts with the modes after it, so a pair is reported once. */
export function localeModeRow(mode: LocaleMode): DirectiveRow {
  const others = LOCALE_MODES.filter((m) => m !== mode && LOCALE_MODES.indexOf(m) > LOCALE_MODES.indexOf(mode));
  return {
    name: mode,
    summary: `response mode '${mode}' of a localized field`,
    docs: LOCALE_MODE_DOCS[mode],
    field: {
      parse: flag,
      types: ['localized'],
      conflicts: Object.fromEntries(others.map((m) => [m, 'A localized field has one response mode; keep one of them'])),
      apply: (_, { field }) => void (ensureLocale(field).mode = mode),
    },
  };
}

export function setVersioned(model: ModelDraft, diffOnly: boolean): void {
  model.versioned = { diffOnly: diffOnly || (model.versioned?.diffOnly ?? false) };
}

export function setCursor(model: ModelDraft, name: string): void {
  if (model.cursor && model.cursor.name !== name) {
    throw new DirectiveProblem(
      `cursor_field is set twice ('${model.cursor.name}' and '${name}')`,
      'A model has one keyset pagination field; keep one cursor_field',
    );
  }
  model.cursor = { name, resolved: false };
}

/** Resolves the cursor field once and checks that it is sortable (keyset pagination orders by it). */
export function resolveCursor(model: ModelDraft, report: Report): void {
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

export type NamedList = { name: string; items: string[] };

/** Resolves the columns of `index:`/`unique_index:` (JSON names or column names) and records the index. */
export function addIndex(model: ModelDraft, { name, items }: NamedList, unique: boolean, report: Report): void {
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
    if (!INDEXABLE.includes(field.type)) {
      report(`'${directive}:${name}' names ${field.name}, a ${field.type === 'localized' ? 'localized (JSON)' : 'JSON'} column`, UNINDEXABLE_HINT);
      return;
    }
    if (field.encrypted) {
      report(`'${directive}:${name}' names ${field.name}, an encrypted column`, ENCRYPTED_INDEX_HINT);
      return;
    }
    columns.push(field.column);
  }
  model.ir.options.indices.push({ name, columns, unique });
}

export const ENCRYPTED_INDEX_HINT = 'Ciphertexts of equal values differ, so no query can use an index on them; use encrypted,unique for exact lookups through the blind index';

/** min/max/minlen/maxlen must not contradict each other. */
export function checkBounds(lower: number | undefined, upper: number | undefined, names: string, report: Report): void {
  if (lower !== undefined && upper !== undefined && lower > upper) {
    report(`${names} are contradictory (${lower} > ${upper})`, 'The lower bound must not exceed the upper bound');
  }
}

/** A default must satisfy the field's own rules, or every create that omits the field would be refused. */
export function checkDefault(field: FieldContext['field'], report: Report): void {
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

export function integerRange(field: FieldManifest) {
  return field.type === 'integer' ? INT32 : field.type === 'bigint' ? SAFE_INTEGER : undefined;
}

export function scheduledAction(use: DirectiveUse): NonNullable<FieldManifest['scheduled']> | { action: 'set-field'; field: string; to: string; from?: string } {
  const forms = "Write 'scheduled;soft-delete', 'scheduled;hard-delete', 'scheduled;field=NAME;to=VALUE' or 'scheduled;field=NAME;from=OLD;to=NEW'";
  if (use.value !== undefined) throw new DirectiveProblem(`'scheduled' takes ';' options, not a ':' value`, forms);
  const keys = use.options.map((o) => o.key);
  if (keys.length === 0) throw new DirectiveProblem("'scheduled' needs an action", forms);
  const unknown = keys.filter((k) => !SCHEDULED_OPTIONS.includes(k));
  if (unknown.length) throw new DirectiveProblem(`'${unknown[0]}' is not a scheduled option`, forms);
  const repeated = keys.find((k, i) => keys.indexOf(k) !== i);
  if (repeated) throw new DirectiveProblem(`'${repeated}' is given twice`, 'Keep one of them');
  // One action: soft-delete, hard-delete, or setting a field (field= with its to= and from=).
  const actions = [...new Set(keys.map((k) => (k === 'soft-delete' || k === 'hard-delete' ? k : 'field=NAME')))];
  if (actions.length > 1) {
    throw new DirectiveProblem(
      `'scheduled' takes exactly one action, not ${actions.slice(0, -1).join(', ')} and ${actions[actions.length - 1]}`,
      'Declare another nullable Date field for each further action',
    );
  }
  if (actions[0] !== 'field=NAME') {
    const bare = use.options[0];
    if (bare.value !== undefined) throw new DirectiveProblem(`'${bare.key}' takes no value`, `Write 'scheduled;${bare.key}'`);
    return { action: bare.key as 'soft-delete' | 'hard-delete' };
  }
  const option = (key: string) => use.options.find((o) => o.key === key)?.value;
  const field = option('field');
  const to = option('to');
  if (!field || to === undefined) throw new DirectiveProblem("'scheduled;field=NAME' needs both field= and to=", forms);
  const from = option('from');
  return from === undefined ? { action: 'set-field', field, to } : { action: 'set-field', field, to, from };
}

const SCHEDULED_OPTIONS = ['soft-delete', 'hard-delete', 'field', 'to', 'from'];
