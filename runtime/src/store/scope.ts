import type { ScopeFilter } from '../pipeline/context.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { SqlBuilder } from '../sql/builder.js';

const NO_SCOPE: readonly ScopeFilter[] = Object.freeze([]);

/**
 * The scope entries that apply to `model`: entries naming it, and, when it is
 * the request's own model, entries naming no model.
 *
 * @example
 * scopeFor(comments, [{ field: 'tenantId', value: 't1', model: 'Comment' }], false) // the entry
 */
export function scopeFor(model: ModelMeta, scope: readonly ScopeFilter[] | undefined, requestModel: boolean): readonly ScopeFilter[] {
  // Most requests have no scope: one shared empty list, no array each time a statement is written.
  if (!scope || scope.length === 0) return NO_SCOPE;
  return scope.filter((entry) => (entry.model === undefined ? requestModel : entry.model === model.name));
}

/** The column of a scope entry's field, or a startup-style error naming the field and model. */
export function scopeColumn(model: ModelMeta, entry: ScopeFilter): string {
  const field = model.field(entry.field);
  if (!field) throw new Error(`mfx: a scope entry names field ${entry.field}, which ${model.name} does not have`);
  return field.column;
}

/** Writes ` AND <alias>.<col> = ?` for each entry (no alias: bare column). */
export function writeScope(sql: SqlBuilder, model: ModelMeta, entries: readonly ScopeFilter[], alias?: string): void {
  for (const entry of entries) {
    sql.text(' AND ');
    if (alias) sql.column(alias, scopeColumn(model, entry));
    else sql.id(scopeColumn(model, entry));
    sql.text(' = ').value(entry.value);
  }
}
