/**
 * Requests Node's HTTP parser refuses before there is a request to route
 * (malformed framing, an over-long head, an unknown method, a timeout),
 * CONNECT requests and unmet `Expect` headers: each gets the error envelope
 * with X-Request-Id instead of Node's bare answer or silence, then its
 * connection closes without resetting a client that is still sending.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors/api-error.js';
import type { Logger } from '../log/logger.js';
import { headersTooLarge, uriTooLong } from './head-limits.js';
import { closeWhenFlushed, LINGER_LIMITS, lingerAfterAnswer, lingerOf, lingerThenClose } from './linger.js';
import { identityHeadersOf, requestIdOf, writeJson } from './respond.js';

export interface ClientErrorDeps {
  log: Logger;
  serviceName?: string;
}

/** What Node passes to `clientError`: a parser error (`HPE_*`, with the bytes it was parsing) or a socket error. */
type ParserError = Error & { code?: string; reason?: string; bytesParsed?: number; rawPacket?: Buffer };

/** A socket whose refusal is under way: later parser errors are more bytes of the same broken request. */
interface Refusal {
  more(error: ParserError): void;
}

const REFUSAL = Symbol('mfx.refusal');
const refusalOf = (socket: Socket) => (socket as Socket & { [REFUSAL]?: Refusal })[REFUSAL];
const setRefusal = (socket: Socket, refusal: Refusal) => ((socket as Socket & { [REFUSAL]?: Refusal })[REFUSAL] = refusal);

/**
 * The server's `clientError` listener.
 *
 * @example
 * server.on('clientError', clientErrorHandler({ log, serviceName }));
 */
export function clientErrorHandler(deps: ClientErrorDeps): (error: ParserError, socket: Socket) => void {
  return (error, socket) => {
    const refusal = refusalOf(socket);
    if (refusal) return refusal.more(error);
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const pending = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (pending && !pending.writableFinished) return refuseBesideResponse(deps, socket, pending, error);
    if (error.code === 'HPE_HEADER_OVERFLOW') return refuseOverlongHead(deps, socket, error);
    refuseRaw(deps, socket, answerTo(error), error.code);
  };
}

/**
 * The server's `connect` listener: this server is not a proxy.
 *
 * @example
 * server.on('connect', connectHandler({ log, serviceName }));
 */
export function connectHandler(deps: ClientErrorDeps): (req: IncomingMessage, socket: Socket) => void {
  return (req, socket) => {
    socket.on('error', () => socket.destroy());
    refuseRaw(deps, socket, new ApiError('METHOD_NOT_IMPLEMENTED'), 'CONNECT', requestIdOf(req));
    socket.on('data', lingerOf(socket)!.more);
  };
}

/**
 * The server's `checkExpectation` listener: an `Expect` other than
 * 100-continue is refused with 417.
 *
 * @example
 * server.on('checkExpectation', expectationHandler({ log, serviceName }));
 */
export function expectationHandler(deps: ClientErrorDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const error = new ApiError('EXPECTATION_FAILED', `Expect: ${String(req.headers.expect).slice(0, 100)} is not supported; send Expect: 100-continue or no Expect header`);
    const requestId = requestIdOf(req);
    logRefusal(deps, requestId, error, req.socket, 'Expect');
    writeJson(res, error.status, error.toJSON(), identityHeadersOf(requestId, deps.serviceName));
  };
}

/** The answer to a parser error other than an over-long head. */
function answerTo(error: ParserError): ApiError {
  switch (error.code) {
    case 'HPE_INVALID_METHOD':
      return new ApiError('METHOD_NOT_IMPLEMENTED');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('BODY_TOO_LARGE', 'chunk extensions are larger than 16 KiB; send chunks without extensions');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', 'the request did not arrive completely in time; send the head and body without pauses');
    case 'HPE_INVALID_HEADER_TOKEN':
      return new ApiError('BAD_REQUEST', `a header has a character HTTP does not allow (${reasonOf(error)}); NUL and other control characters are refused`);
    default:
      return new ApiError('BAD_REQUEST', `the request is not valid HTTP/1.1 (${reasonOf(error)}); fix the request's framing`);
  }
}

/** llhttp's own words ("Invalid character in chunk size"), without a trailing period. */
function reasonOf(error: ParserError): string {
  return (error.reason ?? error.code ?? 'unparseable request').replace(/\.$/, '');
}

