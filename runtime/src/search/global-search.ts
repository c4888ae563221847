/**
 * Global search (DESIGN.md, "Aggregates, expressions, export, search"):
 * `GET {prefix}/search?q=&limit=&models=` ranks the live rows of every model
 * with the `global_search` directive by the full-text index `q` uses, under
 * each model's list Auth-step hooks and scope hooks (tenancy, force
 * filters), and merges them fairly into one list `{data:[{model, id,
 * snippet, score}]}`. Mounted only when a model opted in; otherwise the path
 * answers 404 like any unknown one.
 */
import type { Adapter } from '../db/adapter.js';
import { ApiError } from '../errors/api-error.js';
import { mapDbError } from '../db/errors.js';
import { hookMeta, type RegisteredHook } from '../pipeline/hook-meta.js';
import { Context } from '../pipeline/context.js';
import { type Chain, type Pipeline, type StepDefaults, straight, type TraceConfig } from '../pipeline/pipeline.js';
import type { Logger } from '../log/logger.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import { notDeleted } from '../sql/templates.js';
import { searchWords } from '../store/list-sql.js';
import { scopeFor, writeScope } from '../store/scope.js';
import type { OperationSecurity, StandaloneRoute } from '../security/describe.js';

/** `limit` when none is given, and the most one search returns (larger values are clamped). */
export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;

/** The path of the route below the prefix. */
export const SEARCH_PATH = '/search';

/** One hit as the response lists it. */
export interface SearchHit {
  model: string;
  id: string;
  snippet: string;
  /** Relevance in (0, 1), higher is better: rank / (1 + rank), rank being -bm25 (SQLite) or ts_rank (PostgreSQL). */
  score: number;
}

/** The models in the global search: mounted, opted in with `global_search`, in registry order. */
export function searchModels(models: readonly ModelMeta[]): ModelMeta[] {
  return models.filter((m) => m.mounted && m.options.globalSearch === true && m.fieldsWith('searchable').length > 0);
}

const ALLOWED = Symbol('mfx.searchAllowed');

/**
 * The chain that decides whether a caller may search one model: the Auth
 * hooks of the model's list operation, then its DB-step scope hooks
 * (tenancy, force filters), then a mark that it got through. No other DB
 * hook (a transaction, a rate limit) runs.
 */
export function allowanceChain(pipeline: Pipeline, model: ModelMeta, trace: TraceConfig | undefined, log: Logger): Chain {
  const notScope = new Set(pipeline.registered().filter((e) => e.step === 'db' && hookMeta(e.hook)?.role !== 'scope').map((e) => e.hook));
  const defaults: StepDefaults = {
    auth: null,
    deserialize: null,
    validate: null,
    service: null,
    db: straight((ctx) => {
      ctx.result = ALLOWED;
    }),
    response: null,
  };
  return pipeline.build(model.name, 'list', defaults, trace, log, ['auth', 'db'], (hook) => notScope.has(hook));
}

interface Searched {
  model: ModelMeta;
  allowance: Chain;
  /** The database the model is served from (its `adapter:NAME`): each model is searched on its own. */
  adapter: Adapter;
}

/** The parameters of one search, checked. */
interface SearchRequest {
  words: string[];
  limit: number;
  models: Searched[];
}

function parseRequest(params: URLSearchParams, searched: readonly Searched[]): SearchRequest {
  const q = params.get('q');
  if (q === null || q.trim() === '') throw new ApiError('INVALID_QUERY', 'q is required: the words to search for, e.g. ?q=budget');
  let limit = SEARCH_DEFAULT_LIMIT;
  const rawLimit = params.get('limit');
  if (rawLimit !== null) {
    if (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1) throw new ApiError('INVALID_QUERY', `limit must be a whole number of at least 1, got "${rawLimit.slice(0, 40)}"`);
    limit = Math.min(Number(rawLimit), SEARCH_MAX_LIMIT);
  }
  let models = [...searched];
  const rawModels = params.get('models');
  if (rawModels !== null) {
    const names = rawModels.split(',').map((n) => n.trim()).filter(Boolean);
    if (names.length === 0) throw new ApiError('INVALID_QUERY', `models must name at least one model; searchable models: ${searched.map((s) => s.model.name).join(', ')}`);
    for (const name of names) {
      if (!searched.some((s) => s.model.name === name)) {
        throw new ApiError('INVALID_QUERY', `models names "${name.slice(0, 60)}", which is not a model in the global search; searchable models: ${searched.map((s) => s.model.name).join(', ')}`);
      }
    }
    models = searched.filter((s) => names.includes(s.model.name));
  }
  return { words: searchWords(q), limit, models };
}

/**
 * Merges each model's ranked hits fairly: every model first gets an equal
 * share of `limit` (what a model cannot fill goes to the others, best score
 * first), then the chosen hits are ordered by score, ties by model and id.
 */
