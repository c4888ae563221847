/**
 * GET {prefix}/asyncapi.json (DESIGN "Events, webhooks, realtime"): an
 * AsyncAPI 3.0 document of the events `publishEvents` publishes: one channel
 * per event type (`account.created`, ...), whose address is the type, with
 * the event envelope as the message payload and the redacted row (column
 * names, the fields events carry) as its `data`. The route is mounted only
 * when some `publishEvents` is registered (404 otherwise) and is guarded like
 * /openapi.json (Documentation's `public` or `auth` hooks).
 */
import type { ResolvedConfig } from '../config/config.js';
import type { DispatchDeps } from '../http/dispatch.js';
import { routeHandler } from '../http/dispatch.js';
import type { RouteTable } from '../http/route-table.js';
import { fieldRoles } from '../manifest/roles.js';
import { responseFieldSchema } from '../openapi/field-schemas.js';
import { documentTitle } from '../openapi/document.js';
import { documentChain } from '../openapi/route.js';
import type { Schema } from '../openapi/types.js';
import type { WriteOp } from '../pipeline/write-observers.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { eventType, type PublishedModels } from './publish.js';

export const ASYNCAPI_PATH = '/asyncapi.json';

const OP_TEXT: Record<WriteOp, string> = { create: 'was created', update: 'was updated (also when a delete cleared its reference)', delete: 'was deleted (also through a cascade)' };

/** The `data` of a model's events: its recorded fields by column name. */
function dataSchema(model: ModelMeta): Schema {
  const properties: Record<string, Schema> = {};
  for (const field of model.fields) {
    if (!fieldRoles(field).recorded) continue;
    const { readOnly: _readOnly, ...schema } = responseFieldSchema(model, field);
    properties[field.column] = schema;
  }
  return { type: 'object', description: `A ${model.name} row by column name; hidden, writeonly and encrypted fields are never included.`, properties };
}

function envelopeSchema(type: string, model: ModelMeta): Schema {
  const text = (t: string): Schema => ({ type: 'string', description: t });
  const orNull = (t: string): Schema => ({ type: ['string', 'null'], description: t });
  return {
    type: 'object',
    required: ['id', 'type', 'model', 'recordId', 'data', 'tenantId', 'actorId', 'requestId', 'time', 'headers'],
    properties: {
      id: { type: 'string', format: 'uuid', description: 'Fresh per event; a consumer may see it twice (at-least-once).' },
      type: { type: 'string', const: type },
      model: { type: 'string', const: model.name },
      recordId: text('The id of the written row.'),
      data: { $ref: `#/components/schemas/${model.name}.data` },
      tenantId: orNull("The writer's tenant."),
      actorId: orNull("The writer's user id."),
      requestId: orNull('The X-Request-Id of the write.'),
      time: { type: 'string', format: 'date-time' },
      headers: { type: 'object', additionalProperties: { type: 'string' }, description: '`traceparent`; `original_type` and `original_id` on a dead letter.' },
    },
  };
}

/**
 * The AsyncAPI 3.0 document of the event types the given registrations publish.
 *
 * @example
 * asyncApiDocument(config, [{ models: [post], ops: ['create'] }]).channels['post.created'].address // 'post.created'
 */
export function asyncApiDocument(config: Pick<ResolvedConfig, 'documentation' | 'serviceName'>, published: readonly PublishedModels[]): Record<string, unknown> {
  const byModel = new Map<ModelMeta, Set<WriteOp>>();
  for (const { models, ops } of published) {
    for (const model of models) {
      const set = byModel.get(model) ?? new Set<WriteOp>();
      for (const op of ops) set.add(op);
      byModel.set(model, set);
    }
  }
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const schemas: Record<string, Schema> = {};
  const models = [...byModel.keys()].sort((a, b) => a.name.localeCompare(b.name));
  for (const model of models) {
    schemas[`${model.name}.data`] = dataSchema(model);
    for (const op of (['create', 'update', 'delete'] as const).filter((o) => byModel.get(model)!.has(o))) {
      const type = eventType(model.name, op);
      schemas[type] = envelopeSchema(type, model);
      messages[type] = { name: type, title: `${model.name} ${OP_TEXT[op]}`, contentType: 'application/json', payload: { $ref: `#/components/schemas/${type}` } };
      channels[type] = { address: type, description: `Events of type ${type}.`, messages: { [type]: { $ref: `#/components/messages/${type}` } } };
      operations[type] = { action: 'send', channel: { $ref: `#/channels/${type}` }, summary: `A ${model.name} ${OP_TEXT[op]}.`, messages: [{ $ref: `#/channels/${type}/messages/${type}` }] };
    }
  }
  return {
    asyncapi: '3.0.0',
    info: { title: `${documentTitle(config)} events`, version: config.documentation?.version ?? '1.0.0', description: 'Events published after each committed write (at-least-once).' },
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { messages, schemas },
  };
}

/**
 * Mounts GET/HEAD {prefix}/asyncapi.json when Documentation is configured
 * and some `publishEvents` is registered, behind the same hooks as
 * /openapi.json; otherwise the path stays a 404.
 */
export function mountAsyncApiRoute(table: RouteTable, config: ResolvedConfig, deps: DispatchDeps, published: readonly PublishedModels[]): void {
  const documentation = config.documentation;
  if (!documentation || published.length === 0) return;
  const chain = documentChain(documentation.public ? [] : (documentation.auth ?? []), () => asyncApiDocument(config, published));
  const handler = routeHandler(deps, null, 'read', chain);
  table.add('GET', `${config.pathPrefix}${ASYNCAPI_PATH}`, handler);
  table.add('HEAD', `${config.pathPrefix}${ASYNCAPI_PATH}`, handler);
}