/**
 * An over-long head is an over-long URI when the line it overflowed on is
 * the request line. The parser reports the overflow at the end of a token
 * or of a chunk, so the line may not have ended yet: the bytes that follow
 * are read (as the broken parser's later errors) until it does. The
 * request line ends with the HTTP version, a header line does not.
 */
function refuseOverlongHead(deps: ClientErrorDeps, socket: Socket, error: ParserError): void {
  let tail = '';
  let settled = false;
  const start = socket.bytesRead;
  // `close`: the client is done or past the bounds, so the socket closes once the answer is out.
  const settle = (answer: ApiError, close = false) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    socket.off('end', onEnd);
    refuseRaw(deps, socket, answer, error.code);
    if (close || socket.readableEnded) lingerOf(socket)?.done();
  };
  const feed = (chunk: Buffer | undefined, from: number) => {
    if (!chunk) return;
    const lineEnd = chunk.indexOf(0x0a, from);
    const upTo = lineEnd === -1 ? chunk.length : lineEnd;
    tail = (tail + chunk.toString('latin1', Math.max(from, upTo - 16), upTo)).slice(-16);
    if (lineEnd !== -1) settle(REQUEST_LINE_END.test(tail) ? uriTooLong() : headersTooLarge());
    else if (socket.bytesRead - start > LINGER_LIMITS.maxBytes) settle(headersTooLarge(), true);
  };
  // Without the line's end there is no telling; the head as a whole is too large either way.
  const onEnd = () => settle(headersTooLarge(), true);
  const timer = setTimeout(onEnd, LINGER_LIMITS.maxMs);
  timer.unref();
  // Before Node's own end listener, which ends the socket.
  socket.prependOnceListener('end', onEnd);
  setRefusal(socket, { more: (later) => (settled ? lingerOf(socket)?.more() : feed(later.rawPacket, 0)) });
  feed(error.rawPacket, error.bytesParsed ?? 0);
}

const REQUEST_LINE_END = / HTTP\/\d\.\d\r?$/;

/**
 * A parse error on a connection with a response under way. When that
 * request's own body is what broke (bad chunked framing, a timeout), it is
 * answered through its response. Otherwise the broken bytes follow a
 * request still being served: its answer is not replaced (that request may
 * already have written), it closes the connection instead.
 */
function refuseBesideResponse(deps: ClientErrorDeps, socket: Socket, pending: ServerResponse, error: ParserError): void {
  setRefusal(socket, { more: () => lingerOf(socket)?.more() });
  const req = pending.req;
  if (!pending.headersSent && !req.complete) {
    const answer = answerTo(error);
    const requestId = (req as IncomingMessage & { requestId?: string }).requestId ?? requestIdOf(req);
    logRefusal(deps, requestId, answer, socket, error.code);
    lingerAfterAnswer(req);
    // Node no longer aborts a request whose response has finished: end the wait for its body when the connection goes.
    socket.once('close', () => req.destroy());
    writeJson(pending, answer.status, answer.toJSON(), { ...identityHeadersOf(requestId, deps.serviceName), ...answer.headers, Connection: 'close' });
    return;
  }
  if (!pending.headersSent) pending.setHeader('Connection', 'close');
  else pending.once('finish', () => closeWhenFlushed(socket));
}

/** Writes the envelope straight to the socket (there is no response object), then lingers until the client is done. */
function refuseRaw(deps: ClientErrorDeps, socket: Socket, error: ApiError, cause: string | undefined, requestId: string = randomUUID()): void {
  setRefusal(socket, { more: () => lingerOf(socket)?.more() });
  logRefusal(deps, requestId, error, socket, cause);
  const body = JSON.stringify(error.toJSON());
  const headers: Record<string, string | number> = {
    ...identityHeadersOf(requestId, deps.serviceName),
    ...error.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Date: new Date().toUTCString(),
    Connection: 'close',
  };
  let head = `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  socket.write(`${head}\r\n${body}`);
  lingerThenClose(socket);
}

function logRefusal(deps: ClientErrorDeps, requestId: string, error: ApiError, socket: Socket, cause?: string): void {
  deps.log.info({ requestId, status: error.status, code: error.code, cause, remoteAddress: socket.remoteAddress }, 'request refused before routing');
}
