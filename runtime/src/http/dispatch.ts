import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Adapter } from '../db/adapter.js';
import { ABORT_CLIENT_CLOSED, ABORT_TIMEOUT } from '../db/errors.js';
import { ApiError } from '../errors/api-error.js';
import { CLIENT_CLOSED_STATUS } from '../errors/catalogue.js';
import { type AccessLog, accessLog } from '../log/access.js';
import type { Logger } from '../log/logger.js';
import { Context, type ContextRoute, runCallback } from '../pipeline/context.js';
import type { Chain } from '../pipeline/pipeline.js';
import type { Op } from '../pipeline/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { type DeadlineEntry, Deadlines } from './deadlines.js';
import { type Inflight, requestEnded } from './inflight.js';
import { presetIdentityOf } from './in-process.js';
import { readsPrimaryFromStart } from './read-primary.js';
import { releaseSource } from './stream.js';
import { remoteAddressOf, requestIdOf, sendContext, sendError, traceIdOf } from './respond.js';
import type { RouteHandler, RouteParams } from './route-table.js';

export interface DispatchDeps {
  /** The database a route's requests start on: its model's adapter (`adapter:NAME`), the default one for routes without a model. Asked once per route, at mount. */
  adapter: (model: ModelMeta | null) => Adapter;
  log: Logger;
  panicLog: Logger;
  queryTimeoutMs: number;
  trustProxyHeaders: boolean;
  /** Honour `X-Read-Primary: 1` (the readPrimaryHeader setting). */
  readPrimaryHeader: boolean;
  serviceName?: string;
  /** Requests being served, for graceful shutdown. */
  inflight: Inflight;
}
// DispatchDeps is also the ResponseDefaults every response of a route is written with (its serviceName).

/** Decodes percent-escapes of the match's own parameters, in place; a malformed escape is kept as sent. */
function decodeParams(params: RouteParams): RouteParams {
  for (const key in params) {
    const raw = params[key];
    if (!raw.includes('%')) continue;
    try {
      params[key] = decodeURIComponent(raw);
    } catch {
      // Kept raw: the id then names no row.
    }
  }
  return params;
}

/** A generated route as dispatch serves it: built once at mount, shared by its requests. */
interface ServedRoute extends ContextRoute {
  readonly chain: Chain;
  readonly adapter: Adapter;
  readonly access: AccessLog;
  /** The deadlines of the app's requests (one queue for all its routes), null without a queryTimeout. */
  readonly deadlines: Deadlines<Exchange> | null;
}

/** One deadline queue per app (its DispatchDeps), made when its first route is mounted. */
const deadlineQueues = new WeakMap<DispatchDeps, Deadlines<Exchange>>();

function deadlinesOf(deps: DispatchDeps): Deadlines<Exchange> | null {
  if (deps.queryTimeoutMs <= 0) return null;
  let queue = deadlineQueues.get(deps);
  if (!queue) deadlineQueues.set(deps, (queue = new Deadlines(deps.queryTimeoutMs, deadlinePassed)));
  return queue;
}

/**
 * The handler of one route: the route's constants are bound here, once, so a
 * request allocates only what is its own.
 *
 * @example
 * table.add('GET', '/api/posts/:id', routeHandler(deps, post, 'read', chain));
 */
export function routeHandler(deps: DispatchDeps, model: ModelMeta | null, op: Op, chain: Chain): RouteHandler {
  const route: ServedRoute = { model, op, log: deps.log, chain, adapter: deps.adapter(model), access: accessLog(deps.log, model?.name, op), deadlines: deadlinesOf(deps) };
  return (req, res, params, path, search) => dispatch(deps, route, req, res, params, path, search);
}

/**
 * One request while it is served: the status it ended with so far, for the
 * deadline and the client leaving, which can answer or end it first.
 */
class Exchange implements DeadlineEntry {
  /** 0 while nothing has been answered. */
  status = 0;
  // Its place in the deadline queue.
  due = 0;
  newer: Exchange | null = null;
  older: Exchange | null = null;

