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

/**
 * Resolves true once nothing is in flight, including requests that had
 * already reached open connections (a loaded server reads them a turn or
 * two of the event loop later); false when `timeoutMs` passes first.
 *
 * @example
 * if (!(await drained(inflight, 30_000))) log.warn({}, 'shutdown timeout');
 */
export async function drained(inflight: Inflight, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    for (;;) {
      const idle = inflight.count === 0 ? true : await Promise.race([new Promise<true>((resolve) => whenDrained(inflight, () => resolve(true))), timeout]);
      if (!idle) return false;
      // One full poll phase between two check phases: what the kernel already holds has been read and dispatched.
      await nextTurn();
      await nextTurn();
      if (inflight.count === 0) return true;
    }
  } finally {
    clearTimeout(timer);
    inflight.drained = null;
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Sets the drained callback from a parameter, not a function literal assigned in place (see test/runtime/hot-path-source.test.ts). */
function whenDrained(inflight: Inflight, callback: () => void): void {
  inflight.drained = callback;
}
