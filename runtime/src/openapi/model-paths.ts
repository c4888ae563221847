/**
 * The generated routes of every mounted model: list, create, read, update,
 * delete (GET and PATCH only for singletons), with HEAD and OPTIONS, and the
 * optional history, aggregate and export routes where the model enables
 * them. Headless models contribute schemas only.
 */
import type { Op } from '../pipeline/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { type DocumentBuilder, headOf, type PathContribution, type Recording } from './builder.js';
import { schemaNames } from './model-schemas.js';
import { modelPieces } from './model-pieces.js';
import type { Operation, Parameter, Ref, Response, Schema } from './types.js';
import { ref } from './types.js';

const json = (schema: Schema) => ({ 'application/json': { schema } });

const allowHeader = { Allow: { description: 'the methods this path answers', schema: { type: 'string' } } };

function options(doc: DocumentBuilder, model: ModelMeta, item: boolean): Operation {
  // OPTIONS runs the pipeline too, so the hooks scoped onto it (an unscoped authenticator, say) apply.
  return doc.secured(model.name, 'options', {
    operationId: `options${model.name}${item ? 'Item' : ''}`,
    summary: 'Allowed methods (browser preflights are answered earlier by CORS middleware)',
    tags: [model.name],
    responses: { '204': { description: 'no body; see Allow', headers: allowHeader } },
  });
}

/** Built-in contribution: CRUD routes and the schemas of every model. */
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
      const recording = doc.record(() => (model.options.singleton ? documentSingleton(doc, model) : documentCollection(doc, model)));
      if (doc.sources.sealed) routeCache.set(model, recording);
    }
  },
};

const routeCache = new WeakMap<ModelMeta, Recording>();

function etagHeader(model: ModelMeta): Response['headers'] {
  return model.options.optimisticLock ? { ETag: { description: 'quoted MD5 of the body; send it back as If-Match', schema: { type: 'string' } } } : undefined;
}

function documentCollection(doc: DocumentBuilder, model: ModelMeta): void {
  const names = schemaNames(model);
  const base = `/${model.table}`;
  const item = `${base}/{id}`;
  const tags = [model.name];
  const common = doc.commonStatuses();
  const lock = model.options.optimisticLock;
  const ifMatch: (Parameter | Ref)[] = lock ? [ref('parameters', 'ifMatch')] : [];
  const idParam = [ref('parameters', 'id')];
  const secured = (op: Op, operation: Operation) => doc.secured(model.name, op, operation);

  const list = secured('list', {
    operationId: `list${model.name}`,
    summary: `List ${model.table}`,
    tags,
    parameters: [...modelPieces(model, doc.registry).listParameters],
    responses: { '200': { description: `a page of ${model.name} records`, content: json(ref('schemas', names.page)) }, ...doc.errors('400', ...common) },
  });
  doc.operation('get', base, list);
  doc.operation('head', base, headOf(list));
  doc.operation(
    'post',
    base,
    secured('create', {
      operationId: `create${model.name}`,
      summary: `Create a ${model.name}`,
      tags,
      requestBody: { required: true, content: json(ref('schemas', names.create)) },
      responses: {
        '201': { description: `the created ${model.name}`, headers: etagHeader(model), content: json(ref('schemas', names.envelope)) },
        ...doc.errors('400', '409', '413', '422', ...common, '501'),
      },
    }),
  );
  doc.operation('options', base, options(doc, model, false));

  const read = secured('read', {
    operationId: `read${model.name}`,
    summary: `Read a ${model.name}`,
    tags,
    parameters: [...modelPieces(model, doc.registry).readParameters],
    responses: { '200': { description: `the ${model.name}`, headers: etagHeader(model), content: json(ref('schemas', names.envelope)) }, ...doc.errors('400', '404', ...common) },
  });
  doc.operation('get', item, read, idParam);
  doc.operation('head', item, headOf(read));
  doc.operation(
    'patch',
    item,
    secured('update', {
      operationId: `update${model.name}`,
      summary: `Change a ${model.name}`,
      tags,
      parameters: ifMatch,
      requestBody: { required: true, content: json(ref('schemas', names.update)) },
      responses: {
        '200': { description: `the updated ${model.name}`, headers: etagHeader(model), content: json(ref('schemas', names.envelope)) },
        ...doc.errors('400', '404', '409', ...(lock ? ['412'] : []), '413', '422', ...common, '501'),
      },
    }),
  );
  doc.operation(
    'delete',
    item,
    secured('delete', {
      operationId: `delete${model.name}`,
      summary: model.options.softDelete ? `Delete a ${model.name} (soft: the row is marked, not removed)` : `Delete a ${model.name}`,
      tags,
      parameters: ifMatch,
      responses: { '204': { description: 'deleted; no body' }, ...doc.errors('404', '409', ...(lock ? ['412'] : []), ...common) },
    }),
  );
  doc.operation('options', item, options(doc, model, true));
}

function documentSingleton(doc: DocumentBuilder, model: ModelMeta): void {
  const names = schemaNames(model);
  const path = `/${model.table}`;
  const tags = [model.name];
  const common = doc.commonStatuses();
  const read = doc.secured(model.name, 'read', {
    operationId: `read${model.name}`,
    summary: `Read the ${model.name} (created from defaults on first access)`,
    tags,
    parameters: [...modelPieces(model, doc.registry).readParameters],
    responses: { '200': { description: `the ${model.name}`, headers: etagHeader(model), content: json(ref('schemas', names.envelope)) }, ...doc.errors('400', ...common) },
  });
  doc.operation('get', path, read);
  doc.operation('head', path, headOf(read));
  doc.operation(
    'patch',
    path,
    doc.secured(model.name, 'update', {
      operationId: `update${model.name}`,
      summary: `Change the ${model.name}`,
      tags,
      parameters: model.options.optimisticLock ? [ref('parameters', 'ifMatch')] : [],
      requestBody: { required: true, content: json(ref('schemas', names.update)) },
      responses: {
        '200': { description: `the updated ${model.name}`, headers: etagHeader(model), content: json(ref('schemas', names.envelope)) },
        ...doc.errors('400', '409', ...(model.options.optimisticLock ? ['412'] : []), '413', '422', ...common, '501'),
      },
    }),
  );
  doc.operation('options', path, options(doc, model, false));
}
