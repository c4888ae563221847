import type { IncomingMessage, ServerResponse } from 'node:http';
import polka from 'polka';
import sirv from 'sirv';
import { ApiError } from '../errors/api-error.js';
import type { ResolvedConfig } from '../config/config.js';
import type { Chain } from '../pipeline/pipeline.js';
import type { Op } from '../pipeline/types.js';
import type { HttpMiddleware, ProbeOptions, ProbesConfig } from '../probes/probes.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { modelRoutes, type RouteRow } from '../registry/model-routes.js';
import { MAX_URI_BYTES, uriTooLong } from './head-limits.js';
import { countedInflight, type Inflight } from './inflight.js';
import { lingerAfterAnswer } from './linger.js';
import { identityHeadersOf, requestIdOf, writeJson } from './respond.js';
import { type RouteHandler, RouteTable } from './route-table.js';

type Request = IncomingMessage & { params?: Record<string, string>; path?: string; originalUrl?: string; search?: string | null };
type Handler = (req: Request, res: ServerResponse) => void;

export interface RouteServer {
  /** The chain of one route of a model (GET and its HEAD mirror share it), composed at seal. */
  chain(model: ModelMeta, route: RouteRow): Chain;
  serve(req: Request, res: ServerResponse, model: ModelMeta | null, op: Op, chain: Chain): void;
}

export interface ProbeHandlers {
  live: Handler;
  ready: Handler;
  health: Handler;
}

function errorResponse(req: Request, res: ServerResponse, error: ApiError, serviceName: string | undefined, headers: Record<string, string> = {}): void {
  writeJson(res, error.status, error.toJSON(), { ...identityHeaders(req, serviceName), ...headers, ...(error.headers ?? {}) });
}

/** X-Request-Id (and X-Service-Name) for responses written outside the pipeline. */
export function identityHeaders(req: IncomingMessage, serviceName: string | undefined): Record<string, string> {
  return identityHeadersOf((req as Request & { requestId?: string }).requestId ?? requestIdOf(req), serviceName);
}


/** Runs connect-style middleware in order, then `last`. */
function chainMiddleware(middleware: readonly HttpMiddleware[], last: Handler, serviceName: string | undefined): Handler {
  if (middleware.length === 0) return last;
  return (req, res) => {
    let i = 0;
    const next = (error?: unknown) => {
      if (error) return errorResponse(req, res, new ApiError('INTERNAL'), serviceName);
      const mw = middleware[i++];
      if (mw) mw(req, res, next);
      else last(req, res);
    };
    next();
  };
}

/**
 * The polka application: request guard, router-level middleware, static
 * files, probes, then each model's route table. Built once when the server
 * seals; nothing is looked up by scanning models per request.
 */
