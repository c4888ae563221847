import type { ValidationDetail } from '../errors/api-error.js';
import type { AjvErrorObject, CompiledValidator } from '../manifest/load.js';
import type { FieldManifest, JsonValue } from '../manifest/types.js';
import type { ModelMeta } from '../registry/model-meta.js';

/**
 * Keeps only the keys a client may write: drops id, base columns, readonly
 * and hidden fields (and immutable ones on update) and keys the model does
 * not declare. Request values for those are ignored, not refused.
 */
export function stripBody(body: Record<string, unknown>, keys: ReadonlyMap<string, FieldManifest>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in body) {
    if (keys.has(key)) out[key] = body[key];
  }
  return out;
}

/** Fills declared defaults for fields the create body leaves out. */
export function applyDefaults(body: Record<string, unknown>, model: ModelMeta): void {
  for (const field of model.createKeys.values()) {
    if (field.default !== undefined && !(field.name in body)) body[field.name] = clone(field.default);
  }
}

const clone = (value: JsonValue): JsonValue => (value !== null && typeof value === 'object' ? structuredClone(value) : value);

const VALID: readonly ValidationDetail[] = Object.freeze([]);

/**
 * What a precompiled validator refuses in a body, one detail per failing
 * field, with `storable` (the problems the schema cannot express, see
 * storable.ts) alongside; none when the body is valid. The Validate step
 * answers them in one 422 with the validation hooks' (write-rules.ts).
 */
export function bodyProblems(validator: CompiledValidator, body: Record<string, unknown>, model: ModelMeta, storable: readonly ValidationDetail[] = []): readonly ValidationDetail[] {
  if (validator(body) && storable.length === 0) return VALID;
  return validationDetails(validator.errors ?? [], body, model, storable);
}

/** One `{field, message}` per failing field, in the model's field order (the schema's findings first for a field). */
export function validationDetails(
  errors: readonly AjvErrorObject[],
  body: Record<string, unknown>,
  model: ModelMeta,
  storable: readonly ValidationDetail[] = [],
): ValidationDetail[] {
  const byField = new Map<string, string>();
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const error of errors) {
    const path = pointerToPath(error.instancePath);
    const field = error.keyword === 'required' ? String(error.params.missingProperty) : path;
    // The branches of a failed anyOf say less than the anyOf itself.
    const underAnyOf = [...anyOfPaths].some((p) => p !== '' && (error.instancePath === p || error.instancePath.startsWith(`${p}/`)));
    if (error.keyword !== 'anyOf' && underAnyOf) continue;
    if (byField.has(field)) continue;
    byField.set(field, message(error, valueAt(body, error.instancePath), model.field(field.split('.')[0])));
  }
  const failed = new Set([...byField.keys()].map((field) => field.split('.')[0]));
  for (const detail of storable) {
    if (!failed.has(detail.field.split('.')[0])) byField.set(detail.field, detail.message);
  }
  const order = new Map(model.fields.map((f, i) => [f.name, i]));
  return [...byField.entries()]
    .sort(([a], [b]) => (order.get(a.split('.')[0]) ?? 1e9) - (order.get(b.split('.')[0]) ?? 1e9))
    .map(([field, msg]) => ({ field, message: msg }));
}

function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}

function valueAt(body: unknown, pointer: string): unknown {
  let value = body;
  for (const part of pointer.split('/').slice(1)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return value;
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function describeType(type: unknown): string {
  const types = (Array.isArray(type) ? type : [type]).map(String);
  return types.map((t) => (t === 'null' ? 'null' : article(t))).join(' or ');
}

function message(error: AjvErrorObject, value: unknown, field: FieldManifest | undefined): string {
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      // A NOT NULL foreign key is required without the directive: say why, and how to make it optional.
      return field?.relation !== undefined && !field.required
        ? `is required: the id of its ${field.relation} (the foreign key is NOT NULL; declare the property \`| null\` to make it optional)`
        : 'is required';
    case 'type':
      if (value === null) {
        return 'must not be null: send a value, omit the field, or declare the property nullable in the model (`| null`)';
      }
      return `must be ${describeType(p.type)}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(', ')}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `must be greater than ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(p.limit)}`;
    case 'minLength':
      return `must be at least ${String(p.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters long`;
    case 'format':
      return p.format === 'date-time' ? 'must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z' : `must be a valid ${String(p.format)}`;
    case 'anyOf':
      return field?.type === 'localized'
        ? value === null
          ? 'must not be null: send a value, omit the field, or declare the property nullable in the model (`| null`)'
          : 'must be a string or an object mapping locale codes to strings'
        : 'does not match any allowed shape';
    default:
      return error.message ?? 'is not valid';
  }
}
