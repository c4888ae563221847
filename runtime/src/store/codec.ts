import type { Row } from '../db/adapter.js';
import type { Dialect, FieldManifest } from '../manifest/types.js';
import type { Identity } from '../pipeline/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { RequestLocale } from '../locale/request.js';
import { encryptionOf, type ModelEncryption } from '../security/encryption/fields.js';
import { computedOf, computedValues } from '../computed/computed.js';
import { storedLocalized } from '../locale/stored.js';
import { jsonOrText } from '../util/json-text.js';

/** A record keyed by JSON field name, every field included (hidden and writeonly too). */
export type RecordData = Record<string, unknown>;

export type Decoder = (row: Row) => RecordData;

/** A row read as its column values, in the order of the model's columns (`model.columns`, the SELECT list of its store): a record. */
export type ValuesDecoder = (values: readonly unknown[]) => RecordData;

/**
 * The expression that turns a column's value into the field's JSON value,
 * for one dialect: `value` reads the column, `id` the row's id.
 */
function decodeExpression(field: FieldManifest, dialect: Dialect, encrypted: number, value: string, id: string): string {
  // An encrypted field is opened where it is read (security/encryption/fields.ts): `encrypted` is its index in the model's list.
  if (encrypted >= 0) return `(typeof ${value} === 'string' ? open(${value}, ${id}, ${encrypted}) : ${value})`;
  if (dialect === 'postgres') return value; // pg type parsers already return JSON shapes
  switch (field.type) {
    case 'boolean':
      return `(${value} == null ? null : ${value} === 1 || ${value} === true)`;
    case 'json_array':
    case 'json_object':
      return `(typeof ${value} === 'string' ? jsonOrText(${value}) : ${value})`;
    case 'localized':
      // Maps seen recently are copied from a cache instead of parsed again (locale/stored.ts).
      return `(typeof ${value} === 'string' ? storedLocalized(${value}) : ${value})`;
    default:
      return value;
  }
}

/**
 * Builds the two functions that turn a database row into a record (keyed by
 * JSON name), once per model and dialect: `decode` reads a row keyed by
 * column, `decodeValues` a row of column values in the order of
 * `model.columns` (SQLite reads rows that way: no object to build key by
 * key, see db/now.ts). Straight-line code with a fixed object shape,
 * encrypted values opened in the same pass. Names come from the registry
 * and are quoted with JSON.stringify.
 */
function buildDecoders(model: ModelMeta, dialect: Dialect, encryption: ModelEncryption | undefined): { decode: Decoder; decodeValues: ValuesDecoder } {
  const encrypted = encryption?.fields.map((f) => f.field) ?? [];
  const position = new Map(model.columns.map((c, i) => [c.column, i]));
  const byName = (column: string) => `row[${JSON.stringify(column)}]`;
  // A field without a stored column decodes to undefined, as a column missing from a row does: responses omit it.
  const byPosition = (column: string) => (position.has(column) ? `row[${position.get(column)}]` : 'undefined');
  const body = (read: (column: string) => string) =>
    model.fields.map((field) => `${JSON.stringify(field.name)}: ${decodeExpression(field, dialect, encrypted.indexOf(field), read(field.column), read('id'))}`).join(', ');
  const open = encryption ? (stored: string, id: unknown, index: number) => encryption.openValue(stored, id, index) : null;
  return new Function(
    'jsonOrText',
    'storedLocalized',
    'open',
    `return { decode: function decode(row) { return { ${body(byName)} }; }, decodeValues: function decodeValues(row) { return { ${body(byPosition)} }; } };`,
  )(jsonOrText, storedLocalized, open) as { decode: Decoder; decodeValues: ValuesDecoder };
}

/**
 * Decodes one column value of `field` as records show it (SQLite booleans,
 * JSON text), for values read apart from a record: aggregate group columns.
 */
export function valueDecoder(field: FieldManifest, dialect: Dialect): (value: unknown) => unknown {
  // Encrypted fields are never aggregated (docs/decisions.md, issue 19), so none is opened here.
  return new Function('jsonOrText', 'storedLocalized', `return function (value) { return ${decodeExpression(field, dialect, -1, 'value', 'undefined')}; }`)(jsonOrText, storedLocalized) as (value: unknown) => unknown;
}

/** The decoder of a model for one dialect, built once (see codecOf). */
export function decoderFor(model: ModelMeta, dialect: Dialect): Decoder {
  return codecOf(model, dialect).decode;
}

/**
 * Whether a field's values are stored as a request sends them (every type
 * but timestamps, normalised to ISO text, and localized fields, whose
 * columns hold JSON): encodeValue leaves them alone.
 */
export function storedAsSent(field: FieldManifest): boolean {
  return field.type !== 'timestamp' && field.type !== 'localized';
}

/**
 * Normalises a value from a request body for storage.
 *
 * @example encodeValue(label, 'Hello') // '"Hello"': JSON text, as the column holds JSON
 */
export function encodeValue(field: FieldManifest, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (storedAsSent(field)) return value;
  if (field.type === 'timestamp') return new Date(value as string).toISOString();
  // A localized column holds JSON (jsonb on PostgreSQL); a plain string is one JSON value among others,
  // not raw text (which jsonb refuses, and SQLite would read back as `true` or `12` when it looks like one).
  return typeof value === 'string' ? JSON.stringify(value) : value;
}

