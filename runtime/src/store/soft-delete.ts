import type { ListQuery } from '../query/types.js';

/**
 * Whether a list query asks about the soft-delete marker itself
 * (`filter=deleted_at:not_null`, `filter=is_deleted:eq:true`): then the
 * automatic "not deleted" condition is lifted, so deleted rows can be seen
 * through the filter, and the filter alone decides.
 *
 * @example
 * const where = asksForDeleted(query) ? null : liveCondition;
 */
export function asksForDeleted(query: Pick<ListQuery, 'filters'>): boolean {
  return query.filters.some((clause) => clause.path.length === 0 && (clause.field.base === 'deleted_at' || clause.field.base === 'is_deleted'));
}
