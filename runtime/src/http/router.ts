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

type Request = IncomingMessage & { path?: string; search?: string | null; requestId?: string };
type Handler = (req: Request, res: ServerResponse) => void;

export interface RouteServer {
  /** The chain of one route of a model (GET and its HEAD mirror share it), composed at seal. */
  chain(model: ModelMeta, route: RouteRow): Chain;
  /** The handler serving one route, built once when the route is mounted. */
  handler(model: ModelMeta, op: Op, chain: Chain): RouteHandler;
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
    onNoMatch: (req: Request, res: ServerResponse) => notFound(req, res, pathOf(req.url ?? '')),
    onError: (_error: unknown, req: Request, res: ServerResponse) => errorResponse(req, res, new ApiError('INTERNAL'), serviceName),
  });

  // Every response carries X-Request-Id (and X-Service-Name), also those answered before routing.
  // The request id is kept on the request: answers written outside dispatch (CORS, client errors) reuse it.
  /** The request guard: false when it answered the request itself. */
  const admit = (req: Request, res: ServerResponse): boolean => {
    req.requestId = requestIdOf(req);
    if (inflight.draining) {
      // Pipelined behind an answer that closes the connection: its own answer could never be sent, so it is not served.
      if (!res.socket) return false;
      res.setHeader('Connection', 'close');
    } else if (req.headers.upgrade !== undefined) {
      // Upgrades are ignored (served as plain HTTP/1.1), but Node's parser reads nothing more on that connection.
      res.setHeader('Connection', 'close');
    }
    if (req.headers.host === undefined && req.httpVersionMinor === 1 && req.httpVersionMajor === 1) {
      lingerAfterAnswer(req);
      errorResponse(req, res, new ApiError('BAD_REQUEST', 'an HTTP/1.1 request needs a Host header; send Host: <the server name>'), serviceName, { Connection: 'close' });
      return false;
    }
    // A character is at most three bytes of UTF-8 (a surrogate pair, two characters, four): only a long URL is measured.
    const url = req.url ?? '';
    if (url.length * 3 > MAX_URI_BYTES && Buffer.byteLength(url) > MAX_URI_BYTES) {
      errorResponse(req, res, uriTooLong(), serviceName);
      return false;
    }
    return true;
  };
  const notFound = (req: Request, res: ServerResponse, path: string) =>
    errorResponse(req, res, new ApiError('NOT_FOUND', `no route for ${req.method} ${path.slice(0, 200)}`), serviceName);
  app.use((req: Request, res: ServerResponse, next: () => void) => {
    if (admit(req, res)) next();
  });
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
  /** Serves the request from the table; false when no route has its path. */
  const route = (req: Request, res: ServerResponse, path: string, search: string): boolean => {
    const match = table.match(req.method ?? 'GET', path);
    if (match.kind === 'none') return false;
    if (match.kind === 'method-not-allowed') {
      errorResponse(req, res, new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; allowed: ${match.allow.join(', ') || 'none'}`), serviceName, {
        Allow: match.allow.join(', '),
      });
    } else {
      match.handler(req, res, match.params, path, search);
    }
    return true;
  };
  app.use((req: Request, res: ServerResponse, next: () => void) => {
    const search = req.search ?? '';
    if (!route(req, res, req.path ?? '/', search.startsWith('?') ? search.slice(1) : search)) next();
  });
  if (config.httpMiddlewares.length > 0 || config.staticDir) return { handler: app.handler };

  // Without router-level middleware there is nothing for polka's chain to run between the guard
  // and the table: requests go straight there. The URL is split here, once; the path and the query
  // are handed to the route (hooks read the query through ctx.searchParams; nothing is added to req).
  const handler = (req: Request, res: ServerResponse) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    try {
      if (admit(req, res) && !route(req, res, path, query === -1 ? '' : url.slice(query + 1))) notFound(req, res, path);
    } catch {
      errorResponse(req, res, new ApiError('INTERNAL'), serviceName);
    }
  };
  return { handler };
}

/** The path of a request target, without its query. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Mounts the served rows of the model's route table, and 405 on the paths it closes. */
function mountModel(table: RouteTable, prefix: string, model: ModelMeta, routes: RouteServer): void {
  const { rows, closed } = modelRoutes(model);
  for (const row of rows) {
    if (!row.served) continue;
    table.add(row.method, `${prefix}${row.pattern}`, routes.handler(model, row.op, routes.chain(model, row)));
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