/**
 * What one response shows of the records it carries: the inputs of the
 * projection that come from the request. Localized, encrypted and computed
 * fields read their per-request inputs here.
 */
export interface ResponseView {
  /** JSON names from `select=`, or null for every visible field. */
  readonly select: readonly string[] | null;
  /** The request's locale (runtime/src/locale), or null: localized fields are then shown as stored. */
  readonly locale: RequestLocale | null;
  /** The caller, for fields whose value depends on who asks. */
  readonly caller: Identity | null;
}

/**
 * Key of a record whose included to-many relations were cut at the
 * per-parent cap (`query_limits:maxIncludePerParent`): the relation keys,
 * in include order. Present only when something was cut.
 */
export const TRUNCATED_KEY = '_truncated';

/** Every visible field, no locale, no caller: the record as its ETag names it. */
export const FULL_VIEW: ResponseView = Object.freeze({ select: null, locale: null, caller: null });

/** Reads and shows one model's records: built once per model and dialect. */
export interface ModelCodec {
  /** A database row (keyed by column) as a record (keyed by JSON name), every field included. */
  readonly decode: Decoder;
  /** The same from a row of column values in the order of `model.columns`. */
  readonly decodeValues: ValuesDecoder;
  /**
   * The record as a response shows it under `view`: visible fields only
   * (never hidden or writeonly), `select` applied, and relations loaded by
   * `include` projected the same way (select applies to the top level only).
   * `withRelations: false` leaves the relations and computed fields out (the
   * ETag of a locked model names the stored record, not a view of it).
   */
  project(record: RecordData, view: ResponseView, withRelations?: boolean): RecordData;
}

/** Copies the visible fields in declaration order: straight-line code with a fixed object shape. */
function buildVisibleCopy(model: ModelMeta): (record: RecordData) => RecordData {
  const entries = model.fieldsWith('visible').map((f) => `${JSON.stringify(f.name)}: record[${JSON.stringify(f.name)}]`);
  return new Function(`return function visible(record) { return { ${entries.join(', ')} }; }`)() as (record: RecordData) => RecordData;
}

function buildCodec(model: ModelMeta, dialect: Dialect): ModelCodec {
  // Encrypted fields (security/encryption/fields.ts): opened on every decode; models without them decode as before.
  const { decode, decodeValues } = buildDecoders(model, dialect, encryptionOf(model));
  const visible = buildVisibleCopy(model);
  // Related codecs are looked up on first use: relations are linked when the registry seals, and may be cyclic.
  let related: { key: string; codec: ModelCodec }[] | null = null;
  const relatedCodecs = () => {
    if (related) return related;
    const found = [...model.relations.keys()].flatMap((key) => {
      const target = model.target(key)?.target;
      return target ? [{ key, codec: codecOf(target, dialect) }] : [];
    });
    if (found.length === model.relations.size) related = found;
    return found;
  };

  // Localized fields take their response shape from the request's locale (runtime/src/locale/request.ts).
  const localized = model.fields.some((f) => f.type === 'localized');
  // Computed fields, installed on the model before its codec is first built (App.handler).
  const computed = computedOf(model);
  // Only to-many relations are ever cut at the per-parent cap.
  const cuttable = [...model.relations.values()].some((r) => r.kind !== 'belongsTo');
  const project = (record: RecordData, view: ResponseView, withRelations = true): RecordData => {
    let out: RecordData;
    if (view.select) {
      out = {};
      for (const name of view.select) if (name in record) out[name] = record[name];
      if (localized && view.locale) view.locale.project(model, out, record.id);
    } else {
      // Localized fields shown in their modes' shapes as the copy is built (one object, no property added after).
      out = (localized && view.locale?.visible(model, record)) || visible(record);
    }
    if (!withRelations) return out;
    // Computed fields (runtime/src/computed) follow the stored ones; select names stored fields only.
    if (computed && !view.select) {
      const values = computedValues(record);
      if (values) for (const { name } of computed) if (name in values) out[name] = values[name];
    }
    const nested = view.select ? { ...view, select: null } : view;
    for (const { key, codec } of relatedCodecs()) {
      if (!(key in record)) continue;
      const value = record[key];
      if (Array.isArray(value)) out[key] = value.map((r: RecordData) => codec.project(r, nested));
      else out[key] = value === null || value === undefined ? null : codec.project(value as RecordData, nested);
    }
    if (cuttable && record[TRUNCATED_KEY] !== undefined) out[TRUNCATED_KEY] = record[TRUNCATED_KEY];
    return out;
  };
  return { decode, decodeValues, project };
}

const codecs = new WeakMap<ModelMeta, Partial<Record<Dialect, ModelCodec>>>();

/**
 * The codec of a model for one dialect, built on first use and kept: every
 * reader of the model (its store, include, cascades, tree queries) shares it.
 *
 * @example
 * const { decode, project } = codecOf(model, 'sqlite');
 * const body = { data: project(decode(row), { select: null, locale: null, caller: ctx.identity }) };
 */
export function codecOf(model: ModelMeta, dialect: Dialect): ModelCodec {
  let byDialect = codecs.get(model);
  if (!byDialect) codecs.set(model, (byDialect = {}));
  return (byDialect[dialect] ??= buildCodec(model, dialect));
}