export function buildRouter(
  config: ResolvedConfig,
  models: readonly ModelMeta[],
  routes: RouteServer,
  probes: ProbeHandlers,
  inflight: Inflight,
  mountMore?: (table: RouteTable) => void,
) {
  const prefix = config.pathPrefix;
  const serviceName = config.serviceName;
  const app = polka({
    onNoMatch: (req: Request, res: ServerResponse) =>
      errorResponse(req, res, new ApiError('NOT_FOUND', `no route for ${req.method} ${(req.url ?? '').split('?')[0].slice(0, 200)}`), serviceName),
    onError: (_error: unknown, req: Request, res: ServerResponse) => errorResponse(req, res, new ApiError('INTERNAL'), serviceName),
  });

  // Every response carries X-Request-Id (and X-Service-Name), also those answered before routing.
  const guard = (req: Request, res: ServerResponse, next: () => void) => {
    (req as Request & { requestId?: string }).requestId = requestIdOf(req);
    if (inflight.draining) {
      // Pipelined behind an answer that closes the connection: its own answer could never be sent, so it is not served.
      if (!res.socket) return;
      res.setHeader('Connection', 'close');
    } else if (req.headers.upgrade !== undefined) {
      // Upgrades are ignored (served as plain HTTP/1.1), but Node's parser reads nothing more on that connection.
      res.setHeader('Connection', 'close');
    }
    if (req.headers.host === undefined && req.httpVersionMinor === 1 && req.httpVersionMajor === 1) {
      lingerAfterAnswer(req);
      return errorResponse(req, res, new ApiError('BAD_REQUEST', 'an HTTP/1.1 request needs a Host header; send Host: <the server name>'), serviceName, { Connection: 'close' });
    }
    if (Buffer.byteLength(req.url ?? '') > MAX_URI_BYTES) return errorResponse(req, res, uriTooLong(), serviceName);
    next();
  };
  app.use(guard);
  for (const middleware of config.httpMiddlewares) app.use(middleware);
  if (config.staticDir) {
    const files = sirv(config.staticDir, { dev: false, etag: true });
    app.use((req: Request, res: ServerResponse, next: () => void) => {
      const path = req.path ?? '';
      if (prefix && (path === prefix || path.startsWith(`${prefix}/`))) return next();
      files(req, res, next);
    });
  }

  const table = new RouteTable();
  mountProbes(table, prefix, config.probes, probes, serviceName, inflight);
  for (const model of models) {
    if (model.mounted) mountModel(table, prefix, model, routes);
  }
  // Custom actions come after the generated routes, so a collision is found and refused.
  mountMore?.(table);

  // Generated routes come last, after router-level middleware, from the precomputed table.
  const route = (req: Request, res: ServerResponse, next: () => void) => {
    const match = table.match(req.method ?? 'GET', req.path ?? '/');
    if (match.kind === 'none') return next();
    if (match.kind === 'method-not-allowed') {
      return errorResponse(req, res, new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; allowed: ${match.allow.join(', ') || 'none'}`), serviceName, {
        Allow: match.allow.join(', '),
      });
    }
    req.params = match.params;
    match.handler(req, res);
  };
  app.use(route);
  if (config.httpMiddlewares.length > 0 || config.staticDir) return { handler: app.handler };

  // Without router-level middleware there is nothing for polka's chain to run between the guard
  // and the table: requests go straight there, with the request fields polka would have set
  // (except the parsed `req.query`; hooks read the query through ctx.searchParams).
  const noMatch = (req: Request, res: ServerResponse) => () =>
    errorResponse(req, res, new ApiError('NOT_FOUND', `no route for ${req.method} ${(req.url ?? '').split('?')[0].slice(0, 200)}`), serviceName);
  const handler = (req: Request, res: ServerResponse) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?', 1);
    req.originalUrl = url;
    req.path = query === -1 ? url : url.slice(0, query);
    req.search = query === -1 ? null : url.slice(query);
    try {
      guard(req, res, () => route(req, res, noMatch(req, res)));
    } catch {
      errorResponse(req, res, new ApiError('INTERNAL'), serviceName);
    }
  };
  return { handler };
}

/** Mounts the served rows of the model's route table, and 405 on the paths it closes. */
function mountModel(table: RouteTable, prefix: string, model: ModelMeta, routes: RouteServer): void {
  const { rows, closed } = modelRoutes(model);
  for (const row of rows) {
    if (!row.served) continue;
    const chain = routes.chain(model, row);
    const handler: RouteHandler = (req, res) => routes.serve(req, res, model, row.op, chain);
    table.add(row.method, `${prefix}${row.pattern}`, handler);
  }
  for (const path of closed) {
    table.add('*', `${prefix}${path.pattern}`, (req, res) =>
      errorResponse(req, res, new ApiError('METHOD_NOT_ALLOWED', `${model.table} is a singleton: use ${path.instead} on ${prefix}${path.at}`), undefined, { Allow: '' }),
    );
  }
}

function mountProbes(table: RouteTable, prefix: string, config: ProbesConfig, probes: ProbeHandlers, serviceName: string | undefined, inflight: Inflight): void {
  const shared = config.middleware ?? [];
  const mount = (name: 'live' | 'ready' | 'health', options: ProbeOptions | undefined) => {
    if (options?.disabled) return;
    const handler = countedInflight(inflight, chainMiddleware([...shared, ...(options?.middleware ?? [])], probes[name], serviceName));
    table.add('GET', `${prefix}/${name}`, handler);
    table.add('HEAD', `${prefix}/${name}`, handler);
  };
  mount('live', config.live);
  mount('ready', config.ready);
  mount('health', config.health);
}
