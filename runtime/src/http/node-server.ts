import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { type ClientErrorDeps, clientErrorHandler, connectHandler, expectationHandler } from './client-errors.js';
import { MAX_HEAD_BYTES } from './head-limits.js';
import { closeWhenFlushed, lingerAfterAnswer } from './linger.js';

/**
 * The open connections of a server, so a shutdown can tell the answers
 * still to be written to close their connections.
 */
export class OpenConnections {
  private readonly sockets = new Set<Socket>();

  /** The server's `connection` listener (per connection, never per request). */
  readonly track = (socket: Socket): void => {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  };

  /**
   * Every answer not written yet will say `Connection: close` and close
   * its connection (after the rest of its request body, see linger.ts);
   * one already on its way closes its connection once it is out. Idle
   * connections stay open: a request arriving on one is served with
   * `Connection: close` (see the router's guard); the rest are closed when
   * the drain ends.
   */
  closeAfterAnswers(): void {
    for (const socket of this.sockets) {
      // The response being written on this connection (Node's own field; undefined while idle).
      const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (!res || res.writableFinished) continue;
      if (res.headersSent) {
        res.once('finish', () => closeWhenFlushed(socket));
        continue;
      }
      res.setHeader('Connection', 'close');
      if (!res.req.complete) lingerAfterAnswer(res.req);
    }
  }
}

/**
 * Closes the listener only, so no connection is accepted any more; resolves
 * once every connection has closed. Node's own `server.close()` would also
 * destroy idle keep-alive connections at once: on a loaded server many of
 * those already have a request on its way in (read a moment later), and
 * the destroy resets them.
 *
 * @example
 * const closed = stopListening(server);
 */
export function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => NetServer.prototype.close.call(server, () => resolve()));
}

/**
 * Cuts every connection still open (idle ones, refusals still lingering,
 * and past the shutdown budget requests in flight) and stops Node's
 * header and request timeout checks.
 *
 * @example
 * closeConnections(server);
 */
export function closeConnections(server: Server): void {
  server.closeAllConnections();
  server.close();
}

/**
 * The node:http server of an app: room for a 64 KiB request head, and the
 * error envelope for what Node would otherwise answer itself (parse errors,
 * CONNECT, unmet `Expect`, no Host header: the router checks that one).
 *
 * @example
 * const server = createNodeServer(app.handler(), { log, serviceName, connections: new OpenConnections() });
 */
export function createNodeServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  deps: ClientErrorDeps & { connections: OpenConnections },
): Server {
  const server = createServer({ maxHeaderSize: MAX_HEAD_BYTES, requireHostHeader: false }, handler);
  const refusals: ClientErrorDeps = { log: deps.log, serviceName: deps.serviceName };
  server.on('clientError', clientErrorHandler(refusals));
  server.on('connect', connectHandler(refusals));
  server.on('checkExpectation', expectationHandler(refusals));
  server.on('connection', deps.connections.track);
  return server;
}
