import type { IncomingMessage } from 'node:http';

/** The request header with which a client asks for its reads on the primary (value `1`). */
export const READ_PRIMARY_HEADER = 'x-read-primary';

/**
 * Whether a request reads the primary from its start rather than the read
 * replica: every request that may write (any method but GET and HEAD: the
 * reads of a write, its hooks' checks and a login's lookup must see the
 * newest rows), and a read carrying `X-Read-Primary: 1` when the server
 * honours the header. Any other value of the header is ignored. Reads of
 * any request go to the primary as well once one of its writes commits
 * (RequestCancel.readPrimary).
 *
 * @example
 * readsPrimaryFromStart(req, true); // true for GET with X-Read-Primary: 1, and for every POST
 */
export function readsPrimaryFromStart(req: IncomingMessage, honourHeader: boolean): boolean {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return true;
  return honourHeader && req.headers[READ_PRIMARY_HEADER] === '1';
}
