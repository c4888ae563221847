import type { Row } from '../db/adapter.js';
import type { Dialect, FieldManifest } from '../manifest/types.js';
import type { ModelMeta } from '../registry/model-meta.js';

/** A record keyed by JSON field name, every field included (hidden and writeonly too). */
export type RecordData = Record<string, unknown>;

export type Decoder = (row: Row) => RecordData;

function decodeValue(field: FieldManifest, dialect: Dialect): ((value: unknown) => unknown) | null {
  if (dialect === 'postgres') return null; // pg type parsers already return JSON shapes
  switch (field.type) {
    case 'boolean':
      return (v) => (v === null || v === undefined ? null : v === 1 || v === true);
    case 'json_array':
    case 'json_object':
    case 'localized':
      return (v) => (typeof v === 'string' ? safeJson(v) : v);
    default:
      return null;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A stored scalar left by older data is returned as it is.
    return text;
  }
}

/**
 * Builds the function that turns a database row (keyed by column) into a
 * record (keyed by JSON name), once per model and dialect.
 */
export function buildDecoder(model: ModelMeta, dialect: Dialect): Decoder {
  const plan = model.fields.map((field) => ({ name: field.name, column: field.column, convert: decodeValue(field, dialect) }));
  return (row) => {
    const out: RecordData = {};
    for (const { name, column, convert } of plan) {
      const value = row[column];
      if (value === undefined) continue;
      out[name] = convert ? convert(value) : value;
    }
    return out;
  };
}

/** Normalises a value from a request body for storage. */
export function encodeValue(field: FieldManifest, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field.type === 'timestamp') return new Date(value as string).toISOString();
  return value;
}

/** The response projection: visible fields only (never hidden or writeonly), optionally a selection. */
export function buildProjector(model: ModelMeta): (record: RecordData, select?: readonly string[] | null) => RecordData {
  const visible = model.visibleFields.map((f) => f.name);
  return (record, select) => {
    const out: RecordData = {};
    for (const name of select ?? visible) {
      if (name in record) out[name] = record[name];
    }
    // Relations loaded by include ride along under their keys.
    for (const key of model.relations.keys()) {
      if (key in record) out[key] = record[key];
    }
    return out;
  };
}
