import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
   * connections are left to `server.close()`, which closes them.
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
