/**
 * The optional model routes of the spec: history (versioned models),
 * aggregate and export. They are documented from the model options; the
 * document keeps them only once the server actually mounts them.
 */
import type { ModelMeta } from '../registry/model-meta.js';
import { type DocumentBuilder, headOf, type PathContribution } from './builder.js';
import { modelPieces } from './model-pieces.js';
import { schemaNames } from './model-schemas.js';
import type { Parameter, Ref } from './types.js';
import { ref } from './types.js';

const queryOnly = (params: (Parameter | Ref)[], names: string[]) => params.filter((p) => '$ref' in p || names.includes(p.name));

function history(doc: DocumentBuilder, model: ModelMeta): void {
  const path = `/${model.table}/{id}/history`;
  const get = doc.secured(model.name, 'history', {
    operationId: `history${model.name}`,
    summary: `Changes of a ${model.name}, newest first`,
    description: "Runs the record's read pipeline first: a caller who cannot read the record gets 404.",
    tags: [model.name],
    parameters: [ref('parameters', 'id'), ref('parameters', 'page'), ref('parameters', 'limit')],
    responses: {
      '200': { description: 'a page of history rows', content: { 'application/json': { schema: ref('schemas', schemaNames(model).historyPage) } } },
      ...doc.errors('400', '404', ...doc.commonStatuses()),
    },
  });
  doc.operation('get', path, get);
  doc.operation('head', path, headOf(get));
}

function aggregate(doc: DocumentBuilder, model: ModelMeta): void {
  const fields = model.fields.filter((f) => model.roles(f).filterable || model.roles(f).sortable).map((f) => f.name);
  const params = [...modelPieces(model, doc.registry).listParameters];
  doc.operation(
    'get',
    `/${model.table}/aggregate`,
    doc.secured(model.name, 'list', {
      operationId: `aggregate${model.name}`,
      summary: `Aggregate ${model.table}`,
      tags: [model.name],
      parameters: [
        {
          name: 'aggregate',
          in: 'query',
          required: true,
          description: `URL-encoded JSON {select: [{op, field, as}], group_by, where: [{field, operator, value}], having: [{alias, operator, value}], order_by: [{field, direction}], limit (default 100, max 200)}; op is count, count_distinct, sum, avg, min or max; aggregatable fields: ${fields.join(', ') || 'none'}`,
          schema: { type: 'string' },
        },
        ...queryOnly(params, ['filter', 'filter[N]']),
      ],
      responses: {
        '200': {
          description: 'one row per group',
          content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'array', items: { type: 'object' } } }, required: ['data'] } } },
        },
        ...doc.errors('400', ...doc.commonStatuses()),
      },
    }),
  );
}

function exportRoute(doc: DocumentBuilder, model: ModelMeta): void {
  const params = [...modelPieces(model, doc.registry).listParameters];
  doc.operation(
    'get',
    `/${model.table}/export`,
    doc.secured(model.name, 'list', {
      operationId: `export${model.name}`,
      summary: `Export ${model.table} as CSV or XLSX (at most ${model.options.maxExportRows} rows)`,
      tags: [model.name],
      parameters: [
        { name: 'format', in: 'query', schema: { type: 'string', enum: ['csv', 'xlsx'], default: 'csv' } },
        ...queryOnly(params, ['filter', 'filter[N]', 'sort']),
      ],
      responses: {
        '200': {
          description: `a file named ${model.table}-<YYYYMMDD-HHMMSS>.<ext> with a header row of JSON names`,
          content: {
            'text/csv': { schema: { type: 'string' } },
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
          },
        },
        ...doc.errors('400', '413', ...doc.commonStatuses()),
      },
    }),
  );
}

/** Built-in contribution: history, aggregate and export routes where enabled. */
export const optionalRoutesContribution: PathContribution = {
  name: 'optional model routes',
  contribute(doc) {
    for (const model of doc.registry.all()) {
      if (!model.mounted || model.options.singleton) continue;
      if (model.options.versioned) history(doc, model);
      if (model.options.aggregate) aggregate(doc, model);
      if (model.options.export) exportRoute(doc, model);
    }
  },
};
