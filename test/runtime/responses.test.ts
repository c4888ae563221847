// Response kinds: streamed bodies (with a length, chunked, HEAD, a client that
// leaves, a source that fails before or after its first byte, the deadline),
// HTML pages, and the ready-made hooks that read ctx.response (transaction,
// etag, idempotency, trace bodies) with them.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { it } from 'node:test';
import { ApiError, type App, etag, idempotency, transaction } from '@mfx/runtime';
import { POOLED_CHUNK, withPositionalRead } from '../../runtime/src/http/positional.js';
import { type ServerHandle } from '../support/server.js';
import { eachBackend, useServer } from '../support/suite.js';

/** A Readable that hands out `chunks` and then waits; `released` settles when it is destroyed or ends. */
function watchedSource(chunks: string[], options: { thenWait?: boolean } = {}) {
  let reads = 0;
  const source = new Readable({
    read() {
      reads++;
      const next = chunks.shift();
      if (next !== undefined) this.push(next);
      else if (!options.thenWait) this.push(null);
    },
  });
  const released = new Promise<void>((resolve) => source.once('close', () => resolve()));
  return { source, released, reads: () => reads };
}

/** The bytes /dl/positional serves: 40 pooled chunks and a short last one, each byte depending on its position. */
const POSITIONAL_BYTES = Buffer.from(Array.from({ length: 40 * POOLED_CHUNK + 1000 }, (_, i) => (i * 31 + (i >> 9)) & 0xff));

/**
 * A source readable at positions (as disk storage's files are) over `bytes[start, end)`:
 * records every buffer it is asked to read into; `released` settles when its Readable is destroyed.
 */
function positionalSource(bytes: Buffer, start = 0, end = bytes.length) {
  const buffers = new Set<ArrayBuffer>();
  let reads = 0;
  const source = withPositionalRead(new Readable({ read: () => assert.fail('a positional source is never read as a Readable') }), {
    read: async (into, length, position) => {
      reads++;
      buffers.add(into.buffer as ArrayBuffer);
      // As a file read does, it completes on a later turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      return bytes.copy(into, 0, position, Math.min(position + length, end));
    },
    start,
    end,
  });
  const released = new Promise<void>((resolve) => source.once('close', () => resolve()));
  return { source, released, buffers, reads: () => reads };
}
const positional: { last?: ReturnType<typeof positionalSource> } = {};

/** Sources the actions hand out, kept so tests can watch them. */
const watched: Record<string, ReturnType<typeof watchedSource>> = {};

const TEXT = { schema: { type: 'string' }, contentType: 'text/plain' };

