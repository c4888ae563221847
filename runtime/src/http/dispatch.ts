import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Adapter } from '../db/adapter.js';
import { ABORT_CLIENT_CLOSED, ABORT_TIMEOUT } from '../db/errors.js';
import { ApiError } from '../errors/api-error.js';
import { CLIENT_CLOSED_STATUS } from '../errors/catalogue.js';
import type { Logger } from '../log/logger.js';
import { Context, runCallback } from '../pipeline/context.js';
import type { Chain } from '../pipeline/pipeline.js';
import type { Op } from '../pipeline/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { type Inflight, requestEnded } from './inflight.js';
import { readsPrimaryFromStart } from './read-primary.js';
import { releaseSource } from './stream.js';
import { remoteAddressOf, requestIdOf, sendContext, sendError, traceIdOf } from './respond.js';

export interface DispatchDeps {
  adapter: () => Adapter;
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

/** Search part of the URL (after `?`), without parsing it yet. */
function searchOf(url: string | undefined): string {
  const i = url?.indexOf('?') ?? -1;
  return i === -1 ? '' : url!.slice(i + 1);
}

function decodeParams(params: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in params) {
    const raw = params[key];
    if (!raw.includes('%')) {
      out[key] = raw;
      continue;
    }
    try {
      out[key] = decodeURIComponent(raw);
    } catch {
      out[key] = raw;
    }
  }
  return out;
}

/**
 * Serves one request of a generated route: builds the context, runs the
 * chain, writes what it produced, and logs one line. A deadline answers 504
 * at once and cancels the work; a client that leaves is logged as 499.
 */
export async function dispatch(
  deps: DispatchDeps,
  req: IncomingMessage & { params?: Record<string, string> },
  res: ServerResponse,
  model: ModelMeta | null,
  op: Op,
  chain: Chain,
): Promise<void> {
  const started = performance.now();
  const inflight = deps.inflight;
  inflight.count++;
  const requestId = (req as { requestId?: string }).requestId ?? requestIdOf(req);
  const ctx = new Context(
    req,
    res,
    model,
    op,
    decodeParams(req.params),
    requestId,
    traceIdOf(req, requestId),
    deps.adapter(),
    deps.log,
    searchOf(req.url),
  );
  ctx.remoteAddress = remoteAddressOf(req, deps.trustProxyHeaders);
  if (readsPrimaryFromStart(req, deps.readPrimaryHeader)) ctx.cancel.pinPrimary();
  const defaults = { serviceName: deps.serviceName };

  let status = 0;
  let timer: NodeJS.Timeout | undefined;
  if (deps.queryTimeoutMs > 0) {
    const deadline = () => {
      // The deadline runs to the first byte: a stream already under way is bounded by its client.
      if (res.headersSent) return;
      // A 504 must never hide a write that commits. Work that may commit (a COMMIT, a write outside
      // a transaction) is waited for; once a write is durable, the request answers its own outcome.
      if (ctx.cancel.committing) return ctx.cancel.whenSettled(deadline);
      if (ctx.cancel.committed) {
        deps.log.warn({ requestId, queryTimeoutMs: deps.queryTimeoutMs }, 'deadline passed after a write committed; answering its outcome');
        return;
      }
      ctx.abort(ABORT_TIMEOUT);
      status = 504;
      sendError(ctx, new ApiError('TIMEOUT', `the request did not finish within ${deps.queryTimeoutMs} ms`), defaults);
    };
    timer = setTimeout(deadline, deps.queryTimeoutMs);
  }
  const onClose = () => {
    if (!res.writableFinished) {
      ctx.abort(ABORT_CLIENT_CLOSED);
      status = CLIENT_CLOSED_STATUS;
    }
  };
  res.once('close', onClose);

  try {
    await chain(ctx);
    if (status === 0) {
      const sent = sendContext(ctx, defaults);
      // A stream resolves when it has ended; a 504 before its first byte or a client that left wins.
      const written = typeof sent === 'number' ? sent : await sent;
      if (status === 0) status = written;
    }
  } catch (thrown) {
    const error = thrown instanceof ApiError ? thrown : panic(thrown, ctx, deps.panicLog);
    if (status === 0) {
      if (ctx.cancel.aborted && ctx.cancel.reason === ABORT_CLIENT_CLOSED) status = CLIENT_CLOSED_STATUS;
      else {
        sendError(ctx, error, defaults);
        status = error.status;
      }
    }
    if (error.status >= 500 && error.code !== 'TIMEOUT' && status !== CLIENT_CLOSED_STATUS) {
      deps.log.error({ requestId, code: error.code }, 'request failed');
    }
  } finally {
    if (timer) clearTimeout(timer);
    // A stream response that was never written (an error, a 504) still holds its source.
    if (ctx.response?.kind === 'stream') releaseSource(ctx.response.source);
    // A stream has ended here, cut by its own failure if not finished: that close is not the client's.
    if (res.writableFinished || status === CLIENT_CLOSED_STATUS || ctx.response?.kind === 'stream') res.off('close', onClose);
    deps.log.info(
      {
        requestId,
        traceId: ctx.traceId,
        method: req.method,
        path: req.url?.split('?')[0],
        status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        model: model?.name,
        op,
        remoteAddress: ctx.remoteAddress,
      },
      'request',
    );
    if (ctx.afterResponseCallbacks) await runAfterResponse(ctx);
    requestEnded(inflight);
  }
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
