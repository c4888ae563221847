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
  // requestId and traceId need no escaping: a client's request id is a token of [A-Za-z0-9._:-] (see requestIdOf), a trace id hex digits.
  return (f) =>
    write(
      `"requestId":"${f.requestId}","traceId":"${f.traceId}"${f.method === undefined ? '' : `,"method":${JSON.stringify(f.method)}`},"path":${JSON.stringify(f.path)},"status":${f.status},"durationMs":${f.durationMs}${routeMembers},"remoteAddress":${JSON.stringify(f.remoteAddress)}`,
      'request',
    );
}
