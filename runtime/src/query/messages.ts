/**
 * The wording of the query language's 400s that more than one parser
 * writes (the list parser, and the locale rules of runtime/src/locale).
 */
import { ApiError } from '../errors/api-error.js';
import type { ModelMeta } from '../registry/model-meta.js';

/** A 400 INVALID_QUERY with this message. */
export const invalidQuery = (message: string): ApiError => new ApiError('INVALID_QUERY', message);

/** Echoes client text in messages, short and on one line. */
export const quote = (text: string): string => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

/**
 * The message of a name that is no usable field, with why when there is
 * more to say, and the fields that can be used instead.
 *
 * @example
 * notAField(article, '"title.xx"', 'sortable', '"xx" is not a supported locale'); // '"title.xx" is not a field of Article: "xx" is ...; sortable fields: title, slug'
 */
export function notAField(owner: ModelMeta, label: string, use: 'filterable' | 'sortable', why = ''): string {
  return `${label} is not a field of ${owner.name}${why ? `: ${why}` : ''}; ${use} fields: ${owner.fieldsWith(use).map((f) => f.name).join(', ') || 'none'}`;
}
