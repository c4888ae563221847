import type { AdminField, AdminModel } from './schema.js';

export type FormMode = 'create' | 'edit';

/** A choice of a select: enum values, or rows of a BelongsTo target. */
export interface Choice {
  value: string;
  label: string;
}

/** One input as the form template draws it. */
export interface FormInput {
  name: string;
  label: string;
  widget: AdminField['widget'];
  value: string;
  checked: boolean;
  disabled: boolean;
  required: boolean;
  error: string | null;
  hint: string | null;
  choices: Choice[];
  /** A relation whose target has more rows than a select lists: a search that narrows the select. */
  lookup: RelationLookup | null;
  /** One input per locale for localized fields. */
  locales: Array<{ locale: string; value: string; error: string | null }>;
  min: number | null;
  max: number | null;
  step: string | null;
  maxlength: number | null;
  accept: string | null;
  /** The current file's key and download link (the preview link). */
  file: { key: string; href: string } | null;
}

/**
 * The search beside a large relation's select: without scripts a GET form
 * (`q_<field>`) that reloads the form page with the select narrowed; with
 * the panel's script, `choicesHref` (JSON) as you type.
 */
export interface RelationLookup {
  query: string;
  /** `GET {path}/<target>/_choices?q=`. */
  choicesHref: string;
  /** The form page the no-script search reloads. */
  pageHref: string;
  /** What the select holds, in words (a live region). */
  status: string;
  /** The search input's label. */
  label: string;
}

/** Whether a field is in the form at all: writable ones on create, and readonly ones too (disabled) on edit. */
export function inForm(field: AdminField, mode: FormMode): boolean {
  return mode === 'create' ? field.roles.writable : field.roles.writable || field.field.readonly;
}

/** Whether the form takes the field's value: writable on create, updatable on edit. */
export function accepts(field: AdminField, mode: FormMode): boolean {
  return mode === 'create' ? field.roles.writable : field.roles.updatable;
}

/** `2026-11-24T08:43:00.000Z` → `2026-11-24T08:43` (datetime-local, read as UTC). */
export function toDatetimeLocal(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().slice(0, 16);
}

/** A stored value as the text of an input. */
export function inputText(field: AdminField, value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (field.widget) {
    case 'datetime':
      return toDatetimeLocal(value);
    case 'list':
      return Array.isArray(value) ? value.map(String).join(', ') : String(value);
    case 'json':
      return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

/** The submitted text of one input (the last value when sent twice). */
type Submitted = Map<string, string>;

/**
 * The API body of a submitted form: each accepted field's text turned into
 * its JSON type. Nothing is judged here beyond what the text says: a number
 * that is not one, JSON that does not parse, are sent as text so the API's
 * own validation answers them, with its own messages.
 *
 * @example
 * formBody(model, new Map([['title', 'Hello'], ['views', '3']]), 'create'); // { title: 'Hello', views: 3 }
 */
export function formBody(model: AdminModel, submitted: Submitted, mode: FormMode, locales: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of model.inputs) {
    if (!accepts(field, mode)) continue;
    const { name } = field;
    if (field.widget === 'checkbox') {
      body[name] = submitted.has(name);
      continue;
    }
    if (field.widget === 'localized') {
      const value: Record<string, string> = {};
      for (const locale of locales) {
        const text = submitted.get(`${name}.${locale}`) ?? '';
        if (text !== '') value[locale] = text;
      }
      if (Object.keys(value).length > 0) body[name] = value;
      else if (mode === 'edit' && field.field.nullable) body[name] = null;
      continue;
    }
    const text = submitted.get(name);
    if (text === undefined) continue;
    if (text === '') {
      // Empty: nothing on create (defaults and required checks apply), null or '' on edit; a secret or a file left empty is kept.
      if (mode === 'create' || field.widget === 'secret' || field.widget === 'file') continue;
      if (field.field.nullable) body[name] = null;
      else if (field.field.type === 'string') body[name] = '';
      continue;
    }
    body[name] = typed(field, text);
  }
  return body;
}

function typed(field: AdminField, text: string): unknown {
  switch (field.widget) {
    case 'number': {
      if (field.field.type === 'bigint') return text.trim();
      const n = Number(text);
      return text.trim() !== '' && Number.isFinite(n) ? n : text;
    }
    case 'datetime': {
      const date = new Date(/Z|[+-]\d\d:\d\d$/.test(text) ? text : `${text}Z`);
      return Number.isNaN(date.getTime()) ? text : date.toISOString();
    }
    case 'list': {
      const items = text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      const kind = field.field.items;
      return kind === 'number' || kind === 'integer' ? items.map((s) => (Number.isFinite(Number(s)) ? Number(s) : s)) : items;
    }
    case 'json':
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    default:
      return text;
  }
}
