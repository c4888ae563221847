// The Validate step: directive rules, stripping, defaults, null handling, and constraint errors.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('validation', (backend) => {
  let userId: string;
  const server = useServer(backend);
  before(async () => {
    const user = await server.request('POST', '/users', { body: { name: 'Grace', email: 'grace@example.com', password: 'hopper1906' } });
    userId = user.body.data.id;
  });

  const count = async (table: string) => Number((await server.app.db.raw(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);

  /** Sends a create that must fail with 422 and writes nothing; returns the details. */
  const refusedCreate = async (path: string, table: string, body: unknown) => {
    const before = await count(table);
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    assert.equal(await count(table), before, 'a refused create wrote nothing');
    return res.body.error.details as { field: string; message: string }[];
  };

  it('lists every failing field in one 422, in field order', async () => {
    const details = await refusedCreate('/users', 'users', { role: 'boss', password: 'short' });
    assert.deepEqual(details, [
      { field: 'name', message: 'is required' },
      { field: 'email', message: 'is required' },
      { field: 'password', message: 'must be at least 8 characters long' },
      { field: 'role', message: 'must be one of: admin, editor, member' },
    ]);
  });

  it('checks minlen, maxlen, min, max and integer types', async () => {
    assert.deepEqual(await refusedCreate('/users', 'users', { name: 'A', email: 'a@example.com' }), [
      { field: 'name', message: 'must be at least 2 characters long' },
    ]);
    assert.deepEqual(await refusedCreate('/users', 'users', { name: 'x'.repeat(81), email: 'a@example.com' }), [
      { field: 'name', message: 'must be at most 80 characters long' },
    ]);
    assert.deepEqual(await refusedCreate('/posts', 'posts', { title: 'T', userId, views: -1, rating: 6 }), [
      { field: 'views', message: 'must be at least 0' },
      { field: 'rating', message: 'must be at most 5' },
    ]);
    assert.deepEqual(await refusedCreate('/posts', 'posts', { title: 'T', userId, views: 1.5 }), [
      { field: 'views', message: 'must be an integer' },
    ]);
    assert.deepEqual(await refusedCreate('/posts', 'posts', { title: 'T', userId, views: '3' }), [
      { field: 'views', message: 'must be an integer' },
    ]);
    assert.deepEqual(await refusedCreate('/posts', 'posts', { title: 'T', userId, publishedAt: 'yesterday' }), [
      { field: 'publishedAt', message: 'must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z' },
    ]);
  });

  it('refuses null for a non-nullable field, telling the client how to fix it', async () => {
    const details = await refusedCreate('/posts', 'posts', { title: null, userId });
    assert.equal(details.length, 1);
    assert.equal(details[0].field, 'title');
    assert.match(details[0].message, /must not be null/);
    assert.match(details[0].message, /omit the field/);
    assert.match(details[0].message, /nullable/);

    const post = (await server.request('POST', '/posts', { body: { title: 'T', userId } })).body.data;
    const patch = await server.request('PATCH', `/posts/${post.id}`, { body: { body: null } });
    assert.equal(patch.status, 422);
    assert.equal(patch.body.error.details[0].field, 'body');
    const unchanged = await server.request('GET', `/posts/${post.id}`);
    assert.equal(unchanged.body.data.body, '');
  });

  it('keeps null, empty string and omitted distinct', async () => {
    const withNull = (await server.request('POST', '/users', { body: { name: 'N1', email: 'n1@example.com', bio: null } })).body.data;
    const withEmpty = (await server.request('POST', '/users', { body: { name: 'N2', email: 'n2@example.com', bio: '' } })).body.data;
    const omitted = (await server.request('POST', '/users', { body: { name: 'N3', email: 'n3@example.com' } })).body.data;
    assert.equal(withNull.bio, null);
    assert.equal(withEmpty.bio, '');
    assert.equal(omitted.bio, null);

    await server.request('PATCH', `/users/${withEmpty.id}`, { body: { name: 'N2b' } });
    assert.equal((await server.request('GET', `/users/${withEmpty.id}`)).body.data.bio, '', 'an omitted key leaves the value');
    await server.request('PATCH', `/users/${withEmpty.id}`, { body: { bio: null } });
    assert.equal((await server.request('GET', `/users/${withEmpty.id}`)).body.data.bio, null, 'null on a nullable field writes NULL');
  });

  it('ignores id, base columns, readonly, hidden and unknown keys; strips immutable on update', async () => {
    const res = await server.request('POST', '/posts', {
      body: {
        id: 'chosen-by-client',
        created_at: '2000-01-01T00:00:00Z',
        updated_at: '2000-01-01T00:00:00Z',
        deleted_at: '2000-01-01T00:00:00Z',
        title: 'Stripped',
        slug: 'stripped',
        userId,
        notAField: 1,
      },
    });
    assert.equal(res.status, 201, res.text);
    const post = res.body.data;
    assert.notEqual(post.id, 'chosen-by-client');
    assert.notEqual(post.created_at, '2000-01-01T00:00:00.000Z');
    assert.equal(post.deleted_at, null, 'a soft-delete marker in the body is ignored');
    assert.equal('notAField' in post, false);
    assert.equal(post.slug, 'stripped', 'immutable fields are accepted on create');

    const patched = await server.request('PATCH', `/posts/${post.id}`, { body: { slug: 'changed', title: 'Renamed', id: 'x' } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.slug, 'stripped', 'immutable fields are stripped on update');
    assert.equal(patched.body.data.title, 'Renamed');
    assert.equal(patched.body.data.id, post.id);

    const user = await server.request('POST', '/users', { body: { name: 'Hidden', email: 'hidden@example.com', loginCount: 99 } });
    assert.equal(user.status, 201);
    const rows = await server.app.db.raw('SELECT "loginCount" FROM users WHERE id = ?', [user.body.data.id]);
    assert.equal(Number(rows[0].loginCount), 0, 'a hidden field is not writable');
  });

  it('answers 409 CONFLICT naming table and column on a unique violation, and writes nothing', async () => {
    const before = await count('users');
    const res = await server.request('POST', '/users', { body: { name: 'Grace Two', email: 'grace@example.com' } });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'CONFLICT');
    assert.equal(res.body.error.details.table, 'users');
    assert.equal(res.body.error.details.column, 'email');
    assert.equal(typeof res.body.error.details.detail, 'string');
    assert.equal(await count('users'), before);

    const other = (await server.request('POST', '/users', { body: { name: 'Other', email: 'other@example.com' } })).body.data;
    const patch = await server.request('PATCH', `/users/${other.id}`, { body: { email: 'grace@example.com' } });
    assert.equal(patch.status, 409);
    assert.equal((await server.request('GET', `/users/${other.id}`)).body.data.email, 'other@example.com');
  });

  it('answers 409 FOREIGN_KEY_VIOLATION for a write naming a missing parent', async () => {
    const before = await count('posts');
    const res = await server.request('POST', '/posts', { body: { title: 'Orphan', userId: '00000000-0000-4000-8000-000000000000' } });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'FOREIGN_KEY_VIOLATION');
    assert.equal(await count('posts'), before);
  });
});
