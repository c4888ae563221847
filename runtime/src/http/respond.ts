import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors/api-error.js';
import { etagOfText, serialisedTextOf } from './etag.js';
import type { Context, StreamResponse } from '../pipeline/context.js';
import { pipeSource } from './stream.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The client's X-Request-Id when it is a sane token, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * The trace id of a valid W3C traceparent header, else a fresh one: the 32
 * hex digits of a UUIDv4.
 */
export function traceIdOf(req: IncomingMessage, requestId: string): string {
  const header = req.headers.traceparent;
  if (typeof header === 'string') {
    const match = TRACEPARENT.exec(header.trim().toLowerCase());
    // Version ff and all-zero ids are invalid by the W3C rules.
    if (match && match[1] !== 'ff' && !/^0+$/.test(match[2]) && !/^0+$/.test(match[3])) return match[2];
  }
  // A request id we generated is a fresh UUIDv4, random enough to be a trace id; a client's is not.
  const id = req.headers['x-request-id'] === undefined ? requestId : randomUUID();
  return id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24);
}

export function remoteAddressOf(req: IncomingMessage, trustProxyHeaders: boolean): string {
  if (trustProxyHeaders) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? '';
}

/**
 * X-Request-Id (and X-Service-Name when set): the headers every response
 * carries, also those written outside the pipeline.
 *
 * @example
 * writeJson(res, 404, body, identityHeadersOf(requestId, 'blog'));
 */
export function identityHeadersOf(requestId: string, serviceName: string | undefined): Record<string, string> {
  return serviceName ? { 'X-Request-Id': requestId, 'X-Service-Name': serviceName } : { 'X-Request-Id': requestId };
}

/** Common headers of every response of the API. */
export interface ResponseDefaults {
  serviceName?: string;
}

/** Writes a JSON (or empty) response with the request's headers. */
export function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | number>, etag = false, serialised?: string): void {
  if (res.headersSent || res.writableEnded) return;
  if (body === undefined || status === 204 || status === 304) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = serialised ?? JSON.stringify(body);
  if (etag && headers.ETag === undefined) headers.ETag = etagOfText(text);
  headers['Content-Type'] = 'application/json; charset=utf-8';
  // A string: node checks every header value with a regular expression, which takes a slow path for a number.
  headers['Content-Length'] = String(Buffer.byteLength(text));
  res.writeHead(status, headers);
  res.end(text);
}

/** Writes an HTML page (`text/html; charset=utf-8`) with the request's headers. */
export function writeHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string | number>): void {
  if (res.headersSent || res.writableEnded) return;
  if (status === 204 || status === 304) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  headers['Content-Type'] = 'text/html; charset=utf-8';
  headers['Content-Length'] = String(Buffer.byteLength(html));
  res.writeHead(status, headers);
  res.end(html);
}

/**
 * Pipes a streamed response. A source that fails before its first byte
 * answers the error envelope (its ApiError, else 500 INTERNAL); one that
 * fails later cuts the connection. Either failure is logged. Resolves with
 * the status the client got once the stream has ended.
 */
async function writeStream(ctx: Context, response: StreamResponse, headers: Record<string, string | number>, defaults: ResponseDefaults): Promise<number> {
  if (ctx.res.headersSent || ctx.res.writableEnded) return response.status;
  headers['Content-Type'] = response.contentType;
  const outcome = await pipeSource(ctx.req, ctx.res, response.source, { status: response.status, headers, length: response.length }, ctx.cancel);
  if (outcome.kind === 'sent') return response.status;
  if (outcome.kind === 'stopped') {
    // Cancelled before the first byte with nothing answered yet (a hook's ctx.abort): a cancelled request is a 504.
    if (ctx.res.headersSent || ctx.res.destroyed) return response.status;
    const timeout = new ApiError('TIMEOUT');
    sendError(ctx, timeout, defaults);
    return timeout.status;
  }
  const err = outcome.error instanceof Error ? (outcome.error.stack ?? outcome.error.message) : String(outcome.error);
  if (outcome.kind === 'cut') {
    ctx.log.error({ requestId: ctx.requestId, model: ctx.model?.name, op: ctx.op, err }, 'response stream failed after the headers were sent; the response was cut');
    return response.status;
  }
  const error = outcome.error instanceof ApiError ? outcome.error : new ApiError('INTERNAL');
  if (error.status >= 500) ctx.log.error({ requestId: ctx.requestId, model: ctx.model?.name, op: ctx.op, err }, 'response stream failed before its first byte');
  sendError(ctx, error, defaults);
  return error.status;
}

function baseHeaders(ctx: Context, defaults: ResponseDefaults): Record<string, string | number> {
  const headers: Record<string, string | number> = identityHeadersOf(ctx.requestId, defaults.serviceName);
  if (ctx.timings) {
    headers['Server-Timing'] = Object.entries(ctx.timings)
      .map(([step, ms]) => `${step};dur=${(ms as number).toFixed(2)}`)
      .join(', ');
  }
  if (ctx.extraHeaders) Object.assign(headers, ctx.extraHeaders);
  return headers;
}

/**
 * Writes the response the pipeline produced, with the writer of its kind.
 * Returns the status sent; for a stream, a promise of it, settled when the
 * stream has ended.
 */
export function sendContext(ctx: Context, defaults: ResponseDefaults): number | Promise<number> {
  const response = ctx.response;
  if (!response) {
    sendError(ctx, new ApiError('INTERNAL'), defaults);
    return 500;
  }
  const headers = baseHeaders(ctx, defaults);
  if (response.headers) Object.assign(headers, response.headers);
  switch (response.kind) {
    case 'stream':
      return writeStream(ctx, response, headers, defaults);
    case 'html':
      writeHtml(ctx.res, response.status, response.html, headers);
      return response.status;
    default:
      writeJson(ctx.res, response.status, response.body, headers, response.etag, serialisedTextOf(response));
      return response.status;
  }
}

export function sendError(ctx: Context, error: ApiError, defaults: ResponseDefaults): void {
  const headers = baseHeaders(ctx, defaults);
  if (error.headers) Object.assign(headers, error.headers);
  writeJson(ctx.res, error.status, error.toJSON(), headers);
}
