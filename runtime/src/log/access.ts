import { infoMembers, type InfoMembersWriter, type Logger } from './logger.js';

/** What one request adds to its access line; the route's own fields (model, op) are bound once. */
export interface AccessFields {
  requestId: string;
  traceId: string;
  method: string | undefined;
  path: string;
  status: number;
  durationMs: number;
  remoteAddress: string;
}

export type AccessLog = (fields: AccessFields) => void;

/**
 * The access log of one route: a `request` line per request with requestId,
 * traceId, method, path, status, durationMs, model (absent outside a model),
 * op and remoteAddress. With mfx's own logger the line is written as text,
 * the route's fields serialised here, once; any other logger gets the same
 * fields as an object.
 *
 * @example
 * const access = accessLog(app.log, 'Post', 'read');
 * access({ requestId, traceId, method: 'GET', path: '/api/posts/1', status: 200, durationMs: 1.2, remoteAddress: '::1' });
 */
export function accessLog(log: Logger, model: string | undefined, op: string): AccessLog {
  const write = (log as Logger & { [infoMembers]?: InfoMembersWriter })[infoMembers];
  if (!write) {
    return (f) =>
      log.info(
        { requestId: f.requestId, traceId: f.traceId, method: f.method, path: f.path, status: f.status, durationMs: f.durationMs, model, op, remoteAddress: f.remoteAddress },
        'request',
      );
  }
  const routeMembers = `${model === undefined ? '' : `,"model":${JSON.stringify(model)}`},"op":${JSON.stringify(op)}`;
  // A server sees few methods and few client addresses (often one: its proxy), so their JSON is kept from the last line.
  let method: string | undefined;
  let methodMember = '';
  let address = '';
  let addressJson = '""';
  // requestId and traceId need no escaping: a client's request id is a token of [A-Za-z0-9._:-] (see requestIdOf), a trace id hex digits.
  return (f) => {
    if (f.method !== method) methodMember = (method = f.method) === undefined ? '' : `,"method":${JSON.stringify(method)}`;
    if (f.remoteAddress !== address) addressJson = JSON.stringify((address = f.remoteAddress));
    write(
      `"requestId":"${f.requestId}","traceId":"${f.traceId}"${methodMember},"path":${jsonString(f.path)},"status":${f.status},"durationMs":${hundredths(f.durationMs)}${routeMembers},"remoteAddress":${addressJson}`,
      'request',
    );
  };
}

/** Characters JSON.stringify escapes in a string: the quote, the backslash, controls, and surrogates (a lone one is escaped). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string's JSON, as JSON.stringify writes it; a path with nothing to escape (almost every one) is only quoted. */
export function jsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/**
 * The text of a non-negative number of milliseconds rounded to hundredths,
 * as String() writes it (`3.1`, `0.07`, `12`), from two small integers: a
 * fraction's shortest form is its hundredths without trailing zeros, and
 * integers are cheaper to print than a double.
 */
export function hundredths(ms: number): string {
  const h = Math.round(ms * 100);
  if (!(h >= 0 && h < 2 ** 31)) return String(ms);
  const whole = (h / 100) | 0;
  const frac = h - whole * 100;
  if (frac === 0) return `${whole}`;
  if (frac % 10 === 0) return `${whole}.${frac / 10}`;
  return frac < 10 ? `${whole}.0${frac}` : `${whole}.${frac}`;
}