function declare(app: App): void {
  const stream = (path: string, handler: Parameters<App['action']>[0]['handler']) => app.action({ method: 'GET', path, public: true, response: TEXT, handler });
  stream('/dl/sized', (ctx) => {
    watched.sized = watchedSource(['hello ', 'world']);
    ctx.respondStream(200, { source: watched.sized.source, contentType: 'text/plain; charset=utf-8', length: 11, headers: { 'Content-Disposition': 'attachment; filename="hello.txt"' } });
  });
  stream('/dl/chunked', (ctx) => {
    async function* parts() {
      yield 'a,b\n';
      yield Buffer.from('1,2\n');
      yield new Uint8Array([51, 44, 52, 10]);
    }
    ctx.respondStream(200, { source: parts(), contentType: 'text/plain' });
  });
  stream('/dl/positional', (ctx) => {
    const [start, end] = ctx.req.headers['x-slice'] ? String(ctx.req.headers['x-slice']).split('-').map(Number) : [0, POSITIONAL_BYTES.length];
    positional.last = positionalSource(POSITIONAL_BYTES, start, end);
    ctx.respondStream(200, { source: positional.last.source, contentType: 'application/octet-stream', length: end! - start! });
  });
  stream('/dl/endless', (ctx) => {
    watched.endless = watchedSource(['first chunk\n'], { thenWait: true });
    ctx.respondStream(200, { source: watched.endless.source, contentType: 'text/plain' });
  });
  stream('/dl/polite', (ctx) => {
    // An async generator that honours the request's signal: released when the client leaves.
    let release!: () => void;
    watched.polite = { released: new Promise<void>((resolve) => (release = resolve)) } as never;
    async function* parts() {
      try {
        yield 'first chunk\n';
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      } finally {
        release();
      }
    }
    ctx.respondStream(200, { source: parts(), contentType: 'text/plain' });
  });
  stream('/dl/broken-early', (ctx) => {
    async function* parts(): AsyncGenerator<string> {
      throw new Error('the disk is on fire');
    }
    ctx.respondStream(200, { source: parts(), contentType: 'text/plain' });
  });
  stream('/dl/missing', (ctx) => {
    async function* parts(): AsyncGenerator<string> {
      throw new ApiError('NOT_FOUND', 'no file "report.csv"');
    }
    ctx.respondStream(200, { source: parts(), contentType: 'text/plain' });
  });
  stream('/dl/broken-late', (ctx) => {
    async function* parts() {
      yield 'partial,';
      throw new Error('the disk is on fire');
    }
    ctx.respondStream(200, { source: parts(), contentType: 'text/plain' });
  });
  stream('/dl/short', (ctx) => {
    ctx.respondStream(200, { source: Readable.from(['only five']), contentType: 'text/plain', length: 100 });
  });
  stream('/dl/after-commit', async (ctx) => {
    // The transaction ends before the response is written: its rows cannot feed the stream.
    await ctx.adapter.transaction(async (tx) => {
      const rows = tx.iterate('SELECT name FROM tags');
      async function* names() {
        for await (const row of rows) yield `${String(row.name)}\n`;
      }
      ctx.respondStream(200, { source: names(), contentType: 'text/plain' });
    });
  });
  stream('/dl/abort-early', (ctx) => {
    watched.abortEarly = watchedSource(['never sent']);
    ctx.respondStream(200, { source: watched.abortEarly.source, contentType: 'text/plain' });
    ctx.abort('the hook gave up');
  });
  stream('/dl/abort-late', (ctx) => {
    async function* parts() {
      yield 'a,';
      ctx.abort('the source gave up');
      yield 'b';
    }
    ctx.respondStream(200, { source: parts(), contentType: 'text/plain' });
  });
  stream('/dl/unwritten', (ctx) => {
    watched.unwritten = watchedSource(['never sent'], { thenWait: true });
    ctx.respondStream(200, { source: watched.unwritten.source, contentType: 'text/plain' });
  });
  app.use('response', async (ctx, next) => {
    await next();
    if (ctx.req.url?.endsWith('/dl/unwritten')) throw new ApiError('CONFLICT', 'a later hook refused the download');
  }, { ops: ['action'], position: 'after' });
  app.action({
    method: 'GET',
    path: '/page',
    public: true,
    response: { schema: { type: 'string' }, contentType: 'text/html' },
    handler: (ctx) => ctx.respondHtml(200, '<!doctype html><p>héllo</p>', { 'Cache-Control': 'no-store' }),
  });

  // Registered first, so it wraps the hook below and sees the response that hook makes.
  app.use('response', etag(), { position: 'after', ops: ['read'], models: ['Tag'] });
  // Model operations answering with a stream or a page (x-respond-as), for the hooks that read responses.
  app.use('response', async (ctx, next) => {
    await next();
    const as = ctx.req.headers['x-respond-as'];
    const status = ctx.response!.status;
    if (as === 'stream') ctx.respondStream(status, { source: Readable.from(['streamed']), contentType: 'text/plain' });
    if (as === 'html') ctx.respondHtml(status, `<p>${String((ctx.result as { id: string }).id)}</p>`);
  }, { models: ['Company', 'Tag'], position: 'after' });
  app.use('service', transaction(), { models: ['Company'], ops: ['create'] });
  app.use('deserialize', idempotency(), { position: 'after', ops: ['create'], models: ['Company'] });
}

/** A GET through node:http, so a test can leave mid-body or see a cut connection. */
function open(url: string, method = 'GET'): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, agent: false }, resolve);
    req.on('error', reject);
    req.end();
  });
}

