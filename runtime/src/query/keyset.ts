import { ApiError } from '../errors/api-error.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { RecordData } from '../store/codec.js';
import type { Keyset } from '../store/list-sql.js';
import type { CursorCodec } from './cursor.js';
import type { ListQuery } from './types.js';

/** What a token is tied to: the model and the walk's direction. */
const scopeOf = (model: ModelMeta, keyset: Pick<Keyset, 'direction'>) => `${model.name}:${keyset.direction}`;

/**
 * The keyset walk a list asks for (`cursor` present), or null for offset
 * paging. The order is the cursor field then id; `sort` may only choose the
 * cursor field's direction.
 *
 * @example
 * keysetFor(posts, query, codec) // { field: 'created_at', direction: 'asc', after: null }
 */
export function keysetFor(model: ModelMeta, query: ListQuery, codec: CursorCodec): Keyset | null {
  if (query.cursor === null) return null;
  const field = model.options.cursorField!;
  let direction: Keyset['direction'] = 'asc';
  if (query.sorts.length > 0) {
    const [sort] = query.sorts;
    if (query.sorts.length > 1 || sort.path.length > 0 || sort.field.name !== model.field(field)?.name) {
      throw new ApiError('INVALID_QUERY', `cursor pagination orders by ${field} then id; sort may only give its direction (sort=${field}:desc), or drop cursor to sort freely`);
    }
    direction = sort.direction;
  }
  const keyset: Keyset = { field, direction, after: null };
  if (query.cursor !== '') keyset.after = codec.decode(scopeOf(model, keyset), query.cursor);
  return keyset;
}

/** The token of the page after `records`, or null on the last page. */
export function nextCursor(model: ModelMeta, keyset: Keyset, records: RecordData[], hasMore: boolean, codec: CursorCodec): string | null {
  const last = records.at(-1);
  if (!hasMore || !last) return null;
  return codec.encode(scopeOf(model, keyset), { value: last[model.field(keyset.field)!.name], id: last.id as string });
}
