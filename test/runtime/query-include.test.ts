// include (belongsTo, hasMany, manyToMany, one nested level), nested filters, the
// statement count that proves there is no N+1, and scope entries that name models.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Context, Executor, ScopeFilter } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';

/** Wraps an executor so every statement it runs is counted. */
function counting(inner: Executor, count: { n: number }): Executor {
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'all' || key === 'get' || key === 'run' || key === 'raw') {
        return (...args: unknown[]) => {
          count.n += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

eachBackend('include and nested filters', (backend) => {
  const statements = { n: 0 };
  const ids: Record<string, string> = {};
  const server = useServer(backend, {
    setup(app) {
      app.use('db', async (ctx: Context, next) => {
        ctx.db = counting(ctx.db, statements);
        // x-scope carries scope entries as JSON, so one server tests many scopes.
        const scope = ctx.req.headers['x-scope'];
        if (typeof scope === 'string') ctx.scope.push(...(JSON.parse(scope) as ScopeFilter[]));
        await next();
      });
    },
  });
  before(async () => {
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await server.request('POST', path, { body });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    };
    ids.acme = await post('/companies', { name: 'Acme', country: 'NL' });
    ids.ada = await post('/users', { name: 'Ada', email: 'ada@x.org', password: 'long enough', role: 'admin', companyId: ids.acme });
    ids.bob = await post('/users', { name: 'Bob', email: 'bob@x.org', password: 'long enough', role: 'member' });
    ids.p1 = await post('/posts', { title: 'one', status: 'published', views: 3, userId: ids.ada });
    ids.p2 = await post('/posts', { title: 'two', status: 'draft', views: 2, userId: ids.bob });
    ids.p3 = await post('/posts', { title: 'three', status: 'published', views: 1, userId: ids.ada });
    ids.c1 = await post('/comments', { body: 'first', postId: ids.p1, approved: true });
    ids.c2 = await post('/comments', { body: 'second', postId: ids.p1, approved: false });
    ids.c3 = await post('/comments', { body: 'gone', postId: ids.p2 });
    assert.equal((await server.request('DELETE', `/comments/${ids.c3}`)).status, 204);
    ids.t1 = await post('/tags', { name: 'math' });
    ids.t2 = await post('/tags', { name: 'history' });
    await post('/post_tags', { postId: ids.p1, tagId: ids.t1 });
    await post('/post_tags', { postId: ids.p1, tagId: ids.t2 });
    await post('/post_tags', { postId: ids.p3, tagId: ids.t2 });
  });

  const list = async (path: string, headers?: Record<string, string>) => {
    const res = await server.request('GET', path, { headers });
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body.data as any[];
  };
  const byTitle = (rows: any[]) => Object.fromEntries(rows.map((r) => [r.title, r]));
  const refused = async (path: string, message: string) => {
    const res = await server.request('GET', path);
    assert.equal(res.status, 400, `${path}: ${res.text}`);
    assert.deepEqual(res.body, { error: { code: 'INVALID_QUERY', message } });
  };

  it('belongsTo is an object, hasMany an array ([] when empty), manyToMany an array through the junction', async () => {
    const posts = byTitle(await list('/posts?include=author,comments,tags'));
    assert.equal(posts.one.author.id, ids.ada);
    assert.equal(posts.two.author.name, 'Bob');
    assert.deepEqual(posts.one.comments.map((c: any) => c.body).sort(), ['first', 'second']);
    assert.deepEqual(posts.two.comments, [], 'the soft-deleted comment is excluded');
    assert.deepEqual(posts.three.comments, []);
    assert.deepEqual(posts.one.tags.map((t: any) => t.name).sort(), ['history', 'math']);
    assert.deepEqual(posts.two.tags, []);
    assert.deepEqual(posts.three.tags.map((t: any) => t.name), ['history']);
    const plain = byTitle(await list('/posts'));
    assert.equal('author' in plain.one, false, 'relations only when included');
  });

  it('one nested level: author.company; a missing parent is null', async () => {
    const posts = byTitle(await list('/posts?include=author.company'));
    assert.equal(posts.one.author.company.name, 'Acme');
    assert.equal(posts.two.author.company, null);
    const users = byTitle((await list('/users?include=posts.comments')).map((u) => ({ ...u, title: u.name })));
    assert.deepEqual(users.Ada.posts.map((p: any) => p.title).sort(), ['one', 'three']);
    assert.equal(users.Ada.posts.find((p: any) => p.title === 'one').comments.length, 2);
  });

  it('hidden and writeonly fields are stripped at every depth', async () => {
    const companies = await list('/companies?include=users.posts');
    const ada = companies[0].users[0];
    assert.equal(ada.name, 'Ada');
    assert.equal('password' in ada, false);
    assert.equal('loginCount' in ada, false);
    const posts = await list('/posts?include=author.company');
    for (const post of posts) {
      assert.equal('password' in post.author, false);
      assert.equal('loginCount' in post.author, false);
    }
  });

  it('include works on the read route too', async () => {
    const res = await server.request('GET', `/posts/${ids.p1}?include=author,tags`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.author.name, 'Ada');
    assert.equal(res.body.data.tags.length, 2);
    await refused(`/posts/${ids.p1}?include=nope`, 'include "nope": Post has no relation "nope" (relations: author, comments, tags)');
  });

  it('unknown keys, deeper nesting and too many paths are 400', async () => {
    await refused('/posts?include=writer', 'include "writer": Post has no relation "writer" (relations: author, comments, tags)');
    await refused('/posts?include=author.nope', 'include "author.nope": User has no relation "nope" (relations: company, posts, comments)');
    await refused('/posts?include=author.company.users', 'include "author.company.users" nests more than 2 relations');
    await refused(
      '/posts?include=author,comments,tags,author.company,author.posts,author.comments,comments.post,comments.user,tags.posts',
      'too many include paths: at most 8 (query_limits:maxIncludes)',
    );
  });

  it('a fixed number of statements per request, whatever the number of rows', async () => {
    const path = '/posts?include=author,author.company,comments,tags&limit=50';
    statements.n = 0;
    await list(path);
    const few = statements.n;
    // Rows + one per relation and level; no count, since a page that is not full is the last one.
    assert.equal(few, 1 + 4);
    const extras: string[] = [];
    try {
      for (let i = 0; i < 15; i++) {
        const res = await server.request('POST', '/posts', { body: { title: `extra ${i}`, userId: i % 2 ? ids.ada : ids.bob } });
        extras.push(res.body.data.id);
        await server.request('POST', '/comments', { body: { body: `c ${i}`, postId: res.body.data.id } });
        await server.request('POST', '/post_tags', { body: { postId: res.body.data.id, tagId: ids.t1 } });
      }
      statements.n = 0;
      const rows = await list(path);
      assert.ok(rows.length >= 18);
      assert.equal(statements.n, few);
      // A full page counts the rows (one statement more). Ada's posts only: her company makes the nested level run.
      statements.n = 0;
      assert.equal((await list('/posts?include=author,author.company,comments,tags&filter=author.role:eq:admin&limit=2')).length, 2);
      assert.equal(statements.n, 2 + 4);
    } finally {
      for (const id of extras) await server.request('DELETE', `/posts/${id}`);
    }
  });

  it('nested filters through belongsTo', async () => {
    assert.deepEqual((await list('/posts?filter=author.role:eq:admin')).map((p) => p.title).sort(), ['one', 'three']);
    assert.deepEqual((await list('/posts?filter=author.name:contains:bo')).map((p) => p.title), ['two']);
    assert.deepEqual((await list('/comments?filter=post.author.name:eq:Ada')).map((c) => c.body).sort(), ['first', 'second']);
  });

  it('nested filters through hasMany and manyToMany have EXISTS semantics', async () => {
    assert.deepEqual((await list('/users?filter=posts.status:eq:draft')).map((u) => u.name), ['Bob']);
    assert.deepEqual((await list('/users?filter=posts.status:eq:published')).map((u) => u.name), ['Ada']);
    // One user, however many of their posts match.
    assert.equal((await list('/users?filter=posts.views:gte:1')).length, 2);
    assert.deepEqual((await list('/posts?filter=tags.name:eq:history')).map((p) => p.title).sort(), ['one', 'three']);
    assert.deepEqual((await list('/tags?filter=posts.title:eq:three')).map((t) => t.name), ['history']);
    // Soft-deleted related rows do not count.
    assert.deepEqual((await list('/posts?filter=comments.approved:eq:true')).map((p) => p.title), ['one']);
    const ored = `/posts?filter[0]=${encodeURIComponent('tags.name:eq:math')}&filter[0]=${encodeURIComponent('author.name:eq:Bob')}`;
    assert.deepEqual((await list(ored)).map((p) => p.title).sort(), ['one', 'two']);
  });

  it('the related field must be filterable', async () => {
    await refused('/posts?filter=author.bio:eq:x', '"author.bio" of User is not filterable; add the filterable directive to the field');
    await refused('/posts?filter=author.password:eq:x', /* writeonly fields are not fields to clients */ '"author.password" is not a field of User; filterable fields: name, email, role, companyId, created_at');
    await refused('/posts?filter=writer.name:eq:x', 'filter "writer.name": Post has no relation "writer" (relations: author, comments, tags)');
  });

  it('scope entries without model apply to the request model; with model wherever that model is read', async () => {
    const approvedOnly = JSON.stringify([{ model: 'Comment', field: 'approved', value: true }]);
    // include
    const posts = byTitle(await list('/posts?include=comments', { 'x-scope': approvedOnly }));
    assert.deepEqual(posts.one.comments.map((c: any) => c.body), ['first']);
    // nested filter (EXISTS)
    assert.deepEqual(await list('/posts?filter=comments.approved:eq:false', { 'x-scope': approvedOnly }), []);
    assert.equal((await list('/posts?filter=comments.approved:eq:false')).length, 1);
    // the request's own model, when it is the named model
    assert.deepEqual((await list('/comments', { 'x-scope': approvedOnly })).map((c) => c.body), ['first']);
    // an entry without model applies to the request's model only
    const draftOnly = JSON.stringify([{ field: 'status', value: 'draft' }]);
    assert.deepEqual((await list('/posts', { 'x-scope': draftOnly })).map((p) => p.title), ['two']);
    assert.equal((await list('/users?include=posts', { 'x-scope': JSON.stringify([{ field: 'role', value: 'admin' }]) }))[0].posts.length, 2);
    // sort through a belongsTo join: out-of-scope parents sort as missing (NULL, last ascending)
    const adminsOnly = JSON.stringify([{ model: 'User', field: 'role', value: 'admin' }]);
    const sorted = await list('/posts?sort=author.name:asc,title:asc&include=author&filter=title:in:one,two,three', { 'x-scope': adminsOnly });
    assert.deepEqual(sorted.map((p) => p.title), ['one', 'three', 'two']);
    assert.equal(sorted[2].author, null, 'an out-of-scope parent is not included');
    // many-to-many: the target's scope applies
    const mathOnly = JSON.stringify([{ model: 'Tag', field: 'name', value: 'math' }]);
    assert.deepEqual(byTitle(await list('/posts?include=tags', { 'x-scope': mathOnly })).one.tags.map((t: any) => t.name), ['math']);
  });
});
