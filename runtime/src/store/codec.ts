import type { Row } from '../db/adapter.js';
import type { Dialect, FieldManifest } from '../manifest/types.js';
import type { ModelMeta } from '../registry/model-meta.js';

/** A record keyed by JSON field name, every field included (hidden and writeonly too). */
export type RecordData = Record<string, unknown>;

export type Decoder = (row: Row) => RecordData;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A stored scalar left by older data is returned as it is.
    return text;
  }
}

/** The expression that turns `row[column]` into the field's JSON value, for one dialect. */
function decodeExpression(field: FieldManifest, dialect: Dialect): string {
  const value = `row[${JSON.stringify(field.column)}]`;
  if (dialect === 'postgres') return value; // pg type parsers already return JSON shapes
  switch (field.type) {
    case 'boolean':
      return `(${value} == null ? null : ${value} === 1 || ${value} === true)`;
    case 'json_array':
    case 'json_object':
    case 'localized':
      return `(typeof ${value} === 'string' ? safeJson(${value}) : ${value})`;
    default:
      return value;
  }
}

/**
 * Builds the function that turns a database row (keyed by column) into a
 * record (keyed by JSON name), once per model and dialect: straight-line
 * code with a fixed object shape. Names come from the registry and are
 * quoted with JSON.stringify.
 */
export function buildDecoder(model: ModelMeta, dialect: Dialect): Decoder {
  const entries = model.fields.map((field) => `${JSON.stringify(field.name)}: ${decodeExpression(field, dialect)}`);
  // A column missing from the row decodes to undefined, which responses omit.
  return new Function('safeJson', `return function decode(row) { return { ${entries.join(', ')} }; }`)(safeJson) as Decoder;
}

const decoders = new WeakMap<ModelMeta, Partial<Record<Dialect, Decoder>>>();

/** The decoder of a model, built on first use and kept (for code that reads models other than its own). */
export function decoderFor(model: ModelMeta, dialect: Dialect): Decoder {
  let byDialect = decoders.get(model);
  if (!byDialect) decoders.set(model, (byDialect = {}));
  return (byDialect[dialect] ??= buildDecoder(model, dialect));
}

/** Normalises a value from a request body for storage. */
export function encodeValue(field: FieldManifest, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field.type === 'timestamp') return new Date(value as string).toISOString();
  return value;
}

/** The response projection: visible fields only (never hidden or writeonly), optionally a selection. */
export function buildProjector(model: ModelMeta): (record: RecordData, select?: readonly string[] | null, withRelations?: boolean) => RecordData {
  const visible = model.visibleFields.map((f) => f.name);
  const entries = visible.map((name) => `${JSON.stringify(name)}: record[${JSON.stringify(name)}]`);
  const all = new Function(`return function project(record) { return { ${entries.join(', ')} }; }`)() as (record: RecordData) => RecordData;
  const relationKeys = [...model.relations.keys()];
  return (record, select, withRelations = true) => {
    let out: RecordData;
    if (select) {
      out = {};
      for (const name of select) if (name in record) out[name] = record[name];
    } else {
      out = all(record);
    }
    // Relations loaded by include ride along under their keys.
    if (!withRelations) return out;
    for (const key of relationKeys) {
      if (key in record) out[key] = record[key];
    }
    return out;
  };
}
