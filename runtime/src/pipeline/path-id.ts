/**
 * The record id of an item route's path (read, update, delete, history).
 */
import { ApiError } from '../errors/api-error.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { hasNul } from '../util/nul.js';
import type { Context } from './context.js';

/**
 * The 404 of an id that names no live row in the caller's scope.
 *
 * @example throw notFound(model, id) // 404 NOT_FOUND: no Post with id "42"
 */
export function notFound(model: ModelMeta, id: string): ApiError {
  return new ApiError('NOT_FOUND', `no ${model.name} with id "${id.slice(0, 100)}"`);
}

/**
 * The path's id. One with a NUL character names no row (no column can hold
 * one), so it is not found without asking the database, which on
 * PostgreSQL would refuse the statement.
 *
 * @example const id = pathId(ctx, model); // ctx.params.id, or 404 for "a\0b"
 */
export function pathId(ctx: Context, model: ModelMeta): string {
  const id = ctx.params.id;
  if (hasNul(id)) throw notFound(model, id);
  return id;
}
