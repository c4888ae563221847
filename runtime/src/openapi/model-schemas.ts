/**
 * Component schemas of one model: the record as responses carry it, the
 * create and update bodies, the response envelopes and, for versioned
 * models, the history row.
 */
import type { ModelMeta } from '../registry/model-meta.js';
import { TRUNCATED_KEY } from '../store/codec.js';
import type { ResolvedLocales } from '../locale/options.js';
import { localizedRequest, localizedResponses } from '../locale/openapi.js';
import { localePlanOf, reachesLocalized } from '../locale/plan.js';
import { fileNote, requestFieldSchema, responseFieldSchema } from './field-schemas.js';
import { fileFieldsOf } from '../files/fields.js';
import { ref, type Schema } from './types.js';
import { computedOf } from '../computed/computed.js';

/** Component names of a model's schemas. */
export const schemaNames = (model: ModelMeta) => ({
  record: model.name,
  create: `${model.name}Create`,
  update: `${model.name}Update`,
  createForm: `${model.name}CreateForm`,
  updateForm: `${model.name}UpdateForm`,
  selection: `${model.name}Selection`,
  envelope: `${model.name}Envelope`,
  readEnvelope: `${model.name}ReadEnvelope`,
  page: `${model.name}Page`,
  history: `${model.name}History`,
  historyPage: `${model.name}HistoryPage`,
});

/** The record: every visible field (never hidden or writeonly), every computed field and every relation key, loaded only by `include`. */
export function recordSchema(model: ModelMeta, locales: ResolvedLocales): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  // Localized fields show the shapes of their response mode (runtime/src/locale/openapi.ts).
  const localized = localizedResponses(model, locales);
  for (const field of model.visibleFields) {
    const shapes = localized.get(field.name);
    if (shapes) Object.assign(properties, shapes);
    else properties[field.name] = responseFieldSchema(model, field);
    required.push(...(shapes ? Object.keys(shapes) : [field.name]));
  }
  // Computed fields: never written, never required (a resolver that fails leaves its field out of that record).
  for (const field of computedOf(model) ?? []) {
    properties[field.name] = { ...field.schema, readOnly: true, description: (field.schema.description as string | undefined) ?? `computed by the server; absent under select= and when its resolver fails` };
  }
  for (const relation of model.relations.values()) {
    const target = ref('schemas', relation.target);
    properties[relation.key] =
      relation.kind === 'belongsTo'
        ? { anyOf: [target, { type: 'null' }], readOnly: true, description: `the ${relation.target} of ${relation.field}; present with include=${relation.key}` }
        : { type: 'array', items: target, readOnly: true, description: `related ${relation.target} records; present with include=${relation.key}` };
  }
  const cuttable = [...model.relations.values()].filter((r) => r.kind !== 'belongsTo').map((r) => r.key);
  if (cuttable.length > 0) {
    properties[TRUNCATED_KEY] = {
      type: 'array',
      items: { type: 'string', enum: cuttable },
      readOnly: true,
      description: 'the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was',
    };
  }
  return {
    type: 'object',
    ...(model.manifest.description ? { description: model.manifest.description } : {}),
    properties,
    required,
    // A key outside the document (a hidden field, say) is a bug the response validator should catch.
    additionalProperties: false,
  };
}

/**
 * The record as `select=` shows it: the same keys as the record, none of
 * them required (only the chosen fields come back, plus included relations).
 */
export function selectionSchema(model: ModelMeta, locales: ResolvedLocales): Schema {
  const { required: _, description: __, ...record } = recordSchema(model, locales);
  return { ...record, description: `A ${model.name} under select=: only the chosen fields (and included relations) are present.` };
}

/** What read and list responses carry per record: the full record, or its selection when `select` is sent. */
const readRecord = (model: ModelMeta): Schema => ({ anyOf: [ref('schemas', model.name), ref('schemas', schemaNames(model).selection)] });

/** A create or update body: the writable fields; unknown keys are accepted and ignored. */
export function bodySchema(model: ModelMeta, op: 'create' | 'update', locales: ResolvedLocales): Schema {
  const keys = op === 'create' ? model.createKeys : model.updateKeys;
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  // A required split-mode field may come as itself or as its companion map.
  const either: Schema[] = [];
  const plan = localePlanOf(model, locales);
  for (const field of keys.values()) {
    const rule = plan?.byName.get(field.name);
    if (rule) Object.assign(properties, localizedRequest(rule, requestFieldSchema(model, field, op)));
    else properties[field.name] = requestFieldSchema(model, field, op);
    if (op === 'create' && model.roles(field).requiredOnCreate) {
      if (rule?.mode === 'split') either.push({ anyOf: [{ required: [field.name] }, { required: [rule.companion] }] });
      else required.push(field.name);
    }
  }
  return {
    ...(either.length > 0 ? { allOf: either } : {}),
    type: 'object',
    description:
      op === 'create'
        ? `Writable fields of a new ${model.name}; id, timestamps, readonly and unknown keys are ignored.`
        : `Fields of ${model.name} to change; omitted keys keep their value, immutable, readonly and unknown keys are ignored.`,
    properties,
    ...(required.length > 0 ? { required } : {}),
  };
}

