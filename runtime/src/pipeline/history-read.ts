import { mapDbError } from '../db/errors.js';
import { ApiError } from '../errors/api-error.js';
import { parseListQuery } from '../query/parse.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { type HistoryEntry, historyOf } from '../store/history.js';
import type { ModelStore } from '../store/model-store.js';
import { notFound, pathId } from './path-id.js';
import { type StepDefaults, straight } from './pipeline.js';

/** List parameters that would filter or reshape history rows; only page and limit apply. */
const REFUSED_PARAMETERS = ['filter', 'sort', 'include', 'q', 'cursor', 'select'];

/**
 * The default steps of `GET /<table>/<id>/history` (op `history`): the
 * parent's read pipeline, whose DB step first checks the record exists in
 * the caller's scope (soft-deleted records included, hard-deleted ones not:
 * 404), then reads one page of history rows, newest first.
 */
export function historyDefaults(model: ModelMeta, store: ModelStore, none: StepDefaults): StepDefaults {
  const history = historyOf(model, store.dialect);
  if (!history) return none;
  return {
    ...none,
    deserialize: straight((ctx) => {
      // Parameters are parsed against the parent model; history rows cannot be filtered.
      const params = ctx.searchParamsIfAny;
      for (const name of params?.keys() ?? []) {
        if (REFUSED_PARAMETERS.includes(name) || /^filter\[/.test(name)) {
          throw new ApiError('INVALID_QUERY', `${name.slice(0, 40)} is not supported on history reads: a record's history cannot be filtered or sorted; use page and limit`);
        }
      }
      ctx.query = parseListQuery(model, params);
    }),
    db: straight(async (ctx) => {
      const id = pathId(ctx, model);
      const options = { signal: ctx.cancel, scope: ctx.scopeIfAny };
      // The existence-in-scope check counts soft-deleted rows; a store without it falls back to a scoped read.
      try {
        const visible =
          typeof store.existsInScope === 'function' ? await store.existsInScope(ctx.db, id, options) : (await store.findById(ctx.db, id, options)) !== null;
        if (!visible) throw notFound(model, id);
        ctx.result = await history.page(ctx.db, id, ctx.query!.page, ctx.query!.limit, options);
      } catch (error) {
        throw mapDbError(error, ctx.db.dialect, ctx.op);
      }
    }),
    response: straight((ctx) => {
      const { entries, total } = ctx.result as { entries: HistoryEntry[]; total: number };
      const { page, limit } = ctx.query!;
      ctx.respond(200, { data: entries, meta: { total, page, limit, pages: Math.ceil(total / limit) } });
    }),
  };
}
