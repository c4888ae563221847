// Multipart hand-off: the Deserialize step gives multipart/form-data create and
// update bodies to the registered parser (form fields become ctx.body, file
// parts ctx.files), its errors, its registration window, and the per-request
// cleanup that runs once the response is written (spec pipeline rule 12).
import assert from 'node:assert/strict';
import { createReadStream, existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ApiError, type App, ConfigError, type Context, createServer, type MultipartBody, type MultipartLimits, RegistrationClosedError, type UploadedFile } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';

interface Cleanup {
  /** The response was fully handed over when the cleanup ran. */
  responseEnded: boolean;
  dir: string;
}

/** Per test request (x-test-id): settles when the parser's cleanup has run. */
const cleanups = new Map<string, Promise<Cleanup>>();

async function readLimited(ctx: Context, limits: MultipartLimits): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limits.maxBytes) throw new ApiError('BODY_TOO_LARGE', `multipart body is larger than ${limits.maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * A small multipart parser, as a file storage would register: files go to a
 * temporary directory that the cleanup removes after the response.
 */
async function testParser(ctx: Context, limits: MultipartLimits): Promise<MultipartBody> {
  const dir = await mkdtemp(join(tmpdir(), 'mfx-multipart-'));
  let settle!: (cleanup: Cleanup) => void;
  cleanups.set(String(ctx.req.headers['x-test-id']), new Promise((resolve) => (settle = resolve)));
  ctx.afterResponse(async () => {
    const responseEnded = ctx.res.writableEnded;
    await rm(dir, { recursive: true, force: true });
    settle({ responseEnded, dir });
  });
  if (ctx.req.headers['x-break-parser']) throw new Error(`ENOSPC: no space left on device, write '${dir}/part-0'`);
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(String(ctx.req.headers['content-type']));
  if (!boundary) throw new ApiError('MULTIPART_ERROR', 'the multipart body names no boundary');
  const body = await readLimited(ctx, limits);
  const fields: Record<string, unknown> = {};
  const files: UploadedFile[] = [];
  const parts = body.toString('latin1').split(`--${boundary[1] ?? boundary[2]}`).slice(1, -1);
  for (const [i, part] of parts.entries()) {
    const split = part.indexOf('\r\n\r\n');
    const head = part.slice(2, split);
    const data = Buffer.from(part.slice(split + 4, -2), 'latin1');
    const name = /name="([^"]*)"/.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    if (filename === undefined) {
      fields[name] = data.toString('utf8');
      continue;
    }
    const path = join(dir, `part-${i}`);
    await writeFile(path, data);
    files.push({ field: name, filename, contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? 'application/octet-stream', size: data.length, open: () => createReadStream(path) });
  }
  return { fields, files };
}

/** A multipart body as fetch would send it: the bytes and the Content-Type with its boundary. */
async function formBody(entries: Array<[string, string | Blob, string?]>): Promise<{ raw: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value, filename] of entries) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, filename);
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { raw: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

/** What the Service step saw of the file parts, per request. */
const seen = new Map<string, Array<Omit<UploadedFile, 'open'> & { text: string }>>();

function declare(app: App): void {
  app.multipartParser(testParser, { maxBytes: 64 * 1024 });
  app.use('service', async (ctx, next) => {
    const files = await Promise.all(
      ctx.files.map(async ({ field, filename, contentType, size, open }) => {
        let text = '';
        for await (const chunk of open()) text += chunk;
        return { field, filename, contentType, size, text };
      }),
    );
    seen.set(String(ctx.req.headers['x-test-id']), files);
    await next();
  }, { models: ['Tag'] });
}

eachBackend('multipart hand-off', (backend) => {
  const server = useServer(backend, { setup: declare });

  const tagCount = async () => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM tags'))[0].n);
  const send = async (method: string, path: string, id: string, entries: Array<[string, string | Blob, string?]>, headers: Record<string, string> = {}) => {
    const { raw, contentType } = await formBody(entries);
    return server.request(method, path, { raw, headers: { 'content-type': contentType, 'x-test-id': id, ...headers } });
  };

  it('hands a multipart create to the parser: fields are the body, file parts reach hooks as ctx.files', async () => {
    const res = await send('POST', '/tags', 'create', [['name', 'from a form'], ['notes', new Blob(['hello file'], { type: 'text/plain' }), 'notes.txt']]);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.name, 'from a form');
    assert.deepEqual(seen.get('create'), [{ field: 'notes', filename: 'notes.txt', contentType: 'text/plain', size: 10, text: 'hello file' }]);
  });

  it('runs the cleanup after the response is written, removing the temporary directory', async () => {
    const res = await send('POST', '/tags', 'cleanup', [['name', 'cleaned up'], ['notes', new Blob(['x']), 'x.bin']]);
    assert.equal(res.status, 201);
    const cleanup = await cleanups.get('cleanup')!;
    assert.equal(cleanup.responseEnded, true);
    assert.equal(existsSync(cleanup.dir), false);
  });

  it('hands a multipart update to the parser too', async () => {
    const id = (await server.request('POST', '/tags', { body: { name: 'before the form' } })).body.data.id;
    const res = await send('PATCH', `/tags/${id}`, 'update', [['name', 'after the form']]);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.name, 'after the form');
    await cleanups.get('update');
  });

  it('runs the cleanup when the request fails too, and writes nothing', async () => {
    const before = await tagCount();
    const res = await send('POST', '/tags', 'invalid', [['notes', new Blob(['no name']), 'n.txt']]);
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    assert.equal((await cleanups.get('invalid')!).responseEnded, true);
    assert.equal(await tagCount(), before);
  });

  it("answers a parser's ApiError as is: 413 over the registered limit, 400 for a body without a boundary", async () => {
    const before = await tagCount();
    const big = await send('POST', '/tags', 'big', [['name', 'big'], ['notes', new Blob(['x'.repeat(65 * 1024)]), 'big.txt']]);
    assert.equal(big.status, 413);
    assert.deepEqual(big.body.error, { code: 'BODY_TOO_LARGE', message: `multipart body is larger than ${64 * 1024} bytes` });
    const unbounded = await server.request('POST', '/tags', { raw: 'name=x', headers: { 'content-type': 'multipart/form-data', 'x-test-id': 'unbounded' } });
    assert.equal(unbounded.status, 400);
    assert.deepEqual(unbounded.body.error, { code: 'MULTIPART_ERROR', message: 'the multipart body names no boundary' });
    assert.equal(await tagCount(), before);
    await cleanups.get('big');
  });

  it('answers anything else a parser throws with 400 MULTIPART_ERROR and the generic text, logging the original', async () => {
    const res = await send('POST', '/tags', 'broken', [['name', 'broken']], { 'x-break-parser': '1' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error, { code: 'MULTIPART_ERROR', message: 'multipart body could not be parsed' });
    const logged = await server.logLine((line) => line.message === 'multipart parser failed');
    assert.match(String(logged.fields.err), /ENOSPC/);
    await cleanups.get('broken');
  });

  it('refuses a parser registered after the server sealed', () => {
    assert.throws(() => server.app.multipartParser(testParser), RegistrationClosedError);
  });
});

describe('multipartParser registration', () => {
  it('takes one parser per app, a function, and a positive whole maxBytes', () => {
    const app = createServer({ handleSignals: false });
    assert.throws(() => app.multipartParser('busboy' as never), (e: Error) => e instanceof ConfigError && /must be a function/.test(e.message));
    assert.throws(() => app.multipartParser(testParser, { maxBytes: 0 }), (e: Error) => e instanceof ConfigError && /maxBytes must be a positive whole number of bytes, got 0/.test(e.message));
    app.multipartParser(testParser);
    assert.throws(() => app.multipartParser(testParser), (e: Error) => e instanceof ConfigError && /a multipart parser is already registered/.test(e.message));
  });
});
