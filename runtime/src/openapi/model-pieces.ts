/**
 * The parts of a model's documentation that depend only on the registry:
 * its component schemas and its list and read parameters. A sealed registry
 * never changes, so they are computed once per model and reused by every
 * build; the document itself (paths, security, the route filter) is still
 * assembled on every request. An open registry is never cached.
 */
import type { ModelMeta } from '../registry/model-meta.js';
import type { Registry } from '../registry/registry.js';
import { listParameters, readParameters } from './list-parameters.js';
import { modelSchemas } from './model-schemas.js';
import type { Parameter, Ref, Schema } from './types.js';

export interface ModelPieces {
  schemas: Readonly<Record<string, Schema>>;
  listParameters: readonly (Parameter | Ref)[];
  readParameters: readonly (Parameter | Ref)[];
}

const cache = new WeakMap<ModelMeta, ModelPieces>();

/** The registry-derived pieces of one model; shared between documents, so never mutate them. */
export function modelPieces(model: ModelMeta, registry: Registry): ModelPieces {
  const cached = registry.sealed ? cache.get(model) : undefined;
  if (cached) return cached;
  const pieces: ModelPieces = {
    schemas: modelSchemas(model, registry.locales),
    listParameters: listParameters(model, registry),
    readParameters: readParameters(model, registry),
  };
  if (registry.sealed) cache.set(model, pieces);
  return pieces;
}
