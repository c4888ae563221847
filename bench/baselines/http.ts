// What every hand-written baseline shares: its flags, the JSON envelope writer
// (with the ETag mfx sends for the blog's optimistic_lock Post), body reading,
// and listening with the line the bench harness waits for.
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** `--db X --port N` → Map. */
export function flags(): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 2; i < process.argv.length; i += 2) out.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1]);
  return out;
}

/** Writes a JSON body with X-Request-Id, and the MD5 ETag of its text when asked. */
export function send(res: ServerResponse, status: number, body: unknown, etag = false): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'X-Request-Id': randomUUID() };
  if (etag) headers.ETag = `"${createHash('md5').update(text).digest('hex')}"`;
  res.writeHead(status, headers);
  res.end(text);
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Listens on loopback, prints the URL the harness waits for, and exits on SIGTERM after `close`. */
export function serve(server: Server, port: number, close: () => Promise<unknown> = async () => {}): void {
  server.listen(port, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    console.log(`baseline serving http://127.0.0.1:${address.port}/api`);
  });
  process.on('SIGTERM', () => server.close(() => void close().then(() => process.exit(0))));
}
