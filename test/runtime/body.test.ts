// The Deserialize step's body rules and the URI limit.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('request bodies', (backend) => {
  const server = useServer(backend);

  const tagCount = async () => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM tags'))[0].n);

  it('refuses a body over 4 MB with 413 BODY_TOO_LARGE and writes nothing', async () => {
    const before = await tagCount();
    const huge = JSON.stringify({ name: 'x'.repeat(4 * 1024 * 1024) });
    const res = await server.request('POST', '/tags', { raw: huge, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, 'BODY_TOO_LARGE');
    assert.equal(await tagCount(), before);
  });

  it('accepts a body just under the limit', async () => {
    // A column without a unique index: PostgreSQL cannot index a value this large.
    const country = 'y'.repeat(4 * 1024 * 1024 - 40);
    const res = await server.request('POST', '/companies', { body: { name: 'Big', country } });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.country.length, country.length);
  });

  it('answers 400 EMPTY_BODY for an empty body', async () => {
    for (const raw of ['', '   \n']) {
      const res = await server.request('POST', '/tags', { raw, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'EMPTY_BODY');
    }
    const patch = await server.request('PATCH', '/tags/anything', { raw: '' });
    assert.equal(patch.body.error.code, 'EMPTY_BODY');
  });

  it('answers 400 INVALID_JSON for malformed JSON and for JSON that is not an object', async () => {
    const before = await tagCount();
    for (const raw of ['{"name": ', 'not json', '[]', '[{"name":"a"}]', 'null', '"text"', '42', 'true']) {
      const res = await server.request('POST', '/tags', { raw, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, raw);
      assert.equal(res.body.error.code, 'INVALID_JSON', raw);
    }
    assert.equal(await tagCount(), before);
  });

  it('answers 501 NO_STORAGE for multipart without file storage', async () => {
    const form = new FormData();
    form.set('name', 'multipart');
    const response = await fetch(`${server.url}/tags`, { method: 'POST', body: form });
    assert.equal(response.status, 501);
    assert.equal((await response.json()).error.code, 'NO_STORAGE');
  });

  it('answers 414 URI_TOO_LONG for a request URI over 8 KiB, before routing', async () => {
    const long = await server.request('GET', `/tags?q=${'a'.repeat(8 * 1024)}`);
    assert.equal(long.status, 414);
    assert.equal(long.body.error.code, 'URI_TOO_LONG');
    const unrouted = await server.request('GET', `/no-such-route?x=${'a'.repeat(8 * 1024)}`);
    assert.equal(unrouted.status, 414);
    const fine = await server.request('GET', `/tags?x=${'a'.repeat(7 * 1024)}`);
    assert.equal(fine.status, 200);
  });
});
