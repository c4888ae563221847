// Bodies refused while the client is still sending them (413), and bodies that are not valid Unicode.
import assert from 'node:assert/strict';
import { type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { before, it } from 'node:test';
import { rawExchange } from '../support/raw-http.js';
import { eachBackend, useServer } from '../support/suite.js';

const LIMIT = 4 * 1024 * 1024;
const TOO_LARGE = { error: { code: 'BODY_TOO_LARGE', message: `request body is larger than ${LIMIT} bytes` } };

/** Writes `bytes` of body filler, honouring backpressure (each write waits for the socket to drain); resolves with the bytes written. */
async function writeFiller(req: ClientRequest, bytes: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let written = 0;
  for (let left = bytes; left > 0 && !req.destroyed; left -= chunk.length) {
    const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
    written += part.length;
    if (!req.write(part)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          req.off('drain', done);
          req.off('close', done);
          resolve();
        };
        req.once('drain', done);
        req.once('close', done);
      });
    }
  }
  return written;
}

interface Upload {
  status: number;
  connection: string | undefined;
  body: unknown;
  /** An error the client saw (EPIPE, ECONNRESET), or null. */
  error: string | null;
  /** Body bytes the client handed to its socket. */
  sent: number;
}

/**
 * POSTs a JSON body of `total` bytes with a real client: sends `first`
 * bytes, waits for the server's answer while still sending, then sends the
 * rest and reads the answer to its end.
 */
function upload(url: string, options: { total: number; first: number; declareLength: boolean }): Promise<Upload> {
  return new Promise((resolve) => {
    let error: string | null = null;
    let sent = 0;
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (options.declareLength) headers['content-length'] = options.total;
    const req = httpRequest(`${url}/tags`, { method: 'POST', headers, agent: false });
    const answered = new Promise<IncomingMessage | null>((settle) => {
      req.once('response', settle);
      req.once('error', (e: NodeJS.ErrnoException) => {
        error ??= e.code ?? e.message;
        settle(null);
      });
    });
    req.on('error', () => {});
    const closed = new Promise<void>((done) => req.once('close', done));
    void (async () => {
      req.write('{"name":"');
      sent += await writeFiller(req, options.first);
      const res = await answered;
      if (!res) return resolve({ status: 0, connection: undefined, body: undefined, error, sent });
      // The answer arrived while the body is still being sent: read it, and go on sending the rest (a
      // Node client stops by itself once the answer has ended with Connection: close).
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.once('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
      sent += await writeFiller(req, options.total - options.first - 11);
      if (!req.destroyed) req.end('"}');
      await closed;
      resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text ? JSON.parse(text) : undefined, error, sent });
    })();
  });
}

eachBackend('bodies refused while still arriving', (backend) => {
  const server = useServer(backend);

  const tagCount = async () => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM tags'))[0].n);

  it('answers 413 to an HTTP client still sending a body over the limit, with or without a declared length', async () => {
    const before = await tagCount();
    const declared = await upload(server.url, { total: LIMIT + 1024 * 1024, first: 256 * 1024, declareLength: true });
    assert.deepEqual({ ...declared, sent: undefined }, { status: 413, connection: 'close', body: TOO_LARGE, error: null, sent: undefined });
    const chunked = await upload(server.url, { total: LIMIT + 2 * 1024 * 1024, first: LIMIT + 64 * 1024, declareLength: false });
    assert.deepEqual({ ...chunked, sent: undefined }, { status: 413, connection: 'close', body: TOO_LARGE, error: null, sent: undefined });
    assert.equal(await tagCount(), before);
  });

  it('reads and discards the rest of a refused body from a client that sends it all, then closes without a reset', async () => {
    const before = await tagCount();
    const head = (framing: string) => `POST /api/tags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}\r\n`;
    const piece = Buffer.alloc(64 * 1024, 'x');
    const pieces = (count: number, frame = (b: Buffer): Array<string | Buffer> => [b]) => Array.from({ length: count }, () => frame(piece)).flat();

    const total = LIMIT + 1024 * 1024;
    const declared = await rawExchange(server.url, [head(`Content-Length: ${total}\r\n`), ...pieces(4)], { afterAnswer: pieces(total / piece.length - 4) });
    assert.equal(declared.responses.length, 1);
    assert.deepEqual([declared.responses[0].status, declared.responses[0].headers.connection, declared.responses[0].body], [413, 'close', TOO_LARGE]);
    assert.equal(declared.ended, 'closed', 'no reset while the rest of the body was sent');
    assert.equal(declared.written, Buffer.byteLength(head(`Content-Length: ${total}\r\n`)) + total, 'the whole body was sent');

    const chunk = (b: Buffer) => [`${b.length.toString(16)}\r\n`, b, '\r\n'];
    const chunked = await rawExchange(server.url, [head('Transfer-Encoding: chunked\r\n'), ...pieces(LIMIT / piece.length + 1, chunk)], {
      afterAnswer: [...pieces(16, chunk), '0\r\n\r\n'],
    });
    assert.deepEqual([chunked.responses[0].status, chunked.responses[0].headers.connection, chunked.responses[0].body], [413, 'close', TOO_LARGE]);
    assert.equal(chunked.ended, 'closed', 'no reset while the rest of the chunked body was sent');
    assert.equal(await tagCount(), before);
  });

  it('cuts the connection once a refused body goes on past the discard bound (16 MiB)', async () => {
    const piece = Buffer.alloc(64 * 1024, 'x');
    const total = 64 * 1024 * 1024;
    const exchange = await rawExchange(server.url, [`POST /api/tags HTTP/1.1\r\nHost: x\r\nContent-Length: ${total}\r\n\r\n`], {
      afterAnswer: Array.from({ length: total / piece.length }, () => piece),
    });
    assert.equal(exchange.responses[0]?.status, 413, 'the answer was read before the cut');
    assert.ok(exchange.ended === 'ECONNRESET' || exchange.ended === 'EPIPE', `the client saw the cut, got ${exchange.ended}`);
    assert.ok(exchange.written < total, 'the server did not read the whole 64 MiB');
  });
});