export function mergeFairly(perModel: readonly SearchHit[][], limit: number): SearchHit[] {
  const lists = perModel.filter((hits) => hits.length > 0);
  if (lists.length === 0) return [];
  const share = Math.ceil(limit / lists.length);
  const chosen: SearchHit[] = [];
  const rest: SearchHit[] = [];
  for (const hits of lists) {
    chosen.push(...hits.slice(0, share));
    rest.push(...hits.slice(share));
  }
  const byScore = (a: SearchHit, b: SearchHit) => b.score - a.score || (a.model < b.model ? -1 : a.model > b.model ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  if (chosen.length > limit) {
    // More models than the limit has room for: the best first hits win.
    chosen.sort(byScore);
    chosen.length = limit;
  } else {
    rest.sort(byScore);
    chosen.push(...rest.slice(0, limit - chosen.length));
  }
  return chosen.sort(byScore);
}

/** Relevance on one scale for both backends: higher is better, in (0, 1). */
const scoreOf = (rank: number) => (rank > 0 ? rank / (1 + rank) : 0);

/**
 * The chain of the search route: parameters checked, each model's allowance
 * run (a model the caller may not list contributes nothing), each allowed
 * model searched, the hits merged.
 */
export function searchChain(searched: readonly Searched[]): Chain {
  return async (ctx) => {
    const request = parseRequest(ctx.searchParams, searched);
    if (request.words.length === 0) {
      ctx.respond(200, { data: [] });
      return;
    }
    const perModel: SearchHit[][] = [];
    for (const { model, allowance, adapter } of request.models) {
      const scope = await allowedScope(ctx, model, allowance, adapter);
      if (scope === null) continue;
      perModel.push(await searchModel(ctx, model, adapter, scope, request));
    }
    ctx.respond(200, { data: mergeFairly(perModel, request.limit) });
  };
}

/** Runs a model's allowance on a context of its own; its scope, or null when the caller may not list the model. */
async function allowedScope(ctx: Context, model: ModelMeta, allowance: Chain, adapter: Adapter) {
  const sub = new Context({ model, op: 'list', log: ctx.log }, ctx.req, ctx.res, {}, ctx.requestId, ctx.traceId, adapter, ctx.searchParams.toString());
  sub.remoteAddress = ctx.remoteAddress;
  try {
    await allowance(sub);
  } catch (error) {
    // A refusal (401, 403, ...) leaves the model out; anything else fails the search.
    if (error instanceof ApiError && error.status < 500) return null;
    throw error;
  }
  if (sub.result !== ALLOWED || sub.response) return null;
  return sub.scopeIfAny;
}

async function searchModel(ctx: Context, model: ModelMeta, adapter: Adapter, scope: Context['scopeIfAny'], request: SearchRequest): Promise<SearchHit[]> {
  const dialect = adapter.dialect;
  const sql = new SqlBuilder(dialect);
  const alias = 't';
  dialect.searchRanked(sql, {
    table: model.table,
    alias,
    columns: model.fieldsWith('searchable').map((f) => f.column),
    words: request.words,
    limit: request.limit,
    where: (s) => {
      const live = notDeleted(model.manifest, dialect, alias);
      if (live) s.text(` AND ${live}`);
      writeScope(s, model, scopeFor(model, scope, true), alias);
    },
  });
  try {
    // The search's own transaction, when a hook opened one, is on the default adapter: it serves the models there.
    const db = adapter === ctx.adapter ? ctx.db : adapter;
    const rows = await db.all(sql.sql, sql.params, { signal: ctx.cancel });
    return rows.map((row) => ({ model: model.name, id: String(row.id), snippet: String(row.snippet ?? ''), score: scoreOf(Number(row.rank)) }));
  } catch (error) {
    throw mapDbError(error, dialect, 'list');
  }
}

/**
 * The search route as production validation sees it: its access flag
 * follows the list operations of the searched models, each of which must be
 * covered (an authenticator, a public declaration, or blocked): all
 * authenticated (or blocked) is `authenticated`, otherwise `public`; one
 * uncovered leaves the flag out, so the route is listed.
 */
export function searchStandaloneRoute(models: readonly ModelMeta[], operations: readonly OperationSecurity[], pathPrefix: string): StandaloneRoute {
  const names = new Set(models.map((m) => m.name));
  const lists = operations.filter((o) => o.op === 'list' && names.has(o.model));
  const route: StandaloneRoute = { kind: 'search', method: 'GET', path: `${pathPrefix}${SEARCH_PATH}` };
  if (lists.some((o) => !o.blocked && !o.publicDeclared && o.security.length === 0)) return route;
  return { ...route, access: lists.every((o) => o.blocked || o.security.length > 0) ? 'authenticated' : 'public' };
}

/** Hooks matched by the search route's allowances, for its OpenAPI security. */
export function searchHooks(entries: readonly RegisteredHook[], models: readonly ModelMeta[]): RegisteredHook[] {
  return entries.filter((e) => e.step === 'auth' && models.some((m) => e.matches(m.name, 'list')));
}
