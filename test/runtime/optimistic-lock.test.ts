// Optimistic locking: ETag on locked models, If-Match on PATCH and DELETE, and the etag() cache hook.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import { etag, transaction } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';

const md5 = (text: string) => `"${createHash('md5').update(text).digest('hex')}"`;

eachBackend('optimistic locking', (backend) => {
  const server = useServer(backend, {
    fixture: 'lifecycle',
    setup(app) {
      app.use('service', async (ctx, next) => {
        if (ctx.req.headers['x-tx'] === 'yes') return transaction()(ctx, next);
        await next();
      }, { models: ['Note'] });
      app.use('response', etag(), { position: 'after', models: ['Order'], ops: ['read', 'list'] });
    },
  });

  const note = async (title = 'locked') => (await server.request('POST', '/notes', { body: { title } })).body.data;
  const titleOf = async (id: string) => (await server.app.db.raw('SELECT title FROM notes WHERE id = ?', [id]))[0]?.title;

  it('sends the quoted MD5 of the JSON body as ETag on reads and writes of a locked model', async () => {
    const created = await server.request('POST', '/notes', { body: { title: 'etag' } });
    assert.equal(created.headers.get('etag'), md5(created.text));
    const read = await server.request('GET', `/notes/${created.body.data.id}`);
    assert.equal(read.headers.get('etag'), md5(read.text));
    assert.equal(read.headers.get('etag'), created.headers.get('etag'));
    const patched = await server.request('PATCH', `/notes/${created.body.data.id}`, { body: { title: 'etag 2' } });
    assert.equal(patched.headers.get('etag'), md5(patched.text));
    assert.equal((await server.request('GET', '/tasks')).headers.get('etag'), null, 'unlocked models carry none without etag()');
  });

  it('a read with select carries the ETag of the stored record, so If-Match with it proceeds', async () => {
    const created = await note('viewed');
    const full = await server.request('GET', `/notes/${created.id}`);
    const partial = await server.request('GET', `/notes/${created.id}?select=title`);
    assert.deepEqual(partial.body.data, { title: 'viewed' });
    assert.notEqual(md5(partial.text), full.headers.get('etag'));
    assert.equal(partial.headers.get('etag'), full.headers.get('etag'));
    const patched = await server.request('PATCH', `/notes/${created.id}`, { headers: { 'if-match': partial.headers.get('etag')! }, body: { title: 'kept' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(await titleOf(created.id), 'kept');
  });

  it('PATCH with a matching If-Match proceeds; a stale one is 412 and writes nothing', async () => {
    const n = await note();
    const tag = (await server.request('GET', `/notes/${n.id}`)).headers.get('etag')!;
    const ok = await server.request('PATCH', `/notes/${n.id}`, { body: { title: 'v2' }, headers: { 'If-Match': tag } });
    assert.equal(ok.status, 200);
    const stale = await server.request('PATCH', `/notes/${n.id}`, { body: { title: 'v3' }, headers: { 'If-Match': tag } });
    assert.equal(stale.status, 412);
    assert.deepEqual(stale.body.error, {
      code: 'PRECONDITION_FAILED',
      message: `If-Match does not match the current ETag of Note "${n.id}"; read the record again and retry with its ETag`,
    });
    assert.equal(await titleOf(n.id), 'v2');
    const listed = await server.request('PATCH', `/notes/${n.id}`, { body: { title: 'v4' }, headers: { 'If-Match': `"nope", ${ok.headers.get('etag')}` } });
    assert.equal(listed.status, 200, 'any tag of a list may match');
  });

  it('DELETE with a stale If-Match is 412 and keeps the record; a matching one deletes', async () => {
    const n = await note('to delete');
    const stale = await server.request('DELETE', `/notes/${n.id}`, { headers: { 'If-Match': '"0123"' } });
    assert.equal(stale.status, 412);
    assert.equal(stale.body.error.code, 'PRECONDITION_FAILED');
    assert.equal((await server.request('GET', `/notes/${n.id}`)).status, 200);
    const tag = (await server.request('GET', `/notes/${n.id}`)).headers.get('etag')!;
    assert.equal((await server.request('DELETE', `/notes/${n.id}`, { headers: { 'If-Match': tag } })).status, 204);
  });

  it('If-Match: * succeeds for an existing record and is 404 for a missing one; no header means no check', async () => {
    const n = await note();
    assert.equal((await server.request('PATCH', `/notes/${n.id}`, { body: { title: 'star' }, headers: { 'If-Match': '*' } })).status, 200);
    const missing = await server.request('PATCH', '/notes/missing', { body: { title: 'x' }, headers: { 'If-Match': '*' } });
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body.error, { code: 'NOT_FOUND', message: 'no Note with id "missing"' });
    assert.equal((await server.request('DELETE', '/notes/missing', { headers: { 'If-Match': '*' } })).status, 404);
    assert.equal((await server.request('PATCH', `/notes/${n.id}`, { body: { title: 'unchecked' } })).status, 200);
  });

  it('inside an existing transaction the guard joins it', async () => {
    const n = await note();
    const tag = (await server.request('GET', `/notes/${n.id}`)).headers.get('etag')!;
    const ok = await server.request('PATCH', `/notes/${n.id}`, { body: { title: 'in tx' }, headers: { 'If-Match': tag, 'x-tx': 'yes' } });
    assert.equal(ok.status, 200);
    const stale = await server.request('PATCH', `/notes/${n.id}`, { body: { title: 'stale in tx' }, headers: { 'If-Match': tag, 'x-tx': 'yes' } });
    assert.equal(stale.status, 412);
    assert.equal(await titleOf(n.id), 'in tx');
  });

  it('N concurrent PATCHes with the same ETag: exactly one succeeds, the rest are 412', async () => {
    const n = await note('race');
    const tag = (await server.request('GET', `/notes/${n.id}`)).headers.get('etag')!;
    const count = 10;
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) => server.request('PATCH', `/notes/${n.id}`, { body: { title: `winner ${i}` }, headers: { 'If-Match': tag } })),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, ...Array(count - 1).fill(412)]);
    const winner = results.find((r) => r.status === 200)!;
    assert.equal(await titleOf(n.id), winner.body.data.title);
    const versions = await server.app.db.raw('SELECT COUNT(*) AS n FROM note_history WHERE record_id = ?', [n.id]);
    assert.equal(Number(versions[0].n), 2, 'one create and one update');
  });

  it('N concurrent DELETEs with the same ETag: exactly one succeeds', async () => {
    const n = await note('delete race');
    const tag = (await server.request('GET', `/notes/${n.id}`)).headers.get('etag')!;
    const results = await Promise.all(Array.from({ length: 6 }, () => server.request('DELETE', `/notes/${n.id}`, { headers: { 'If-Match': tag } })));
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 204).length, 1);
    assert.ok(statuses.every((s) => s === 204 || s === 404 || s === 412), statuses.join());
  });

  it('etag() adds ETag to reads and lists and answers If-None-Match with 304', async () => {
    const order = (await server.request('POST', '/orders', { body: { item: 'tea', quantity: 1 } })).body.data;
    const read = await server.request('GET', `/orders/${order.id}`);
    assert.equal(read.headers.get('etag'), md5(read.text));
    const again = await server.request('GET', `/orders/${order.id}`, { headers: { 'If-None-Match': read.headers.get('etag')! } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const list = await server.request('GET', '/orders');
    assert.equal(list.headers.get('etag'), md5(list.text));
  });
});
