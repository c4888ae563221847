// Hand-written peer of mfx's /files routes on node:http + busboy, storing on
// the same disk the way diskStorage does: `POST /api/files` streams the part
// `file` to DIR/.tmp/<random> (never held in memory), writes the metadata
// beside it and renames both into place under a new key (YYYY/MM/<22
// base64url>), answering 201 {data:{key,size,contentType,filename}};
// `GET /api/files/<key>` streams the bytes with Content-Type, Content-Length,
// Content-Disposition and ETag. Nothing else (no hooks, no logs, no ranges).
// `node files-raw.js --dir DIR --port N`
import busboy from 'busboy';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const flags = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) flags.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1]);
const dir = flags.get('dir')!;
const temp = join(dir, '.tmp');
const MAX_BYTES = 32 * 1024 * 1024;
const KEY = /^\d{4}\/\d{2}\/[A-Za-z0-9_-]{22}$/;

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'X-Request-Id': randomUUID() });
  res.end(text);
}

const fail = (res: ServerResponse, status: number, code: string, message: string) => json(res, status, { error: { code, message } });

function newKey(): string {
  const now = new Date();
  return `${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}/${randomBytes(16).toString('base64url')}`;
}

function upload(req: IncomingMessage, res: ServerResponse): void {
  let parser;
  try {
    parser = busboy({ headers: req.headers, limits: { fileSize: MAX_BYTES, files: 1 } });
  } catch {
    return fail(res, 400, 'MULTIPART_ERROR', 'not a multipart/form-data body');
  }
  let stored: Promise<{ key: string; size: number; contentType: string; filename: string | null }> | undefined;
  parser.on('file', (name, stream, info) => {
    if (name !== 'file' || stored) return void stream.resume();
    const part = join(temp, randomUUID());
    stored = (async () => {
      try {
        await pipeline(stream, createWriteStream(part, { flags: 'wx' }));
        const meta = { contentType: info.mimeType, filename: info.filename ?? null };
        await writeFile(`${part}.meta.json`, JSON.stringify(meta), { flag: 'wx' });
        const { size } = await stat(part);
        const key = newKey();
        const final = join(dir, key);
        await mkdir(dirname(final), { recursive: true });
        await rename(`${part}.meta.json`, `${final}.meta.json`);
        await rename(part, final);
        return { key, size, ...meta };
      } catch (error) {
        await Promise.all([rm(part, { force: true }), rm(`${part}.meta.json`, { force: true })]);
        throw error;
      }
    })();
    stored.catch(() => undefined);
  });
  parser.on('error', () => fail(res, 400, 'MULTIPART_ERROR', 'the multipart body is malformed'));
  parser.on('close', () => {
    if (!stored) return fail(res, 422, 'VALIDATION_ERROR', 'the upload has no file');
    stored.then(
      (data) => json(res, 201, { data }),
      () => fail(res, 500, 'INTERNAL', 'storing the file failed'),
    );
  });
  req.pipe(parser);
}

async function download(res: ServerResponse, key: string): Promise<void> {
  if (!KEY.test(key)) return fail(res, 404, 'NOT_FOUND', 'no such file');
  const path = join(dir, key);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return fail(res, 404, 'NOT_FOUND', 'no such file');
  }
  const { size } = await handle.stat();
  const meta = JSON.parse(await readFile(`${path}.meta.json`, 'utf8')) as { contentType: string; filename: string | null };
  const name = (meta.filename ?? 'file').replace(/[^\x20-\x7e]|["\\%/]/g, '_');
  res.writeHead(200, {
    'Content-Type': meta.contentType,
    'Content-Length': size,
    'Content-Disposition': `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(meta.filename ?? 'file')}`,
    ETag: `"${createHash('sha256').update(key).digest('base64url').slice(0, 22)}-${size.toString(36)}"`,
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, max-age=0, must-revalidate',
    'X-Request-Id': randomUUID(),
  });
  await pipeline(handle.createReadStream(), res);
}

await mkdir(temp, { recursive: true });
const server = createServer((req, res) => {
  const path = (req.url ?? '').split('?')[0];
  if (req.method === 'POST' && path === '/api/files') return upload(req, res);
  if (req.method === 'GET' && path.startsWith('/api/files/')) {
    return void download(res, decodeURIComponent(path.slice('/api/files/'.length))).catch(() => res.destroy());
  }
  fail(res, 404, 'NOT_FOUND', 'no such route');
});
server.listen(Number(flags.get('port') ?? 0), '127.0.0.1', () => {
  console.log(`files-raw serving http://127.0.0.1:${(server.address() as AddressInfo).port}/api`);
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
});
