// The values a create stores, column by column (store/model-store.ts, buildInsertParams): the
// body's value encoded for storage, the field's default for a key left out, null for a key
// sent as null or undefined (a hook's values), and the runtime's id and timestamps over
// whatever the values say. Read back from the table itself, not through the decoder.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A stored timestamp as text: PostgreSQL's driver reads it as a Date, SQLite holds the text. */
const text = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value));

eachBackend('the values a create stores', (backend) => {
  const server = useServer(backend);

  /** A user to own posts (Post.userId is a relation). */
  const userId = async () => {
    const res = await server.request('POST', '/users', { body: { name: 'Ada', email: `ada-${Math.random()}@example.com`, password: 'correct horse' } });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  };

  /** The stored row, as the database holds it. */
  const storedRow = async (id: string) => {
    const db = server.app.db;
    const sql = `SELECT status, views, rating, keywords, metadata, ${db.dialect.quote('publishedAt')} AS published, slug, created_at, updated_at, deleted_at FROM posts WHERE id = ${db.dialect.param(1)}`;
    const [row] = await db.all(sql, [id]);
    return row as Record<string, unknown>;
  };

  it('a key left out stores its default; a nullable one without a default stores null', async () => {
    const post = await server.app.store('Post').insert(server.app.db, { title: 'Defaults', userId: await userId() });
    const row = await storedRow(String(post.id));
    assert.equal(row.status, 'draft');
    assert.equal(Number(row.views), 0);
    assert.equal(row.rating, null);
    assert.equal(row.metadata, null);
    assert.equal(row.published, null);
    assert.equal(row.slug, null);
    assert.equal(row.deleted_at, null);
    assert.deepEqual(typeof row.keywords === 'string' ? JSON.parse(row.keywords) : row.keywords, []);
  });

  it('null and undefined store null; values are stored as sent, a timestamp as ISO text in UTC', async () => {
    const post = await server.app.store('Post').insert(server.app.db, {
      title: 'Sent',
      userId: await userId(),
      status: 'published',
      views: 7,
      rating: null,
      slug: undefined,
      metadata: { words: 3 },
      publishedAt: '2025-01-01T01:00:00+01:00',
    });
    const row = await storedRow(String(post.id));
    assert.equal(row.status, 'published');
    assert.equal(Number(row.views), 7);
    assert.equal(row.rating, null);
    assert.equal(row.slug, null);
    assert.deepEqual(typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata, { words: 3 });
    assert.equal(text(row.published), '2025-01-01T00:00:00.000Z');
    assert.equal(post.publishedAt, '2025-01-01T00:00:00.000Z');
  });

  it('the id and timestamps are the runtime\'s, whatever the values carry', async () => {
    const post = await server.app.store('Post').insert(server.app.db, {
      title: 'Base',
      userId: await userId(),
      id: 'chosen-by-caller',
      created_at: '2000-01-01T00:00:00.000Z',
      updated_at: '2000-01-01T00:00:00.000Z',
    });
    assert.match(String(post.id), uuid);
    const row = await storedRow(String(post.id));
    assert.notEqual(text(row.created_at), '2000-01-01T00:00:00.000Z');
    assert.equal(text(row.created_at), text(row.updated_at));
    assert.equal(text(row.created_at), post.created_at);
  });
});
