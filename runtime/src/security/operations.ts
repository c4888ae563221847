import type { ModelMeta } from '../registry/model-meta.js';
import type { Op } from '../pipeline/types.js';

/** The operations a model's generated routes serve (OPTIONS excluded: it carries no data). */
export function generatedOps(model: ModelMeta): Op[] {
  if (!model.mounted) return [];
  const ops: Op[] = model.options.singleton ? ['read', 'update'] : ['list', 'read', 'create', 'update', 'delete'];
  if (model.options.versioned) ops.push('history');
  return ops;
}
