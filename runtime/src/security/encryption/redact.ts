/**
 * What trace logging (`trace.bodies`) shows of a body that carries
 * encrypted fields: each encrypted value replaced by a marker, in the
 * record, its list and the related records `include` loaded. Bodies of
 * models without encrypted fields are logged as they are.
 */
import type { ModelMeta } from '../../registry/model-meta.js';
import { encryptionOf } from './fields.js';

export const REDACTED = '[encrypted]';

/** Whether a model's bodies (or those of models it relates to) can carry encrypted values. */
function reaches(model: ModelMeta, seen = new Set<ModelMeta>()): boolean {
  if (encryptionOf(model)) return true;
  seen.add(model);
  for (const key of model.relations.keys()) {
    const target = model.target(key)?.target;
    if (target && !seen.has(target) && reaches(target, seen)) return true;
  }
  return false;
}

function redactRecord(model: ModelMeta, record: unknown): unknown {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return record;
  const out: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  for (const { field } of encryptionOf(model)?.fields ?? []) if (out[field.name] != null) out[field.name] = REDACTED;
  for (const key of model.relations.keys()) {
    const target = model.target(key)?.target;
    if (!target || !(key in out)) continue;
    const value = out[key];
    out[key] = Array.isArray(value) ? value.map((r) => redactRecord(target, r)) : redactRecord(target, value);
  }
  return out;
}

/**
 * A request body (a record) or a JSON response body (`{ data }`, a record or
 * a list) without encrypted values.
 *
 * @example
 * log.debug({ body: redactBody(ctx.model, ctx.body, 'request') }, 'request body');
 */
export function redactBody(model: ModelMeta | null | undefined, body: unknown, kind: 'request' | 'response'): unknown {
  if (!model || !reaches(model) || body === null || typeof body !== 'object') return body;
  if (kind === 'request') return redactRecord(model, body);
  const data = (body as { data?: unknown }).data;
  if (data === undefined) return body;
  return { ...(body as object), data: Array.isArray(data) ? data.map((r) => redactRecord(model, r)) : redactRecord(model, data) };
}
