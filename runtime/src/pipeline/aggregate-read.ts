import type { IncomingMessage } from 'node:http';
import { type AggregatePlan, planAggregate, readAggregateParameter } from '../aggregate/spec.js';
import { type AggregateRows, runAggregate } from '../aggregate/sql.js';
import { ApiError } from '../errors/api-error.js';
import { type WithSerialisedBody, serialisedBody } from '../http/etag.js';
import { localizeQuery } from '../locale/query.js';
import type { RequestLocale } from '../locale/request.js';
import { parseFilters, refuseNul } from '../query/parse.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { ModelStore } from '../store/model-store.js';
import type { Context, JsonResponse } from './context.js';
import { type StepDefaults, straight } from './pipeline.js';

/** List parameters that mean nothing here, and what to use instead. */
const REFUSED_PARAMETERS: Record<string, string> = {
  sort: 'order_by inside aggregate',
  page: 'limit inside aggregate',
  limit: 'limit inside aggregate',
  cursor: 'limit inside aggregate',
  include: 'group_by inside aggregate',
  select: 'select inside aggregate',
  q: 'where inside aggregate',
};

/** Whether a request carries a body (a length above zero, or a chunked one). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length.trim() !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

const plans = new WeakMap<Context, AggregatePlan>();

/**
 * The default steps of `GET /<table>/aggregate` (op `list`, so list hooks,
 * tenancy and force filters apply): Deserialize parses the `aggregate`
 * parameter and the request's `filter` / `filter[N]`; DB runs one
 * statement in the caller's scope; Response answers `{data: [rows]}`.
 */
export function aggregateDefaults(
  model: ModelMeta,
  store: ModelStore,
  none: StepDefaults,
  run: <T>(ctx: Context, work: () => Promise<T>) => Promise<T>,
  localeOf: (ctx: Context) => RequestLocale | null,
): StepDefaults {
  return {
    ...none,
    deserialize: straight((ctx) => {
      if (hasBody(ctx.req)) {
        throw new ApiError('INVALID_AGGREGATE', 'the aggregate route reads no request body; send the spec as the url-encoded JSON query parameter aggregate');
      }
      const params = ctx.searchParamsIfAny;
      const spec = readAggregateParameter(params);
      for (const name of params!.keys()) {
        const instead = REFUSED_PARAMETERS[name];
        if (instead) throw new ApiError('INVALID_QUERY', `${name} is not a parameter of the aggregate route; use ${instead}`);
      }
      refuseNul(params!);
      const plan = planAggregate(model, spec, { exposedOnly: true });
      plans.set(ctx, plan);
      // The list's view of the request, for list hooks that read it.
      ctx.query = { filters: parseFilters(model, params!), sorts: [], page: 1, limit: plan.limit, include: [], select: null, q: null, cursor: null, locale: null };
      // Filters on localized fields read the keys the list's would (the request's locale, or the one named).
      const locale = localeOf(ctx);
      if (locale) localizeQuery(model, ctx.query, locale);
    }),
    db: straight(async (ctx) => {
      const plan = plans.get(ctx)!;
      const input = { plan, filters: ctx.query!.filters, scope: ctx.scopeIfAny };
      ctx.result = await run(ctx, () => runAggregate(ctx.db, store.dialect, model, input, { signal: ctx.cancel }));
    }),
    response: straight((ctx) => {
      const { rows, exactText } = ctx.result as AggregateRows;
      const response: JsonResponse & WithSerialisedBody = { status: 200, body: { data: rows } };
      // Integers beyond 2^53 are written with every digit (the body itself holds their nearest doubles).
      if (exactText !== null) response[serialisedBody] = { body: response.body, text: exactText };
      ctx.response = response;
    }),
  };
}