/** Reads the body to its end; rejects when the connection is cut before it. */
function bodyOf(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => resolve(text));
    res.on('aborted', () => reject(new Error(`cut after ${JSON.stringify(text)}`)));
    res.on('error', (error) => reject(new Error(`cut after ${JSON.stringify(text)}: ${error.message}`)));
  });
}

/** The access log line of the request to `path` (under the prefix). */
const accessLine = (server: ServerHandle, path: string) => server.logLine((line) => line.message === 'request' && String(line.fields.path).endsWith(path));

eachBackend('response kinds', (backend) => {
  const server = useServer(backend, { setup: declare, config: { trace: { enabled: true, bodies: true } } });

  it('streams a body of known length with Content-Length, its content type and headers', async () => {
    const res = await server.request('GET', '/dl/sized');
    assert.equal(res.status, 200);
    assert.equal(res.text, 'hello world');
    assert.equal(res.headers.get('content-length'), '11');
    assert.equal(res.headers.get('transfer-encoding'), null);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="hello.txt"');
    assert.ok(res.headers.get('x-request-id'));
    await watched.sized.released;
  });

  it('streams a body of unknown length chunked; Buffer, Uint8Array and string chunks', async () => {
    const res = await server.request('GET', '/dl/chunked');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    assert.equal(res.headers.get('content-length'), null);
    assert.equal(res.text, 'a,b\n1,2\n3,4\n');
  });

  it('streams a source readable at positions through a few reused buffers, whatever its size, and releases it', async () => {
    const res = await fetch(`${server.url}/dl/positional`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String(POSITIONAL_BYTES.length));
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(POSITIONAL_BYTES), 'byte-exact');
    const first = positional.last!;
    await first.released;
    assert.equal(first.reads(), 41);
    // Each buffer goes back once the socket wrote it: 41 chunks through a handful of buffers, not one each.
    assert.ok(first.buffers.size <= 8, `${first.buffers.size} buffers for 41 chunks`);
    // A second download reads into the buffers the first gave back, and a slice reads only its bytes.
    const again = await fetch(`${server.url}/dl/positional`, { headers: { 'x-slice': `100-${100 + 3 * POOLED_CHUNK + 7}` } });
    assert.ok(Buffer.from(await again.arrayBuffer()).equals(POSITIONAL_BYTES.subarray(100, 100 + 3 * POOLED_CHUNK + 7)), 'the slice, byte-exact');
    await positional.last!.released;
    assert.equal(positional.last!.reads(), 4);
    assert.ok([...positional.last!.buffers].some((buffer) => first.buffers.has(buffer)), 'no pooled buffer was reused');
  });

  it('answers HEAD with the headers only, never reading the source, and releases it', async () => {
    const res = await server.request('HEAD', '/dl/sized');
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
    assert.equal(res.headers.get('content-length'), '11');
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="hello.txt"');
    await watched.sized.released;
    assert.equal(watched.sized.reads(), 0);
  });

  it('destroys the source when the client leaves mid-stream, and logs 499', async () => {
    const res = await open(`${server.url}/dl/endless`);
    assert.equal(res.statusCode, 200);
    await new Promise((resolve) => res.once('data', resolve));
    res.destroy();
    await watched.endless.released;
    assert.equal((await accessLine(server, '/dl/endless')).fields.status, 499);
    // An async generator source is returned once it comes back to a yield (it honours ctx.signal).
    const polite = await open(`${server.url}/dl/polite`);
    await new Promise((resolve) => polite.once('data', resolve));
    polite.destroy();
    await watched.polite.released;
  });

  it('answers the error envelope when the source fails before its first byte', async () => {
    const res = await server.request('GET', '/dl/broken-early');
    assert.equal(res.status, 500);
    assert.deepEqual(res.body.error, { code: 'INTERNAL', message: 'internal server error' });
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    const logged = await server.logLine((line) => line.message === 'response stream failed before its first byte');
    assert.match(String(logged.fields.err), /the disk is on fire/);
    const missing = await server.request('GET', '/dl/missing');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body.error, { code: 'NOT_FOUND', message: 'no file "report.csv"' });
  });

  it('cuts the response when the source fails after the headers, so the client never sees a complete body', async () => {
    const res = await open(`${server.url}/dl/broken-late`);
    assert.equal(res.statusCode, 200);
    await assert.rejects(bodyOf(res), /cut after "partial,"/);
    const logged = await server.logLine((line) => line.message === 'response stream failed after the headers were sent; the response was cut');
    assert.match(String(logged.fields.err), /the disk is on fire/);
    assert.equal((await accessLine(server, '/dl/broken-late')).fields.status, 200);
  });

  it('cuts a stream that sends fewer bytes than its announced length', async () => {
    const res = await open(`${server.url}/dl/short`);
    assert.equal(res.headers['content-length'], '100');
    await assert.rejects(bodyOf(res), /cut after "only five"/);
    const logged = await server.logLine((line) => line.message?.includes('the response was cut') === true && String(line.fields.err).includes('ended after 9 of the announced 100 bytes'));
    assert.ok(logged);
  });

  it('cannot read through a transaction that ended before the response was written: 500, logged', async () => {
    const res = await server.request('GET', '/dl/after-commit');
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, 'INTERNAL');
    const logged = await server.logLine((line) => line.message === 'response stream failed before its first byte' && String(line.fields.err).includes('this transaction has already ended'));
    assert.ok(logged);
  });

  it('a request cancelled by a hook: 504 before the first byte, a cut body after it', async () => {
    const early = await server.request('GET', '/dl/abort-early');
    assert.equal(early.status, 504);
    assert.equal(early.body.error.code, 'TIMEOUT');
    await watched.abortEarly.released;
    assert.equal(watched.abortEarly.reads(), 0);
    const late = await open(`${server.url}/dl/abort-late`);
    assert.equal(late.statusCode, 200);
    await assert.rejects(bodyOf(late), /cut after "a,"/);
  });

  it('releases the source of a stream response that is never written (a later hook failed)', async () => {
    const res = await server.request('GET', '/dl/unwritten');
    assert.equal(res.status, 409);
    assert.equal(res.body.error.message, 'a later hook refused the download');
    await watched.unwritten.released;
  });

  it('sends an HTML page as text/html; charset=utf-8 with its byte length', async () => {
    const res = await server.request('GET', '/page');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength('<!doctype html><p>héllo</p>')));
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.text, '<!doctype html><p>héllo</p>');
    const head = await server.request('HEAD', '/page');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
  });

  it('trace body logging describes a stream and logs a page', async () => {
    await server.request('GET', '/dl/sized');
    const stream = await server.logLine((line) => line.message === 'response body' && (line.fields.stream as { length?: number })?.length === 11);
    assert.deepEqual(stream.fields.stream, { contentType: 'text/plain; charset=utf-8', length: 11 });
    await server.request('GET', '/page');
    const page = await server.logLine((line) => line.message === 'response body' && line.fields.html !== undefined);
    assert.equal(page.fields.html, '<!doctype html><p>héllo</p>');
  });

  it('commits the transaction of a create answered with a stream (status below 400)', async () => {
    const res = await server.request('POST', '/companies', { body: { name: 'Streamed', country: 'NL' }, headers: { 'x-respond-as': 'stream' }, unchecked: true });
    assert.equal(res.status, 201);
    assert.equal(res.text, 'streamed');
    const rows = await server.app.db.all(`SELECT id FROM companies WHERE name = ${server.app.db.dialect.param(1)}`, ['Streamed']);
    assert.equal(rows.length, 1);
  });

  it('idempotency: never stores a stream (the key is released, a retry runs again) but replays a page', async () => {
    const count = async (name: string) => (await server.app.db.all(`SELECT id FROM companies WHERE name = ${server.app.db.dialect.param(1)}`, [name])).length;
    const send = (name: string, as: string, key: string) =>
      server.request('POST', '/companies', { body: { name, country: 'NL' }, headers: { 'x-respond-as': as, 'Idempotency-Key': key }, unchecked: true });
    const first = await send('Twice', 'stream', 'stream-key');
    const second = await send('Twice', 'stream', 'stream-key');
    assert.equal(first.status, 201);
    assert.equal(first.text, 'streamed');
    // Not replayed: the create ran again and met the unique name it wrote the first time.
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'CONFLICT');
    assert.equal(second.headers.get('idempotent-replayed'), null);
    assert.equal(await count('Twice'), 1);
    assert.ok(await server.logLine((line) => line.level === 'warn' && line.message?.startsWith('idempotency: a streamed response cannot be replayed') === true));
    const page = await send('Once', 'html', 'html-key');
    const replay = await send('Once', 'html', 'html-key');
    assert.equal(page.status, 201);
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(replay.text, page.text);
    assert.equal(await count('Once'), 1);
  });

  it('etag() tags JSON reads only, never a stream or a page', async () => {
    const tag = (await server.request('POST', '/tags', { body: { name: 'etagged' } })).body.data;
    assert.ok((await server.request('GET', `/tags/${tag.id}`)).headers.get('etag'));
    for (const as of ['stream', 'html']) {
      const res = await server.request('GET', `/tags/${tag.id}`, { headers: { 'x-respond-as': as, 'If-None-Match': '*' }, unchecked: true });
      assert.equal(res.status, 200, as);
      assert.equal(res.headers.get('etag'), null, as);
    }
  });

  it('a JSON body holding non-ASCII text: Content-Length counts its UTF-8 bytes, the ETag is their MD5, and that tag answers 304', async () => {
    const name = 'Ingénieure 日本 😀 naïve';
    const tag = (await server.request('POST', '/tags', { body: { name } })).body.data;
    for (const path of [`/tags/${tag.id}`, '/tags?limit=100']) {
      const res = await open(`${server.url}${path}`);
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      assert.equal(res.statusCode, 200, path);
      assert.equal(res.headers['content-length'], String(bytes.length), path);
      const body = JSON.parse(bytes.toString('utf8'));
      assert.equal(path.includes('?') ? body.data.find((t: { id: string }) => t.id === tag.id).name : body.data.name, name, path);
      if (path.includes('?')) continue; // etag() is on reads only here
      assert.equal(res.headers.etag, `"${createHash('md5').update(bytes).digest('hex')}"`);
      const again = await server.request('GET', path, { headers: { 'If-None-Match': res.headers.etag! }, unchecked: true });
      assert.equal(again.status, 304);
    }
  });
});