  constructor(
    readonly deps: DispatchDeps,
    readonly ctx: Context,
    readonly route: ServedRoute,
    /** The path without its query, for the access line. */
    readonly path: string,
    /** `performance.now()` when the request started. */
    readonly started: number,
  ) {}

  /** The response's close listener while the request waits (see watch): before it finished, the client left (499) and the work is cancelled. */
  clientClosed: (() => void) | null = null;

  /**
   * From here on the request waits for something: its deadline runs, and a
   * client that leaves cancels it. Neither can happen while a request runs
   * synchronously (both come from the event loop), so a request answered in
   * the call that started it never pays for them.
   */
  watch(): void {
    this.route.deadlines?.add(this, this.started);
    const res = this.ctx.res;
    // A local first: V8 allocates a function literal assigned straight to a property in the old
    // generation (taking it for a long-lived method), and this one would then keep the whole
    // request (its rows, records and body) alive until the next full GC.
    const clientClosed = () => {
      if (!res.writableFinished) {
        this.ctx.abort(ABORT_CLIENT_CLOSED);
        this.status = CLIENT_CLOSED_STATUS;
      }
    };
    this.clientClosed = clientClosed;
    // `on`, not `once`: close is emitted once anyway, and once would wrap the listener.
    res.on('close', clientClosed);
  }
}

/** The request deadline passed (called by the app's deadline queue). */
function deadlinePassed(exchange: Exchange): void {
  const { ctx, deps } = exchange;
  // The deadline runs to the first byte: a stream already under way is bounded by its client.
  if (ctx.res.headersSent) return;
  // A 504 must never hide a write that commits. Work that may commit (a COMMIT, a write outside
  // a transaction) is waited for; once a write is durable, the request answers its own outcome.
  if (ctx.cancel.committing) return ctx.cancel.whenSettled(() => deadlinePassed(exchange));
  if (ctx.cancel.committed) {
    deps.log.warn({ requestId: ctx.requestId, queryTimeoutMs: deps.queryTimeoutMs }, 'deadline passed after a write committed; answering its outcome');
    return;
  }
  ctx.abort(ABORT_TIMEOUT);
  exchange.status = 504;
  sendError(ctx, new ApiError('TIMEOUT', `the request did not finish within ${deps.queryTimeoutMs} ms`), deps);
}

/**
 * Serves one request of a generated route: builds the context, runs the
 * chain, writes what it produced, and logs one line. A deadline answers 504
 * at once and cancels the work; a client that leaves is logged as 499.
 * A chain that finishes synchronously (a SQLite read without user hooks) is
 * answered in the same call, without a promise; otherwise the rest follows
 * the chain's promise (see served).
 */
function dispatch(deps: DispatchDeps, route: ServedRoute, req: IncomingMessage, res: ServerResponse, params: RouteParams, path: string, search: string): void {
  const started = performance.now();
  deps.inflight.count++;
  const requestId = (req as { requestId?: string }).requestId ?? requestIdOf(req);
  const ctx = new Context(route, req, res, decodeParams(params), requestId, traceIdOf(req, requestId), route.adapter, search);
  ctx.remoteAddress = remoteAddressOf(req, deps.trustProxyHeaders);
  ctx.identity = presetIdentityOf(req);
  if (readsPrimaryFromStart(req, deps.readPrimaryHeader)) ctx.cancel.pinPrimary();

  const exchange = new Exchange(deps, ctx, route, path, started);

  let chained: Promise<void> | void;
  try {
    chained = route.chain(ctx);
  } catch (thrown) {
    failed(exchange, thrown);
    return ended(exchange);
  }
  if (chained) void served(exchange, chained);
  else respond(exchange);
}

/** The rest of a request whose chain went asynchronous, once it has settled. */
async function served(exchange: Exchange, chained: Promise<void>): Promise<void> {
  exchange.watch();
  try {
    await chained;
  } catch (thrown) {
    failed(exchange, thrown);
    return ended(exchange);
  }
  respond(exchange);
}

