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
  /** The responses read before the connection ended (or `untilResponses` were read). */
  responses: RawResponse[];
  /** How the connection ended: the server closed it, or a reset/error code (ECONNRESET, EPIPE). */
  ended: 'closed' | string;
  /** Bytes handed to the kernel. */
  written: number;
}

export interface RawOptions {
  /** Close the client's side once this many complete responses have arrived (a server keeping the connection open never ends it). */
  untilResponses?: number;
  /** Parts written only once the first complete response has arrived: a client still sending after the answer. */
  afterAnswer?: Array<string | Buffer>;
}

/**
 * Connects to `url`'s host and port, writes `parts` in order (each written
 * once the previous one was handed to the kernel), and reads responses
 * until the connection ends. The client keeps its side open when the
 * server closes its own (half-close), so it can go on sending.
 */
export function rawExchange(url: string, parts: Array<string | Buffer>, options: RawOptions = {}): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    let received = Buffer.alloc(0);
    let ended: string | null = null;
    let written = 0;
    let answered!: () => void;
    const firstAnswer = new Promise<void>((settle) => (answered = settle));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const complete = parseResponses(received).length;
      if (complete >= 1) answered();
      if (options.untilResponses && complete >= options.untilResponses) socket.end();
    });
    socket.on('end', () => {
      answered();
      if (!options.afterAnswer) socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (ended ??= error.code ?? error.message));
    socket.on('close', () => resolve({ responses: parseResponses(received), ended: ended ?? 'closed', written }));
    const write = async (list: Array<string | Buffer>) => {
      for (const part of list) {
        if (socket.destroyed || socket.writableEnded) return;
        await new Promise<void>((done) => socket.write(part, (error) => (error ? done() : ((written += Buffer.byteLength(part)), done()))));
      }
    };
    socket.once('connect', async () => {
      await write(parts);
      if (!options.afterAnswer) return;
      await firstAnswer;
      await write(options.afterAnswer);
      if (!socket.destroyed) socket.end();
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
