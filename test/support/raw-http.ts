// Raw HTTP/1.1 over a TCP socket, for requests no HTTP client would send.
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON body, or undefined. */
  body: any;
}

export interface RawExchange {
  /** The responses read before the server closed the connection (or `untilResponses` were read). */
  responses: RawResponse[];
  /** How the connection ended: the server closed it, or a reset/error code (ECONNRESET, EPIPE). */
  ended: 'closed' | string;
}

/**
 * Connects to `url`'s host and port, writes `parts` in order (each written
 * once the previous one was handed to the kernel), and reads responses
 * until the server closes the connection. With `untilResponses`, the
 * client closes its side once that many complete responses have arrived
 * (a server that keeps the connection open would otherwise never end it).
 */
export function rawExchange(url: string, parts: Array<string | Buffer>, options: { untilResponses?: number } = {}): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let ended: string | null = null;
    const finish = () => resolve({ responses: parseResponses(received), ended: ended ?? 'closed' });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (options.untilResponses && parseResponses(received).length >= options.untilResponses) socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (ended ??= error.code ?? error.message));
    socket.on('close', finish);
    socket.once('connect', async () => {
      for (const part of parts) {
        if (socket.destroyed) return;
        await new Promise<void>((written) => socket.write(part, () => written()));
      }
    });
  });
}

/** The complete responses in `bytes` (bodies framed by Content-Length; a response without one runs to the end). */
export function parseResponses(bytes: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  while (at < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd === -1) break;
    const [statusLine, ...lines] = bytes.toString('latin1', at, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headers['content-length'] === undefined ? bytes.length - headEnd - 4 : Number(headers['content-length']);
    if (headEnd + 4 + length > bytes.length) break;
    const text = bytes.toString('utf8', headEnd + 4, headEnd + 4 + length);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    out.push({ status: Number(statusLine.split(' ')[1]), headers, text, body });
    at = headEnd + 4 + length;
  }
  return out;
}
