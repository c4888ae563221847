// Hand-written peer on node:http: the blog's posts with the same SQL, envelopes and
// row decoding mfx uses (blog-routes.ts), a type check on the create body, and
// nothing else (no hooks, no logs). `node raw.js --db sqlite:FILE|postgres://... --port N`
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { envelope, invalid, type Answer, type Row } from './blog-routes.js';
import { announce, peerOptions } from './serve.js';

const { routes, port } = await peerOptions();

function send(res: ServerResponse, answer: Answer): void {
  const { status, text, headers } = envelope(answer);
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function fail(res: ServerResponse): void {
  send(res, { status: 500, body: { error: { code: 'DB_ERROR', message: 'database error' } } });
}

function answer(res: ServerResponse, result: Answer | Promise<Answer>): void {
  if (result instanceof Promise) result.then((a) => send(res, a), () => fail(res));
  else send(res, result);
}

async function readJson(req: IncomingMessage): Promise<Row> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function create(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  if (typeof body.title !== 'string' || typeof body.userId !== 'string') return send(res, invalid);
  answer(res, routes.create(body));
}

const server = createServer((req, res) => {
  try {
    const [path, search = ''] = (req.url ?? '').split('?');
    if (req.method === 'GET' && path.startsWith('/api/posts/')) return answer(res, routes.read(decodeURIComponent(path.slice('/api/posts/'.length))));
    if (req.method === 'GET' && path === '/api/posts') return answer(res, routes.list(new URLSearchParams(search)));
    if (req.method === 'POST' && path === '/api/posts') return void create(req, res).catch(() => fail(res));
    send(res, routes.notFound);
  } catch {
    fail(res);
  }
});

server.listen(port, '127.0.0.1', () =>
  announce('raw', (server.address() as AddressInfo).port, () => new Promise<void>((resolve) => server.close(() => resolve())).then(routes.close)),
);