/**
 * Writes what the chain produced, unless something already answered (a
 * deadline, a client that left), then ends the request; a streamed
 * response ends it once the stream has.
 */
function respond(exchange: Exchange): void {
  let sent: number | Promise<number>;
  try {
    if (exchange.status !== 0) return ended(exchange);
    sent = sendContext(exchange.ctx, exchange.deps);
  } catch (thrown) {
    failed(exchange, thrown);
    return ended(exchange);
  }
  if (typeof sent !== 'number') return void streamed(exchange, sent);
  if (exchange.status === 0) exchange.status = sent;
  ended(exchange);
}

/** A streamed response: the request ends when the stream has. */
async function streamed(exchange: Exchange, sent: Promise<number>): Promise<void> {
  if (!exchange.clientClosed) exchange.watch();
  try {
    const written = await sent;
    // A 504 before its first byte or a client that left wins.
    if (exchange.status === 0) exchange.status = written;
  } catch (thrown) {
    failed(exchange, thrown);
  }
  ended(exchange);
}

/** What the chain (or writing its response) threw: answered unless something already was, and logged when it is a failure. */
function failed(exchange: Exchange, thrown: unknown): void {
  const { ctx, deps } = exchange;
  const error = thrown instanceof ApiError ? thrown : panic(thrown, ctx, deps.panicLog);
  if (exchange.status === 0) {
    if (ctx.cancel.aborted && ctx.cancel.reason === ABORT_CLIENT_CLOSED) exchange.status = CLIENT_CLOSED_STATUS;
    else {
      sendError(ctx, error, deps);
      exchange.status = error.status;
    }
  }
  // A deadline and a busy refusal (EXPORT_BUSY) are answers, not failures.
  if (error.status >= 500 && error.code !== 'TIMEOUT' && error.code !== 'EXPORT_BUSY' && exchange.status !== CLIENT_CLOSED_STATUS) {
    deps.log.error({ requestId: ctx.requestId, code: error.code }, 'request failed');
  }
}

/** The end of every request, answered or not: out of the deadline queue, its access line, cleanup, one in flight fewer. */
function ended(exchange: Exchange): void {
  const { ctx, deps, route } = exchange;
  const status = exchange.status;
  // A stream response that was never written (an error, a 504) still holds its source.
  if (ctx.response?.kind === 'stream') releaseSource(ctx.response.source);
  if (exchange.clientClosed) {
    route.deadlines?.remove(exchange);
    // A stream has ended here, cut by its own failure if not finished: that close is not the client's.
    if (ctx.res.writableFinished || status === CLIENT_CLOSED_STATUS || ctx.response?.kind === 'stream') ctx.res.off('close', exchange.clientClosed);
  }
  route.access({
    requestId: ctx.requestId,
    traceId: ctx.traceId,
    method: ctx.req.method,
    path: exchange.path,
    status,
    durationMs: Math.round((performance.now() - exchange.started) * 100) / 100,
    remoteAddress: ctx.remoteAddress,
  });
  if (ctx.afterResponseCallbacks) void runAfterResponse(ctx).then(() => requestEnded(deps.inflight));
  else requestEnded(deps.inflight);
}

/** Per-request cleanup (multipart temporary files, ...), in order; a failure is logged and the rest still run. */
async function runAfterResponse(ctx: Context): Promise<void> {
  for (const callback of ctx.afterResponseCallbacks!.splice(0)) await runCallback(callback, ctx.log, 'after-response callback failed');
}

/** Anything that escaped the chain without being an ApiError: a bug, logged as a panic. */
function panic(thrown: unknown, ctx: Context, panicLog: Logger): ApiError {
  panicLog.error(
    { requestId: ctx.requestId, model: ctx.model?.name, op: ctx.op, err: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown) },
    'panic recovered',
  );
  return new ApiError('PANIC');
}
