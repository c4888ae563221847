import type { ModelMeta } from '../registry/model-meta.js';
import type { Op } from '../pipeline/types.js';

/** The operations a model's generated routes serve (OPTIONS excluded: it carries no data). */
export function generatedOps(model: ModelMeta): Op[] {
  if (!model.mounted) return [];
  const ops: Op[] = model.options.singleton ? ['read', 'update'] : ['list', 'read', 'create', 'update', 'delete'];
  if (model.options.versioned) ops.push('history');
  return ops;
}

/** The method and path of a generated operation, for messages: `PATCH /api/posts/:id`. */
export function operationRoute(model: ModelMeta, op: string, prefix: string): string {
  const base = `${prefix}/${model.table}`;
  const item = model.options.singleton ? base : `${base}/:id`;
  const routes: Record<string, string> = {
    list: `GET ${base}`,
    read: `GET ${item}`,
    create: `POST ${base}`,
    update: `PATCH ${item}`,
    delete: `DELETE ${item}`,
    history: `GET ${item}/history`,
  };
  return routes[op] ?? `${op} ${base}`;
}
