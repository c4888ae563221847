// Issue 14, defect 6: include output is bounded. A list relation carries at
// most maxIncludePerParent records per parent (the rest cut, the parent
// marked in `_truncated`); a response at most maxIncludeRows related records
// counted as sent (400 INVALID_QUERY beyond), and the statement reads no
// more than that. Configurable per model and per app, and documented.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Context, Executor } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';

/** Wraps an executor so the row count of every `all` is recorded. */
function recordingRows(inner: Executor, counts: number[]): Executor {
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'all') {
        return async (...args: unknown[]) => {
          const rows = (await (value as (...a: unknown[]) => Promise<unknown[]>).apply(target, args)) as unknown[];
          counts.push(rows.length);
          return rows;
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const TOO_MANY = (cap: number) => ({
  error: {
    code: 'INVALID_QUERY',
    message: `include would send more than ${cap} related records (query_limits:maxIncludeRows); ask for fewer records with limit, or include fewer relations`,
  },
});

eachBackend('include caps per parent and per response', (backend) => {
  const server = useServer(backend, { overrides: { Post: { queryLimits: { maxIncludePerParent: 3, maxIncludeRows: 30 } } } });
  const ids: Record<string, string> = {};
  const comments: string[] = [];
  before(async () => {
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await server.request('POST', path, { body });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    };
    ids.user = await post('/users', { name: 'Ada', email: 'ada@example.com', password: 'correct horse' });
    for (const title of ['a', 'b', 'c', 'd']) ids[title] = await post('/posts', { title, userId: ids.user });
    for (let i = 0; i < 5; i++) comments.push(await post('/comments', { body: `on a ${i}`, postId: ids.a }));
    for (let i = 0; i < 2; i++) await post('/comments', { body: `on b ${i}`, postId: ids.b });
    for (const tag of ['t1', 't2']) {
      ids[tag] = await post('/tags', { name: tag });
      for (const title of ['a', 'b', 'c', 'd']) await post('/post_tags', { postId: ids[title], tagId: ids[tag] });
    }
  });

  const byTitle = (rows: any[]) => Object.fromEntries(rows.map((r) => [r.title, r]));

  it('cuts a list relation at the per-parent cap, keeping the first by id, and marks the parent', async () => {
    const res = await server.request('GET', '/posts?include=comments');
    assert.equal(res.status, 200);
    const posts = byTitle(res.body.data);
    assert.deepEqual(posts.a.comments.map((c: any) => c.id), [...comments].sort().slice(0, 3));
    assert.deepEqual(posts.a._truncated, ['comments']);
    assert.equal(posts.b.comments.length, 2);
    assert.equal('_truncated' in posts.b, false, 'a list under the cap is whole and unmarked');
    assert.deepEqual(posts.c.comments, []);
    assert.equal('_truncated' in posts.c, false);
  });

  it('marks reads and select responses the same way', async () => {
    const read = (await server.request('GET', `/posts/${ids.a}?include=comments,author`)).body.data;
    assert.equal(read.comments.length, 3);
    assert.deepEqual(read._truncated, ['comments']);
    assert.equal(read.author.id, ids.user);
    const selected = byTitle((await server.request('GET', '/posts?include=comments&select=title')).body.data);
    assert.deepEqual(Object.keys(selected.a).sort(), ['_truncated', 'comments', 'title']);
  });

  it('counts nested records as sent: a tag under four posts counts four times, and beyond the cap the request is 400', async () => {
    // 4 posts x 2 tags = 8, then each tag's posts (cut to 3) under each of its 4 parents: 2 x 3 x 4 = 24; 32 > 30.
    const refused = await server.request('GET', '/posts?include=tags.posts');
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, TOO_MANY(30));
    // Three posts: 6 + 2 x 3 x 3 = 24.
    const page = await server.request('GET', '/posts?include=tags.posts&limit=3');
    assert.equal(page.status, 200);
    for (const post of page.body.data) {
      assert.equal(post.tags.length, 2);
      assert.equal('_truncated' in post, false);
      for (const tag of post.tags) {
        assert.equal(tag.posts.length, 3);
        assert.deepEqual(tag._truncated, ['posts']);
      }
    }
    assert.equal((await server.request('GET', `/posts/${ids.a}?include=tags.posts`)).status, 200);
  });

  it('documents the caps on the include parameter and the marker on the record schemas', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    const include = doc.paths['/posts'].get.parameters.find((p: any) => p.name === 'include');
    assert.match(include.description, /at most 3 records per record/);
    assert.match(include.description, /at most 30 related records/);
    assert.match(include.description, /_truncated/);
    const readInclude = doc.paths['/posts/{id}'].get.parameters.find((p: any) => p.name === 'include');
    assert.equal(readInclude.description, include.description);
    assert.deepEqual(doc.components.schemas.Post.properties._truncated.items.enum, ['comments', 'tags']);
    assert.deepEqual(doc.components.schemas.Tag.properties._truncated.items.enum, ['posts']);
    assert.equal(doc.components.schemas.PostTag.properties._truncated, undefined, 'belongsTo relations are never cut');
    const company = doc.paths['/companies'].get.parameters.find((p: any) => p.name === 'include');
    assert.match(company.description, /at most 100 records per record.*at most 5000 related records/, 'the defaults');
  });
});

eachBackend('an oversized include is refused without being read', (backend) => {
  let postId: string;
  const rows: number[] = [];
  const server = useServer(backend, {
    config: { queryLimits: { maxIncludePerParent: 1000, maxIncludeRows: 10 } },
    setup(app) {
      app.use('db', async (ctx: Context, next) => {
        if (ctx.req.headers['x-record-rows']) ctx.db = recordingRows(ctx.db, rows);
        await next();
      });
    },
  });
  before(async () => {
    const userId = (await server.request('POST', '/users', { body: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' } })).body.data.id;
    postId = (await server.request('POST', '/posts', { body: { title: 'popular', userId } })).body.data.id;
    for (let i = 0; i < 40; i++) assert.equal((await server.request('POST', '/comments', { body: { body: `c${i}`, postId } })).status, 201);
  });

  it('stops the statement one row past the cap: 40 comments, 11 rows read, 400', async () => {
    const res = await server.request('GET', `/posts/${postId}?include=comments`, { headers: { 'x-record-rows': '1' } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, TOO_MANY(10));
    assert.deepEqual(rows, [11], 'the include statement (the post is read with get) stops at cap + 1 comments');
  });

  it('takes the caps from the app configuration', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    const include = doc.paths['/posts'].get.parameters.find((p: any) => p.name === 'include');
    assert.match(include.description, /at most 1000 records per record.*at most 10 related records/);
  });
});
