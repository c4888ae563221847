import type { Op } from '../pipeline/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { modelRoutes } from '../registry/model-routes.js';

/**
 * The operations a model's served routes run as, in route-table order
 * (OPTIONS excluded: it carries no data).
 *
 * @example
 * generatedOps(post); // ['list', 'create', 'read', 'update', 'delete']
 */
export function generatedOps(model: ModelMeta): Op[] {
  const ops = new Set<Op>();
  for (const row of modelRoutes(model).rows) if (row.served && row.op !== 'options') ops.add(row.op);
  return [...ops];
}

/**
 * The method and path of a generated operation, for messages.
 *
 * @example
 * operationRoute(post, 'update', '/api'); // 'PATCH /api/posts/:id'
 */
export function operationRoute(model: ModelMeta, op: Op, prefix: string): string {
  const row = modelRoutes(model).routeOf(op);
  return row ? `${row.method} ${prefix}${row.pattern}` : `${op} ${prefix}/${model.table}`;
}
