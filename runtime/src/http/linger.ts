import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A refused request's connection closes only after the client has stopped
 * sending (a "lingering close"): closing while its bytes are still arriving
 * makes the kernel answer them with a reset, and a client that sees the
 * reset often loses the answer it had not read yet. What it still sends is
 * read and thrown away, within these bounds; past them the socket is cut.
 */
export const LINGER_LIMITS = {
  /** Bytes read and discarded after the answer. */
  maxBytes: 16 * 1024 * 1024,
  /** Time the client has to finish sending after the answer. */
  maxMs: 10_000,
} as const;

/** The lingering state of a socket being closed. */
export interface Linger {
  /** Call when more of the client's bytes were read and discarded: cuts the socket past the byte bound. */
  more(): void;
  /** The client has sent all it will: close once the answer is flushed. */
  done(): void;
}

const LINGERING = Symbol('mfx.linger');

/** The linger of a socket already closing this way, if any. */
export function lingerOf(socket: Socket): Linger | undefined {
  return (socket as Socket & { [LINGERING]?: Linger })[LINGERING];
}

/**
 * Ends the write side of `socket` now (its answer, then FIN) and keeps
 * reading until the caller says the client is done, the client closes its
 * side, or a bound is passed. The caller feeds `more()` from wherever the
 * discarded bytes show up (a request stream, a parser's errors, the socket).
 *
 * @example
 * const linger = lingerThenClose(socket);
 * socket.on('data', linger.more);
 */
export function lingerThenClose(socket: Socket): Linger {
  const existing = lingerOf(socket);
  if (existing) return existing;
  const start = socket.bytesRead;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, LINGER_LIMITS.maxMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  const linger: Linger = {
    more: () => {
      if (socket.bytesRead - start > LINGER_LIMITS.maxBytes) cut();
    },
    done: () => closeWhenFlushed(socket),
  };
  (socket as Socket & { [LINGERING]?: Linger })[LINGERING] = linger;
  if (socket.readableEnded) linger.done();
  else socket.once('end', linger.done);
  if (!socket.writableEnded) socket.end();
  return linger;
}

/**
 * Closes once the answer has left (what Node's destroySoon does), never
 * dropping bytes still queued.
 *
 * @example
 * res.once('finish', () => closeWhenFlushed(socket));
 */
export function closeWhenFlushed(socket: Socket): void {
  if (!socket.writableEnded) socket.end();
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}

/**
 * Makes the connection of `req` linger when Node closes it after the
 * answer (a `Connection: close` response): the rest of the request's body
 * is read and discarded (bounded), then the socket closes. Call it before
 * the answer is written; a request whose body has fully arrived closes at
 * once as before.
 *
 * @example
 * lingerAfterAnswer(req);
 * throw new ApiError('BODY_TOO_LARGE', 'request body is larger than 4194304 bytes', undefined, { Connection: 'close' });
 */
export function lingerAfterAnswer(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (!socket || socket.destroyed || lingerOf(socket)) return;
  let linger: Linger | null = null;
  // Read on from now: a request Node "dumps" after the answer is read without telling anyone how much.
  req.on('data', () => linger?.more());
  if (req.readableFlowing === null) req.resume();
  // Node's server calls socket.destroySoon() once a closing response is written; the linger begins there.
  const destroySoon = () => {
    linger = lingerThenClose(socket);
    if (req.complete) linger.done();
    else req.once('end', linger.done);
  };
  socket.destroySoon = destroySoon;
}
