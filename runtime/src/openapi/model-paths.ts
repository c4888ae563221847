/**
 * The generated routes of every mounted model, documented from its route
 * table (`modelRoutes`): one documenting function per route kind, HEAD rows
 * mirroring their GET. This module holds the contribution and the CRUD and
 * OPTIONS kinds; `optional-paths` the history, aggregate and export kinds.
 * Headless models contribute schemas only.
 */
import { fileFieldsOf } from '../files/fields.js';
import type { Op } from '../pipeline/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { modelRoutes, type RouteKind, type RouteRow } from '../registry/model-routes.js';
import { type DocumentBuilder, headOf, type PathContribution, type Recording } from './builder.js';
import { openApiPath } from './document.js';
import { schemaNames } from './model-schemas.js';
import { modelPieces } from './model-pieces.js';
import { writeLocaleParameters } from './list-parameters.js';
import { aggregateOperation, exportOperation, historyOperation } from './optional-paths.js';
import type { HttpMethod, Operation, Parameter, Ref, Response, Schema } from './types.js';
import { ref } from './types.js';

/** The operation of one route row (the GET of a GET route: HEAD mirrors it), and the parameters its path carries. */
export interface DocumentedRoute {
  operation: Operation;
  pathParameters?: (Parameter | Ref)[];
}

export type RouteDocumenter = (doc: DocumentBuilder, model: ModelMeta, row: RouteRow) => DocumentedRoute;

const json = (schema: Schema) => ({ 'application/json': { schema } });

/** The multipart body of a model with file fields, when the server has file storage (else multipart is 501). */
const form = (doc: DocumentBuilder, model: ModelMeta, op: 'create' | 'update'): Record<string, { schema: Schema }> =>
  doc.config.files && fileFieldsOf(model).length > 0
    ? { 'multipart/form-data': { schema: ref('schemas', op === 'create' ? schemaNames(model).createForm : schemaNames(model).updateForm) } }
    : {};

/** 415: a file part of a type its field does not accept. */
const fileStatuses = (doc: DocumentBuilder, model: ModelMeta): string[] => (doc.config.files && fileFieldsOf(model).some((f) => f.file!.accept) ? ['415'] : []);

const allowHeader = { Allow: { description: 'the methods this path answers', schema: { type: 'string' } } };

const secured = (doc: DocumentBuilder, model: ModelMeta, op: Op, operation: Operation): DocumentedRoute => ({ operation: doc.secured(model.name, op, operation) });

function etagHeader(model: ModelMeta): Response['headers'] {
  return model.options.optimisticLock ? { ETag: { description: 'quoted MD5 of the body; send it back as If-Match', schema: { type: 'string' } } } : undefined;
}

const ifMatch = (model: ModelMeta): (Parameter | Ref)[] => (model.options.optimisticLock ? [ref('parameters', 'ifMatch')] : []);
const lockStatuses = (model: ModelMeta): string[] => (model.options.optimisticLock ? ['412'] : []);

function listDescription(model: ModelMeta): string {
  const { maxFilters, maxSorts, maxIncludes } = model.queryLimits;
  return [
    `A page of ${model.name} records${model.options.softDelete ? ' (soft-deleted ones left out unless a filter names the marker)' : ''}, ordered by \`sort\` (by id without one).`,
    `Narrow it with \`filter\` (at most ${maxFilters} clauses; \`filter[N]\` groups OR together)${model.fieldsWith('searchable').length > 0 ? ' and the full-text `q`' : ''}, sort by up to ${maxSorts} keys, load up to ${maxIncludes} relations with \`include\`, and return only some fields with \`select\`.`,
    'Page with `page` and `limit`; meta carries the total and the page count.',
  ].join(' ');
}

const list: RouteDocumenter = (doc, model, row) =>
  secured(doc, model, row.op, {
    operationId: `list${model.name}`,
    summary: `List ${model.table}`,
    description: listDescription(model),
    tags: [model.name],
    parameters: [...modelPieces(model, doc.registry).listParameters],
    responses: { '200': { description: `a page of ${model.name} records`, content: json(ref('schemas', schemaNames(model).page)) }, ...doc.errors('400', ...doc.commonStatuses()) },
  });

const create: RouteDocumenter = (doc, model, row) =>
  secured(doc, model, row.op, {
    operationId: `create${model.name}`,
    summary: `Create a ${model.name}`,
    description: `Writes a new ${model.name} from the writable fields of the body (JSON, or multipart with file parts) and answers it with its id and timestamps. Fields left out take their default; id, timestamps, readonly and unknown keys are ignored. A rule a field breaks is 422 naming the field; a unique value already taken or a parent that does not exist is 409.`,
    tags: [model.name],
    ...(writeLocaleParameters(model).length > 0 ? { parameters: writeLocaleParameters(model) } : {}),
    requestBody: { required: true, content: { ...json(ref('schemas', schemaNames(model).create)), ...form(doc, model, 'create') } },
    responses: {
      '201': { description: `the created ${model.name}`, headers: etagHeader(model), content: json(ref('schemas', schemaNames(model).envelope)) },
      ...doc.errors('400', '409', '413', ...fileStatuses(doc, model), '422', ...doc.commonStatuses(), '501'),
    },
  });