eachBackend('stream deadline', (backend) => {
  let go: () => void = () => {};
  let abortedWhileStreaming: boolean | null = null;
  const server = useServer(backend, {
    // The deadline is the behaviour under test; long enough that /dl/long's first byte beats it on a loaded machine.
    config: { queryTimeout: 1000 },
    setup(app) {
      app.action({
        method: 'GET',
        path: '/dl/stalled',
        public: true,
        response: TEXT,
        handler(ctx) {
          async function* parts(): AsyncGenerator<string> {
            // Stalls until the deadline aborts the request, then gives up.
            await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
            throw new Error('gave up');
          }
          ctx.respondStream(200, { source: parts(), contentType: 'text/plain' });
        },
      });
      app.action({
        method: 'GET',
        path: '/dl/long',
        public: true,
        response: TEXT,
        handler(ctx) {
          const resumed = new Promise<void>((resolve) => (go = resolve));
          async function* parts() {
            yield 'first,';
            // Paused past the deadline: the test resumes it once another request's deadline has passed.
            await resumed;
            abortedWhileStreaming = ctx.signal.aborted;
            yield 'second';
          }
          ctx.respondStream(200, { source: parts(), contentType: 'text/plain' });
        },
      });
    },
  });

  it('answers 504 when the first byte does not come before the deadline', async () => {
    const res = await server.request('GET', '/dl/stalled');
    assert.equal(res.status, 504);
    assert.equal(res.body.error.code, 'TIMEOUT');
    assert.equal((await accessLine(server, '/dl/stalled')).fields.status, 504);
  });

  it('lets a stream whose first byte came in time run past the deadline', async () => {
    const res = await open(`${server.url}/dl/long`);
    assert.equal(res.statusCode, 200);
    const body = bodyOf(res);
    // A request started after it has hit its own deadline, so this one's has passed too.
    assert.equal((await server.request('GET', '/dl/stalled')).status, 504);
    go();
    assert.equal(await body, 'first,second');
    assert.equal(abortedWhileStreaming, false);
  });
});
