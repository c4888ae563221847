// Generated model routes: envelopes, statuses and the shapes of records.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

eachBackend('generated routes', (backend) => {
  const server = useServer(backend);

  const createUser = async (overrides: Record<string, unknown> = {}) => {
    const res = await server.request('POST', '/users', {
      body: { name: 'Ada Lovelace', email: `ada-${Math.random()}@example.com`, password: 'correct horse', ...overrides },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };

  it('POST answers 201 with the created record, its id and timestamps', async () => {
    const res = await server.request('POST', '/companies', { body: { name: 'Analytical Engines' } });
    assert.equal(res.status, 201);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const data = res.body.data;
    assert.match(data.id, uuid);
    assert.match(data.created_at, iso);
    assert.equal(data.created_at, data.updated_at);
    assert.equal(data.name, 'Analytical Engines');
    assert.equal(data.country, null);
    assert.deepEqual(Object.keys(res.body), ['data']);
  });

  it('never returns writeonly or hidden fields, and applies defaults', async () => {
    const user = await createUser();
    assert.equal('password' in user, false);
    assert.equal('loginCount' in user, false);
    assert.equal(user.role, 'member');
    assert.equal(user.bio, null);

    const read = await server.request('GET', `/users/${user.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, { data: user });
    const list = await server.request('GET', '/users');
    for (const row of list.body.data) {
      assert.equal('password' in row, false);
      assert.equal('loginCount' in row, false);
    }
  });

  it('GET by id answers 200 with data, 404 NOT_FOUND for a missing id', async () => {
    const user = await createUser();
    const ok = await server.request('GET', `/users/${user.id}`);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.id, user.id);

    const missing = await server.request('GET', '/users/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    assert.match(missing.body.error.message, /User/);
  });

  it('PATCH changes only the keys sent and refreshes updated_at', async (t) => {
    // The clock moves on between the create and the PATCH because the test moves it, not because time passed.
    t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-03-01T09:00:00.000Z') });
    const user = await createUser({ bio: 'mathematician' });
    t.mock.timers.tick(1000);
    const res = await server.request('PATCH', `/users/${user.id}`, { body: { name: 'Augusta Ada King' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.name, 'Augusta Ada King');
    assert.equal(res.body.data.bio, 'mathematician');
    assert.equal(res.body.data.email, user.email);
    assert.equal(res.body.data.created_at, user.created_at);
    assert.ok(res.body.data.updated_at > user.updated_at);

    const missing = await server.request('PATCH', '/users/00000000-0000-4000-8000-000000000000', { body: { name: 'Nobody' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
  });

  it('DELETE answers 204 with no body; the record is gone; a second DELETE is 404', async () => {
    const user = await createUser();
    const res = await server.request('DELETE', `/users/${user.id}`);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assert.equal((await server.request('GET', `/users/${user.id}`)).status, 404);
    const again = await server.request('DELETE', `/users/${user.id}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, 'NOT_FOUND');
  });

  it('stores and returns every column type in its JSON shape', async () => {
    const user = await createUser();
    const res = await server.request('POST', '/posts', {
      body: {
        title: 'Notes',
        body: 'On the engine',
        views: 7,
        rating: 4.5,
        keywords: ['math', 'engines'],
        metadata: { pages: 65, translated: true, nested: { a: [1, 2] } },
        publishedAt: '1843-09-01T12:00:00+02:00',
        userId: user.id,
      },
    });
    assert.equal(res.status, 201, res.text);
    const post = res.body.data;
    assert.equal(post.views, 7);
    assert.equal(post.rating, 4.5);
    assert.deepEqual(post.keywords, ['math', 'engines']);
    assert.deepEqual(post.metadata, { pages: 65, translated: true, nested: { a: [1, 2] } });
    assert.equal(post.publishedAt, '1843-09-01T10:00:00.000Z');
    assert.equal(post.status, 'draft');
    assert.equal(post.slug, null);

    const comment = await server.request('POST', '/comments', { body: { body: 'Bravo', postId: post.id } });
    assert.equal(comment.status, 201, comment.text);
    assert.equal(comment.body.data.approved, true);
    const unapproved = await server.request('POST', '/comments', { body: { body: 'Hmm', postId: post.id, approved: false } });
    assert.equal(unapproved.body.data.approved, false);
    const read = await server.request('GET', `/comments/${unapproved.body.data.id}`);
    assert.equal(read.body.data.approved, false);
    assert.equal(read.body.data.deleted_at, null);
  });

  it('GET list answers data and meta {total, page, limit, pages}', async () => {
    for (const name of ['Tag A', 'Tag B', 'Tag C']) {
      assert.equal((await server.request('POST', '/tags', { body: { name } })).status, 201);
    }
    const res = await server.request('GET', '/tags?limit=2');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.length, 2);
    assert.deepEqual(res.body.meta, { total: 3, page: 1, limit: 2, pages: 2 });
    const second = await server.request('GET', '/tags?limit=2&page=2');
    assert.equal(second.body.data.length, 1);
    assert.deepEqual(second.body.meta, { total: 3, page: 2, limit: 2, pages: 2 });
    const ids = new Set([...res.body.data, ...second.body.data].map((t: { id: string }) => t.id));
    assert.equal(ids.size, 3);
    const beyond = await server.request('GET', '/tags?page=9');
    assert.deepEqual(beyond.body, { data: [], meta: { total: 3, page: 9, limit: 20, pages: 1 } });
  });

  it('limit defaults to 20 and is clamped to 200; bad paging is 400 INVALID_QUERY', async () => {
    assert.equal((await server.request('GET', '/tags')).body.meta.limit, 20);
    assert.equal((await server.request('GET', '/tags?limit=500')).body.meta.limit, 200);
    for (const query of ['limit=0', 'limit=-1', 'limit=abc', 'page=0', 'page=-2', 'page=x', 'limit=1.5']) {
      const res = await server.request('GET', `/tags?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, 'INVALID_QUERY', query);
    }
  });

  it('soft-delete models are marked, not removed, and disappear from reads', async () => {
    const user = await createUser();
    const post = (await server.request('POST', '/posts', { body: { title: 'Draft', userId: user.id } })).body.data;
    const comment = (await server.request('POST', '/comments', { body: { body: 'First', postId: post.id } })).body.data;
    assert.equal((await server.request('DELETE', `/comments/${comment.id}`)).status, 204);
    assert.equal((await server.request('GET', `/comments/${comment.id}`)).status, 404);
    assert.equal((await server.request('DELETE', `/comments/${comment.id}`)).status, 404);
    const rows = await server.app.db.raw('SELECT deleted_at FROM comments WHERE id = ?', [comment.id]);
    assert.equal(rows.length, 1);
    assert.ok(rows[0].deleted_at);
  });

  it('unknown paths answer 404 and unsupported methods 405 with Allow', async () => {
    const unknown = await server.request('GET', '/nothing-here');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'NOT_FOUND');
    const put = await server.request('PUT', '/tags', { body: { name: 'x' } });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
    const postItem = await server.request('POST', '/tags/abc', { body: { name: 'x' } });
    assert.equal(postItem.status, 405);
    assert.equal(postItem.headers.get('allow'), 'GET, HEAD, PATCH, DELETE, OPTIONS');
  });

  it('HEAD answers like the GET it mirrors, without a body', async () => {
    const user = await createUser();
    const get = await server.request('GET', `/users/${user.id}`);
    const head = await server.request('HEAD', `/users/${user.id}`);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('content-length'), get.headers.get('content-length'));
    assert.equal((await server.request('HEAD', '/users/00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await server.request('HEAD', '/users')).status, 200);
  });

  it('OPTIONS answers 204 with the allowed methods', async () => {
    const collection = await server.request('OPTIONS', '/users');
    assert.equal(collection.status, 204);
    assert.equal(collection.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
    const item = await server.request('OPTIONS', '/users/anything');
    assert.equal(item.status, 204);
    assert.equal(item.headers.get('allow'), 'GET, HEAD, PATCH, DELETE, OPTIONS');
  });
});