eachBackend('bodies that are not valid Unicode', (backend) => {
  const server = useServer(backend);
  let userId: string;
  before(async () => {
    userId = (await server.request('POST', '/users', { body: { name: 'Unicode', email: 'unicode@example.com', password: 'long enough' } })).body.data.id;
  });

  const count = async (table: string) => Number((await server.app.db.raw(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const post = (path: string, raw: string | Buffer, method = 'POST') => server.request(method, path, { raw, headers: { 'content-type': 'application/json' } });
  const surrogate = (where: string) =>
    `request body has an unpaired UTF-16 surrogate escape in ${where}; escape a character outside the BMP as a pair (\\ud83d\\ude00) or send it as UTF-8`;

  it('refuses an unpaired surrogate escape with 400 INVALID_JSON naming where it is, and writes nothing', async () => {
    const tags = await count('tags');
    const posts = await count('posts');
    const cases: Array<[string, string, string]> = [
      ['/tags', String.raw`{"name":"\ud800"}`, 'the value of "name"'],
      ['/tags', String.raw`{"name":"low \uDC00 alone"}`, 'the value of "name"'],
      ['/tags', String.raw`{"name":"reversed \udc00\ud800"}`, 'the value of "name"'],
      ['/tags', String.raw`{"\ud800":"x","name":"key"}`, 'the key "\\ud800"'],
      ['/posts', String.raw`{"title":"t","userId":"${userId}","keywords":["fine","\ud83d"]}`.replace('${userId}', userId), 'the value of "keywords[1]"'],
      ['/posts', String.raw`{"title":"t","userId":"${userId}","metadata":{"a":{"b":"\udfff"}}}`.replace('${userId}', userId), 'the value of "metadata.a.b"'],
    ];
    for (const [path, raw, where] of cases) {
      const res = await post(path, raw);
      assert.equal(res.status, 400, raw);
      assert.deepEqual(res.body, { error: { code: 'INVALID_JSON', message: surrogate(where) } }, raw);
    }
    assert.equal(await count('tags'), tags);
    assert.equal(await count('posts'), posts);
  });

  it('refuses bytes that are not UTF-8 with 400 INVALID_JSON naming the offset, and writes nothing', async () => {
    const tags = await count('tags');
    const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    const cases: Array<[Buffer, number]> = [
      [bytes('{"name":"', [0xff], '"}'), 9],
      [bytes('{"name":"é', [0xc3], '"}'), 11],
      // An overlong "/" and a surrogate encoded in three bytes (CESU-8) are not UTF-8 either.
      [bytes('{"name":"', [0xc0, 0xaf], '"}'), 9],
      [bytes('{"name":"ok', [0xed, 0xa0, 0x80], '"}'), 11],
    ];
    for (const [raw, offset] of cases) {
      const res = await post('/tags', raw);
      assert.equal(res.status, 400, raw.toString('hex'));
      assert.deepEqual(res.body, { error: { code: 'INVALID_JSON', message: `request body is not valid UTF-8 (byte ${offset} starts an invalid sequence); send JSON encoded as UTF-8` } });
    }
    assert.equal(await count('tags'), tags);
  });

  it('refuses them on update too, leaving the row as it was', async () => {
    const tag = (await server.request('POST', '/tags', { body: { name: 'before' } })).body.data;
    const res = await post(`/tags/${tag.id}`, String.raw`{"name":"\ud800"}`, 'PATCH');
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'INVALID_JSON');
    assert.equal((await server.request('GET', `/tags/${tag.id}`)).body.data.name, 'before');
  });

  it('stores well-formed text as sent: surrogate pairs, escaped or not', async () => {
    const escaped = await post('/tags', String.raw`{"name":"smile \ud83d\ude00 \u00e9"}`);
    assert.equal(escaped.status, 201);
    assert.equal(escaped.body.data.name, 'smile 😀 é');
    const literal = await post('/tags', Buffer.from('{"name":"grin 😁 \\\\ud800 is text"}'));
    assert.equal(literal.status, 201);
    assert.equal(literal.body.data.name, 'grin 😁 \\ud800 is text');
    const stored = await server.request('GET', `/tags/${escaped.body.data.id}`);
    assert.equal(stored.body.data.name, 'smile 😀 é');
  });
});
