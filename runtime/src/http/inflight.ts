import type { IncomingMessage, ServerResponse } from 'node:http';

/** Requests being served, for graceful shutdown. */
export interface Inflight {
  count: number;
  /** Set by a shutdown waiting for the count to reach zero. */
  drained: (() => void) | null;
  /** Shutting down: every answer closes its connection. */
  draining: boolean;
}

/**
 * One request fewer in flight; the last one during a drain lets the
 * shutdown go on.
 *
 * @example
 * inflight.count++;
 * try { await serve(); } finally { requestEnded(inflight); }
 */
export function requestEnded(inflight: Inflight): void {
  inflight.count--;
  if (inflight.count === 0 && inflight.drained) inflight.drained();
}

/**
 * Counts a handler's requests as in flight until their response closes,
 * for handlers outside `dispatch` (which counts its own): the probes, whose
 * checks and middleware may take a while, so a drain waits for them too.
 *
 * @example
 * table.add('GET', '/ready', countedInflight(inflight, probes.ready));
 */
export function countedInflight<Req extends IncomingMessage>(inflight: Inflight, handler: (req: Req, res: ServerResponse) => void): (req: Req, res: ServerResponse) => void {
  return (req, res) => {
    inflight.count++;
    res.once('close', () => requestEnded(inflight));
    handler(req, res);
  };
}