const read: RouteDocumenter = (doc, model, row) => {
  const singleton = model.options.singleton;
  const documented = secured(doc, model, row.op, {
    operationId: `read${model.name}`,
    summary: singleton ? `Read the ${model.name} (created from defaults on first access)` : `Read a ${model.name}`,
    description: `${singleton ? `The one ${model.name}` : `One ${model.name} by id`}${model.options.softDelete ? ' (a soft-deleted one is 404)' : ''}. \`include\` loads related records, \`select\` returns only the chosen fields.`,
    tags: [model.name],
    parameters: [...modelPieces(model, doc.registry).readParameters],
    responses: {
      '200': { description: `the ${model.name}`, headers: etagHeader(model), content: json(ref('schemas', schemaNames(model).readEnvelope)) },
      ...doc.errors('400', ...(singleton ? [] : ['404']), ...doc.commonStatuses()),
    },
  });
  return singleton ? documented : { ...documented, pathParameters: [ref('parameters', 'id')] };
};

const update: RouteDocumenter = (doc, model, row) => {
  const singleton = model.options.singleton;
  return secured(doc, model, row.op, {
    operationId: `update${model.name}`,
    summary: singleton ? `Change the ${model.name}` : `Change a ${model.name}`,
    description: `Writes the fields the body carries; keys left out keep their value, immutable, readonly and unknown keys are ignored. A body with no writable key answers the record unchanged.${model.options.optimisticLock ? ' With If-Match, a stale ETag is 412 and nothing is written.' : ''}`,
    tags: [model.name],
    parameters: [...ifMatch(model), ...writeLocaleParameters(model)],
    requestBody: { required: true, content: { ...json(ref('schemas', schemaNames(model).update)), ...form(doc, model, 'update') } },
    responses: {
      '200': { description: `the updated ${model.name}`, headers: etagHeader(model), content: json(ref('schemas', schemaNames(model).envelope)) },
      ...doc.errors('400', ...(singleton ? [] : ['404']), '409', ...lockStatuses(model), '413', ...fileStatuses(doc, model), '422', ...doc.commonStatuses(), '501'),
    },
  });
};

const remove: RouteDocumenter = (doc, model, row) =>
  secured(doc, model, row.op, {
    operationId: `delete${model.name}`,
    summary: model.options.softDelete ? `Delete a ${model.name} (soft: the row is marked, not removed)` : `Delete a ${model.name}`,
    description: `${model.options.softDelete ? 'Marks the record deleted: it leaves lists and reads, its unique values become free again, and its row stays.' : 'Removes the record.'} Related records follow their onDelete rule; a parent whose children restrict it is 409. A record that is already gone is 404.`,
    tags: [model.name],
    parameters: ifMatch(model),
    responses: { '204': { description: 'deleted; no body' }, ...doc.errors('404', '409', ...lockStatuses(model), ...doc.commonStatuses()) },
  });

// OPTIONS runs the pipeline too, so the hooks scoped onto it (an unscoped authenticator, say) apply.
const options: RouteDocumenter = (doc, model, row) =>
  secured(doc, model, row.op, {
    operationId: `options${model.name}${row.pattern.includes('/:') ? 'Item' : ''}`,
    summary: 'Allowed methods (browser preflights are answered earlier by CORS middleware)',
    description: 'Answers 204 with the Allow header listing the methods this path serves.',
    tags: [model.name],
    responses: { '204': { description: 'no body; see Allow', headers: allowHeader } },
  });

/** One documenting function per route kind: a kind without one does not compile. */
const documenters: Record<RouteKind, RouteDocumenter> = {
  list,
  create,
  read,
  update,
  delete: remove,
  options,
  history: historyOperation,
  aggregate: aggregateOperation,
  export: exportOperation,
};

/** Documents every row of a model's route table (served or not: the document keeps only what the router mounts). */
function documentModel(doc: DocumentBuilder, model: ModelMeta): void {
  const gets = new Map<string, Operation>();
  for (const row of modelRoutes(model).rows) {
    const path = openApiPath(row.pattern);
    const key = `${row.kind} ${row.pattern}`;
    if (row.method === 'HEAD') {
      doc.operation('head', path, headOf(gets.get(key)!));
      continue;
    }
    const { operation, pathParameters } = documenters[row.kind](doc, model, row);
    if (row.method === 'GET') gets.set(key, operation);
    doc.operation(row.method.toLowerCase() as HttpMethod, path, operation, pathParameters);
  }
}

/** Built-in contribution: the route table and the schemas of every model. */
export const modelRoutesContribution: PathContribution = {
  name: 'model routes',
  contribute(doc) {
    for (const model of doc.registry.all()) {
      for (const [name, schema] of Object.entries(modelPieces(model, doc.registry).schemas)) doc.schema(name, schema);
      if (!model.mounted) continue;
      // Once everything is sealed a model's operations cannot change: build them once, replay them after.
      const cached = doc.sources.sealed ? routeCache.get(model) : undefined;
      if (cached) {
        doc.replay(cached);
        continue;
      }
      const recording = doc.record(() => documentModel(doc, model));
      if (doc.sources.sealed) routeCache.set(model, recording);
    }
  },
};

const routeCache = new WeakMap<ModelMeta, Recording>();
