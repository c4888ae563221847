/**
 * JSON Schemas of create and update bodies.
 *
 * The runtime depends on these rules exactly: only client-writable fields
 * are listed (the `writable` and `updatable` field roles), unknown keys are allowed (the runtime
 * strips them before validating), and no defaults (the runtime applies
 * them). Directive fragments come from the catalogue.
 */
import { type FieldManifest, fieldRoles, type ScalarType } from '@mfx/runtime/manifest';
import { CATALOGUE } from '../ir/directives/catalogue.js';
import { INT32, SAFE_INTEGER } from '../ir/directives/values.js';

type Schema = Record<string, unknown>;

export interface BodySchemas {
  create: Schema;
  update: Schema;
}

function scalarSchema(type: ScalarType): Schema {
  switch (type) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'integer':
      return { type: 'integer', minimum: INT32.min, maximum: INT32.max };
    case 'bigint':
      return { type: 'integer', minimum: SAFE_INTEGER.min, maximum: SAFE_INTEGER.max };
    case 'boolean':
      return { type: 'boolean' };
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
  }
}

/** The schema of a field's value, from its type and nullability. */
function typeSchema(field: FieldManifest): Schema {
  let schema: Schema;
  switch (field.type) {
    case 'json_array':
      schema = { type: 'array', ...(field.items ? { items: scalarSchema(field.items) } : {}) };
      break;
    case 'json_object':
      schema = { type: 'object' };
      break;
    case 'localized':
      schema = { anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }] };
      break;
    default:
      schema = scalarSchema(field.type);
  }
  if (field.nullable) {
    if (Array.isArray(schema.anyOf)) schema.anyOf = [...schema.anyOf, { type: 'null' }];
    else schema.type = [schema.type, 'null'];
  }
  return schema;
}

/**
 * The schema of one body property: type, then each directive's fragment in
 * catalogue order, then the description.
 *
 * @example propertySchema(field) // { type: ['integer', 'null'], minimum: 0, maximum: 2147483647 }
 */
export function propertySchema(field: FieldManifest): Schema {
  const schema = typeSchema(field);
  for (const row of CATALOGUE) {
    const fragment = row.field?.schema?.(field);
    if (fragment) Object.assign(schema, fragment);
  }
  if (field.description) schema.description = field.description;
  return schema;
}

/**
 * The create and update body schemas of a model.
 *
 * @example bodySchemas(model.fields).create.required // ['title']
 */
export function bodySchemas(fields: FieldManifest[]): BodySchemas {
  const writable = fields.filter((f) => fieldRoles(f).writable);
  const updatable = fields.filter((f) => fieldRoles(f).updatable);
  const required = writable.filter((f) => fieldRoles(f).requiredOnCreate).map((f) => f.name);
  return {
    create: objectSchema(writable, required),
    update: objectSchema(updatable, []),
  };
}

function objectSchema(fields: FieldManifest[], required: string[]): Schema {
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, propertySchema(f)])),
    ...(required.length ? { required } : {}),
    additionalProperties: true,
  };
}
