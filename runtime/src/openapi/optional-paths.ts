/**
 * The optional model routes of the spec, one documenting function per route
 * kind: history (versioned models), aggregate and export. The route table
 * says which models get them; the document keeps them only once the server
 * actually mounts them.
 */
import type { RouteDocumenter } from './model-paths.js';
import { modelPieces } from './model-pieces.js';
import { schemaNames } from './model-schemas.js';
import { AGGREGATE_OPS, aggregatableFields, DEFAULT_AGGREGATE_LIMIT, selectableExpressions } from '../aggregate/spec.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { FILTER_OPS } from '../query/types.js';
import type { Parameter, Ref, Schema } from './types.js';
import { ref } from './types.js';

const queryOnly = (params: (Parameter | Ref)[], names: string[]) => params.filter((p) => '$ref' in p || names.includes(p.name));

export const historyOperation: RouteDocumenter = (doc, model, row) => ({
  operation: doc.secured(model.name, row.op, {
    operationId: `history${model.name}`,
    summary: `Changes of a ${model.name}, newest first`,
    description: "Runs the record's read pipeline first: a caller who cannot read the record gets 404.",
    tags: [model.name],
    parameters: [ref('parameters', 'id'), ref('parameters', 'page'), ref('parameters', 'limit')],
    responses: {
      '200': { description: 'a page of history rows', content: { 'application/json': { schema: ref('schemas', schemaNames(model).historyPage) } } },
      ...doc.errors('400', '404', ...doc.commonStatuses()),
    },
  }),
});

export const aggregateOperation: RouteDocumenter = (doc, model, row) => {
  const fields = aggregatableFields(model).map((f) => f.name);
  const expressions = selectableExpressions(model, { exposedOnly: true });
  const params = [...modelPieces(model, doc.registry).listParameters];
  const named = expressions.length ? `; exposed expressions: ${expressions.map((e) => `${e.name} = ${e.text}`).join(', ')}` : '; exposed expressions: none';
  return {
    operation: doc.secured(model.name, row.op, {
      operationId: `aggregate${model.name}`,
      summary: `Aggregate ${model.table}`,
      tags: [model.name],
      parameters: [
        {
          name: 'aggregate',
          in: 'query',
          required: true,
          description: `URL-encoded JSON {select: [{op, field, as}], group_by, where: [{field, operator, value}], having: [{alias, operator, value}], order_by: [{field, direction}], limit (default 100, max 200)}; op is count, count_distinct, sum, avg, min or max; aggregatable fields: ${fields.join(', ') || 'none'}${named}`,
          content: { 'application/json': { schema: aggregateSchema(model, fields, expressions.map((e) => e.name)) } },
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
  };
};

/** The JSON shape of the aggregate parameter, with the model's fields, expressions and term caps. */
function aggregateSchema(model: ModelMeta, fields: string[], expressions: string[]): Schema {
  const limits = model.queryLimits;
  const field = { type: 'string', enum: fields };
  const operator = { type: 'string', enum: [...FILTER_OPS] };
  const value = { description: 'a string, number or boolean; an array for in, not_in and between; absent for is_null and not_null' };
  const terms = (max: number, items: Schema) => ({ type: 'array', maxItems: max, items });
  const object = (properties: Record<string, Schema>, required: string[]) => ({ type: 'object', additionalProperties: false, properties, required });
  return object(
    {
      select: {
        ...terms(limits.aggregateSelect, object({ op: { type: 'string', enum: [...AGGREGATE_OPS] }, field: { type: 'string', enum: [...fields, ...expressions] }, as: { type: 'string', minLength: 1, maxLength: 64 } }, ['op'])),
        minItems: 1,
      },
      group_by: terms(limits.aggregateGroupBy, field),
      where: terms(limits.aggregateWhere, object({ field, operator, value }, ['field', 'operator'])),
      having: terms(limits.aggregateHaving, object({ alias: { type: 'string' }, operator, value }, ['alias', 'operator'])),
      order_by: terms(limits.aggregateOrderBy, object({ field: { type: 'string', description: 'a select alias or a group_by field' }, direction: { type: 'string', enum: ['asc', 'desc'], default: 'asc' } }, ['field'])),
      limit: { type: 'integer', minimum: 0, default: DEFAULT_AGGREGATE_LIMIT, description: 'clamped to 200' },
    },
    ['select'],
  );
}

export const exportOperation: RouteDocumenter = (doc, model, row) => {
  const params = [...modelPieces(model, doc.registry).listParameters];
  return {
    operation: doc.secured(model.name, row.op, {
      operationId: `export${model.name}`,
      summary: `Export ${model.table} as CSV or XLSX (at most ${model.options.maxExportRows} rows)`,
      tags: [model.name],
      parameters: [
        { name: 'format', in: 'query', schema: { type: 'string', enum: ['csv', 'xlsx'], default: 'csv' } },
        ...queryOnly(params, ['filter', 'filter[N]', 'sort', 'q', 'locale']),
      ],
      responses: {
        '200': {
          description: `a file named ${model.table}-<YYYYMMDD-HHMMSS>.<ext> with a header row of JSON names`,
          content: {
            'text/csv': { schema: { type: 'string' } },
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
          },
        },
        ...doc.errors('400', '413', '501', '503', ...doc.commonStatuses()),
      },
    }),
  };
};
