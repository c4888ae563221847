/**
 * JSON Schemas of single fields, as responses carry them and as request
 * bodies accept them.
 *
 * Request schemas are the compiler's body schemas from the manifest (exactly
 * what the validators check) plus documentation keywords; response schemas
 * are built here from the field's type, because responses also carry base,
 * readonly and relation fields that no body schema lists.
 */
import type { FieldManifest, ScalarType } from '../manifest/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { Schema } from './types.js';

function scalarSchema(type: ScalarType): Schema {
  switch (type) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: 'number', format: 'double' };
    case 'integer':
      return { type: 'integer', format: 'int32' };
    case 'bigint':
      return { type: 'integer', format: 'int64' };
    case 'boolean':
      return { type: 'boolean' };
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
  }
}

/** A locale map: locale code → text. */
export const localeMapSchema: Schema = { type: 'object', additionalProperties: { type: 'string' }, description: 'locale code → text' };

function withNull(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** Enum members as JSON values of the field's type (the manifest lists them as strings). */
function enumValues(field: FieldManifest): unknown[] {
  const members = field.enum ?? [];
  return field.type === 'string' ? members : members.map(Number);
}

/**
 * Whether a stored value is certain to be an enum member: the column holds
 * its type's zero value (`''`, `0`) when a create leaves out a field that is
 * neither required nor defaulted nor nullable, and that zero value may lie
 * outside the enum.
 */
function enumGuaranteed(field: FieldManifest): boolean {
  return field.required || field.default !== undefined || field.nullable || enumValues(field).includes(field.type === 'string' ? '' : 0);
}

/**
 * The schema of a field's value in a response record. Validation bounds
 * (min, max, lengths) are write rules and live in the request schemas; a
 * stored value may predate a directive.
 *
 * @example responseFieldSchema(model, model.field('views')!) // { type: 'integer', format: 'int32', ... }
 */
export function responseFieldSchema(model: ModelMeta, field: FieldManifest): Schema {
  let schema: Schema;
  switch (field.type) {
    case 'json_array':
      schema = { type: 'array', items: field.items ? scalarSchema(field.items) : {} };
      break;
    case 'json_object':
      schema = { type: 'object' };
      break;
    case 'localized':
      // The locale map as stored, or the text of the effective locale (split, resolve, dynamic with `locale`).
      schema = { anyOf: [{ type: 'string' }, localeMapSchema] };
      break;
    default:
      schema = scalarSchema(field.type);
  }
  // The id of a singleton's global row is the fixed word `singleton`; a read-only model's rows are written by the runtime, not by a create (job ids are the caller's).
  if (field.base === 'id' && !model.options.singleton && !model.options.readOnly) schema.format = 'uuid';
  if (field.enum && enumGuaranteed(field)) schema.enum = enumValues(field);
  if (field.nullable) {
    schema = withNull(schema);
    if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  }
  if (field.base || field.readonly) schema.readOnly = true;
  if (field.description) schema.description = field.description;
  if (field.encrypted) schema.description = [schema.description, ENCRYPTED_NOTE].filter(Boolean).join(' ');
  return schema;
}

/** What a file field takes: in JSON the key of a stored file; the rules its files follow. */
export function fileNote(field: FieldManifest): string {
  const rules = [field.file!.maxSize !== undefined ? `at most ${field.file!.maxSize} bytes` : '', field.file!.accept ? `types ${field.file!.accept.join(', ')}` : ''].filter(Boolean);
  return `A file: in JSON the key of a stored file (from POST /files); in a multipart body the file itself as a part named after the field${rules.length > 0 ? ` (${rules.join('; ')})` : ''}.`;
}

/** Encrypted fields are plain strings on the wire; the document says how they are stored (their blind index never appears). */
const ENCRYPTED_NOTE = 'Stored encrypted (AES-256-GCM); cannot be filtered or sorted.';

/**
 * The schema of a field in a create or update body: the manifest's body
 * schema (what the validator checks) plus writeOnly and the create default.
 *
 * @example requestFieldSchema(model, model.field('password')!, 'create') // { type: 'string', minLength: 8, writeOnly: true }
 */
export function requestFieldSchema(model: ModelMeta, field: FieldManifest, op: 'create' | 'update'): Schema {
  const body = model.manifest.schemas[op] as { properties?: Record<string, Schema> };
  const schema: Schema = { ...(body.properties?.[field.name] ?? {}) };
  if (field.writeonly) schema.writeOnly = true;
  if (op === 'create' && field.default !== undefined) schema.default = field.default;
  const notes = [
    field.immutable && op === 'create' ? 'Set on create only; updates ignore it.' : '',
    field.unique || field.encrypted?.unique ? 'Unique.' : '',
    field.encrypted ? ENCRYPTED_NOTE : '',
    field.file ? fileNote(field) : '',
  ].filter(Boolean);
  if (notes.length > 0) schema.description = [schema.description, ...notes].filter(Boolean).join(' ');
  return schema;
}
