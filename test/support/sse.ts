// A Server-Sent Events reader over node:http for the realtime tests: each
// frame (`id:`, `event:`, `data:` lines, or a `:` comment) is pushed to a
// Recorder as it arrives, so tests wait on frames, never on the clock.
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Recorder } from './wait.js';

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface SseStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text when the answer is not a stream (a refusal). */
  body: string;
  frames: Recorder<SseFrame>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** GETs `url` and reads it as an event stream (or, for a refusal, reads the body). */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res: IncomingMessage) => {
      const frames = new Recorder<SseFrame>();
      const ended = new Promise<void>((done) => {
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      });
      if (!String(res.headers['content-type']).startsWith('text/event-stream')) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, frames, ended, close: () => req.destroy() }));
        return;
      }
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        let at: number;
        while ((at = pending.indexOf('\n\n')) !== -1) {
          const block = pending.slice(0, at);
          pending = pending.slice(at + 2);
          const frame: SseFrame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else {
              const colon = line.indexOf(':');
              const field = line.slice(0, colon);
              const value = line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id' || field === 'event') frame[field] = value;
              else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
            }
          }
          frames.push(frame);
        }
      });
      resolve({ status: res.statusCode!, headers: res.headers, body: '', frames, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