/**
 * `{ data: record }`, with `meta._dir` for right-to-left locales on
 * models whose responses carry localized fields (their own or included): the full record (create, update), or the record or its
 * selection (read, which takes `select`).
 */
export function envelopeSchema(model: ModelMeta, data: Schema = ref('schemas', model.name)): Schema {
  return {
    type: 'object',
    properties: {
      data,
      ...(reachesLocalized(model) ? { meta: ref('schemas', 'RecordMeta') } : {}),
    },
    required: ['data'],
    additionalProperties: false,
  };
}

/** `{ data: [record], meta }`: page meta, or keyset meta when the model has a cursor field and `cursor` is sent. */
export function pageSchema(model: ModelMeta): Schema {
  const meta = model.options.cursorField ? { oneOf: [ref('schemas', 'PageMeta'), ref('schemas', 'CursorMeta')] } : ref('schemas', 'PageMeta');
  return {
    type: 'object',
    properties: { data: { type: 'array', items: readRecord(model) }, meta },
    required: ['data', 'meta'],
    additionalProperties: false,
  };
}

/** A row of `<model>_history` (spec, Versioning). */
export function historySchema(model: ModelMeta): Schema {
  const diffOnly = model.options.versioned?.diffOnly ?? false;
  return {
    type: 'object',
    description: `A change of a ${model.name}, newest first.`,
    properties: {
      id: { type: 'string', format: 'uuid' },
      record_id: { type: 'string' },
      version: { type: 'integer', minimum: 1 },
      operation: { type: 'string', enum: ['create', 'update', 'delete'] },
      actor_id: { type: ['string', 'null'] },
      timestamp: { type: 'string', format: 'date-time' },
      request_id: { type: ['string', 'null'] },
      diff: { type: 'object', additionalProperties: { type: 'object', properties: { old: {}, new: {} }, required: ['old', 'new'] }, description: 'field → {old, new}' },
      ...(diffOnly ? {} : { snapshot: { type: 'object', description: 'the full row after the change' } }),
    },
    required: ['id', 'record_id', 'version', 'operation', 'timestamp', 'diff'],
  };
}

/**
 * A create or update body as `multipart/form-data`: the JSON body's fields as
 * form values (numbers, booleans, arrays and objects as JSON text), each
 * file field a binary part, or the key of a stored file.
 */
export function formSchema(model: ModelMeta, op: 'create' | 'update', locales: ResolvedLocales): Schema {
  const body = bodySchema(model, op, locales);
  const properties = { ...(body.properties as Record<string, Schema>) };
  for (const field of fileFieldsOf(model)) {
    if (!(field.name in properties)) continue;
    properties[field.name] = {
      type: 'string',
      contentMediaType: 'application/octet-stream',
      description: `${fileNote(field)} An empty value clears the field.`,
    };
  }
  return { ...body, properties };
}

/** Every component schema of one model, by name. */
export function modelSchemas(model: ModelMeta, locales: ResolvedLocales): Record<string, Schema> {
  const names = schemaNames(model);
  const schemas: Record<string, Schema> = { [names.record]: recordSchema(model, locales), [names.selection]: selectionSchema(model, locales) };
  if (!model.options.singleton) schemas[names.create] = bodySchema(model, 'create', locales);
  schemas[names.update] = bodySchema(model, 'update', locales);
  // The operations reference the form bodies when the server has file storage.
  if (fileFieldsOf(model).length > 0) {
    if (!model.options.singleton) schemas[names.createForm] = formSchema(model, 'create', locales);
    schemas[names.updateForm] = formSchema(model, 'update', locales);
  }
  schemas[names.envelope] = envelopeSchema(model);
  schemas[names.readEnvelope] = envelopeSchema(model, readRecord(model));
  if (!model.options.singleton) schemas[names.page] = pageSchema(model);
  if (model.options.versioned) {
    schemas[names.history] = historySchema(model);
    schemas[names.historyPage] = {
      type: 'object',
      properties: { data: { type: 'array', items: ref('schemas', names.history) }, meta: ref('schemas', 'PageMeta') },
      required: ['data', 'meta'],
    };
  }
  return schemas;
}
