// Requests Node's HTTP parser refuses (or would answer itself) get the error envelope, X-Request-Id and a closing connection.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type RawResponse, rawExchange } from '../support/raw-http.js';
import { eachBackend, useServer } from '../support/suite.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The one answer of a raw exchange: the envelope with its code and message, X-Request-Id, and a closed connection. */
function assertRefused(exchange: { responses: RawResponse[]; ended: string }, status: number, code: string, message: string): RawResponse {
  assert.equal(exchange.responses.length, 1, `one answer, got ${exchange.responses.length}`);
  const [res] = exchange.responses;
  assert.equal(res.status, status, res.text);
  assert.deepEqual(res.body, { error: { code, message } });
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.match(res.headers['x-request-id'], UUID);
  assert.equal(res.headers['x-service-name'], 'refusals');
  assert.equal(res.headers.connection, 'close');
  assert.equal(exchange.ended, 'closed', 'the server closed the connection without a reset');
  return res;
}

const URI_TOO_LONG = 'request URI is longer than 8192 bytes; move long filters into fewer clauses';
const HEADERS_TOO_LARGE = 'request line and headers are larger than 65536 bytes together; send fewer or shorter headers';

eachBackend('requests refused before routing', (backend) => {
  const server = useServer(backend, { config: { serviceName: 'refusals' } });

  const tagCount = async () => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM tags'))[0].n);
  const send = (...parts: Array<string | Buffer>) => rawExchange(server.url, parts);
  const get = (target: string, headers = 'Host: x\r\n') => `GET ${target} HTTP/1.1\r\n${headers}\r\n`;

  it('answers 414 URI_TOO_LONG for a URI past the 64 KiB head limit, however it arrives', async () => {
    for (const size of [70 * 1024, 130 * 1024, 300 * 1024]) {
      assertRefused(await send(get(`/api/tags?q=${'a'.repeat(size)}`)), 414, 'URI_TOO_LONG', URI_TOO_LONG);
    }
    // In pieces: the parser's limit is hit in the middle of the URI, before its line ends.
    const pieces = [`GET /api/tags?q=`, ...Array.from({ length: 20 }, () => 'b'.repeat(5000)), ' HTTP/1.1\r\nHost: x\r\n\r\n'];
    assertRefused(await send(...pieces), 414, 'URI_TOO_LONG', URI_TOO_LONG);
    // Between 8 and 64 KiB the router refuses it, and the connection stays usable.
    const routed = await rawExchange(server.url, [get(`/api/tags?q=${'c'.repeat(20 * 1024)}`) + get('/api/tags')], { untilResponses: 2 });
    assert.deepEqual(routed.responses.map((r) => r.status), [414, 200]);
    assert.equal(routed.responses[0].body.error.code, 'URI_TOO_LONG');
  });

  it('answers 431 HEADERS_TOO_LARGE for headers past the 64 KiB head limit', async () => {
    for (const size of [70 * 1024, 200 * 1024]) {
      assertRefused(await send(get('/api/tags', `Host: x\r\nX-Big: ${'h'.repeat(size)}\r\n`)), 431, 'HEADERS_TOO_LARGE', HEADERS_TOO_LARGE);
    }
    const many = Array.from({ length: 1500 }, (_, i) => `X-Header-${i}: ${'v'.repeat(40)}\r\n`).join('');
    assertRefused(await send(get('/api/tags', `Host: x\r\n${many}`)), 431, 'HEADERS_TOO_LARGE', HEADERS_TOO_LARGE);
    // A long URI with the headers pushing the head over: the line that overflowed is a header.
    assertRefused(await send(get(`/api/tags?q=${'u'.repeat(30 * 1024)}`, `Host: x\r\nX-Big: ${'h'.repeat(40 * 1024)}\r\n`)), 431, 'HEADERS_TOO_LARGE', HEADERS_TOO_LARGE);
  });

  it('answers 501 METHOD_NOT_IMPLEMENTED for a method HTTP does not define, and for CONNECT', async () => {
    assertRefused(await send('FROB /api/tags HTTP/1.1\r\nHost: x\r\n\r\n'), 501, 'METHOD_NOT_IMPLEMENTED', 'not implemented');
    assertRefused(await send('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), 501, 'METHOD_NOT_IMPLEMENTED', 'not implemented');
  });

  it('answers 400 BAD_REQUEST for broken framing and invalid header bytes, and writes nothing', async () => {
    const before = await tagCount();
    const post = (headers: string, body: string) => `POST /api/tags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}\r\n${body}`;
    assertRefused(
      await send(post('Transfer-Encoding: chunked\r\n', 'zz\r\n{"name":"broken chunk"}\r\n0\r\n\r\n')),
      400,
      'BAD_REQUEST',
      "the request is not valid HTTP/1.1 (Invalid character in chunk size); fix the request's framing",
    );
    assertRefused(
      await send(post('Content-Length: 21\r\nTransfer-Encoding: chunked\r\n', '15\r\n{"name":"smuggled"}\r\n0\r\n\r\n')),
      400,
      'BAD_REQUEST',
      "the request is not valid HTTP/1.1 (Transfer-Encoding can't be present with Content-Length); fix the request's framing",
    );
    assertRefused(
      await send(get('/api/tags', 'Host: x\r\nX-Note: a\0b\r\n')),
      400,
      'BAD_REQUEST',
      'a header has a character HTTP does not allow (Invalid header value char); NUL and other control characters are refused',
    );
    assertRefused(await send('GET /api/tags HTTP/1.1\r\n\r\n'), 400, 'BAD_REQUEST', 'an HTTP/1.1 request needs a Host header; send Host: <the server name>');
    assert.equal(await tagCount(), before);
  });

  it('answers an HTTP/1.0 request without Host as usual', async () => {
    const { responses } = await send('GET /api/tags HTTP/1.0\r\n\r\n');
    assert.equal(responses[0].status, 200);
  });

  it('answers 417 EXPECTATION_FAILED for an Expect other than 100-continue', async () => {
    const { responses } = await rawExchange(server.url, [get('/api/tags', 'Host: x\r\nExpect: teapot\r\n')], { untilResponses: 1 });
    assert.equal(responses[0].status, 417);
    assert.deepEqual(responses[0].body, { error: { code: 'EXPECTATION_FAILED', message: 'Expect: teapot is not supported; send Expect: 100-continue or no Expect header' } });
    assert.match(responses[0].headers['x-request-id'], UUID);
  });

  it('serves an Upgrade request as plain HTTP/1.1 and closes its connection, which Node would no longer read', async () => {
    const upgrade = get('/api/tags', 'Host: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n');
    const exchange = await send(upgrade + get('/api/tags'));
    assert.equal(exchange.responses.length, 1);
    assert.equal(exchange.responses[0].status, 200);
    assert.equal(exchange.responses[0].headers.connection, 'close');
    assert.equal(exchange.ended, 'closed');
  });

  it('logs each refusal with its request id', async () => {
    const exchange = await send('FROB /api/tags HTTP/1.1\r\nHost: x\r\n\r\n');
    const id = exchange.responses[0].headers['x-request-id'];
    const line = await server.logLine((l) => l.fields.requestId === id);
    assert.equal(line.message, 'request refused before routing');
    assert.equal(line.fields.status, 501);
    assert.equal(line.fields.code, 'METHOD_NOT_IMPLEMENTED');
  });
});
