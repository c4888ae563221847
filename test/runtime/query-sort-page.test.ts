// Sorting, paging, field selection, keyset pagination and the URI limit.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('sort, paging and select', (backend) => {
  const users: Record<string, string> = {};
  const server = useServer(backend);
  before(async () => {
    for (const name of ['Carol', 'Alice', 'Bob']) {
      const res = await server.request('POST', '/users', { body: { name, email: `${name}@example.com`, password: 'long enough' } });
      users[name] = res.body.data.id;
    }
    const posts = [
      ['p1', 'published', 10, 'Carol'],
      ['p2', 'draft', 30, 'Alice'],
      ['p3', 'published', 20, 'Bob'],
      ['p4', 'published', 20, 'Alice'],
      ['p5', 'archived', 5, 'Carol'],
    ] as const;
    for (const [title, status, views, user] of posts) {
      const res = await server.request('POST', '/posts', { body: { title, status, views, userId: users[user] } });
      assert.equal(res.status, 201, res.text);
    }
  });

  const titles = async (query: string): Promise<string[]> => {
    const res = await server.request('GET', `/posts?${query}`);
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return res.body.data.map((d: { title: string }) => d.title);
  };
  const refused = async (path: string, message: string) => {
    const res = await server.request('GET', path);
    assert.equal(res.status, 400, `${path}: ${res.text}`);
    assert.deepEqual(res.body, { error: { code: 'INVALID_QUERY', message } });
  };

  it('sorts asc and desc, several keys left to right, repeated or as a comma list', async () => {
    assert.deepEqual(await titles('sort=views:asc,title:asc'), ['p5', 'p1', 'p3', 'p4', 'p2']);
    assert.deepEqual((await titles('sort=views:desc,title:desc')), ['p2', 'p4', 'p3', 'p1', 'p5']);
    assert.deepEqual(await titles('sort=views:desc&sort=title:asc'), ['p2', 'p3', 'p4', 'p1', 'p5']);
    assert.deepEqual(await titles('filter=status:eq:published&sort=views:desc&sort=title:asc'), ['p3', 'p4', 'p1']);
  });

  it('sorts through a belongsTo relation', async () => {
    assert.deepEqual(await titles('sort=author.name:asc,views:asc'), ['p4', 'p2', 'p3', 'p5', 'p1']);
    assert.deepEqual(await titles('sort=author.name:desc,views:desc'), ['p1', 'p5', 'p3', 'p2', 'p4']);
  });

  it('refuses sorts on unsortable fields, unknown relations, hasMany paths and bad directions', async () => {
    await refused('/posts?sort=body:asc', '"body" of Post is not sortable; add the sortable directive to the field');
    await refused('/posts?sort=author.email:asc', '"author.email" of User is not sortable; add the sortable directive to the field');
    await refused('/posts?sort=comments.body:asc', 'sort "comments.body": comments is a hasMany relation; only belongsTo relations can be sorted through');
    await refused('/posts?sort=writer.name:asc', 'sort "writer.name": Post has no relation "writer" (relations: author, comments, tags)');
    await refused('/posts?sort=views:up', 'sort "views:up" must end in :asc or :desc');
    await refused(`/posts?sort=${Array.from({ length: 9 }, () => 'views:asc').join(',')}`, 'too many sort keys: at most 8 (query_limits:maxSorts)');
  });

  it('page and limit: meta.total is the full match count', async () => {
    const res = await server.request('GET', '/posts?filter=status:eq:published&sort=views:asc,title:asc&limit=2&page=2');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.meta, { total: 3, page: 2, limit: 2, pages: 2 });
    assert.deepEqual(res.body.data.map((p: { title: string }) => p.title), ['p4']);
    const all = await server.request('GET', '/posts?limit=500');
    assert.deepEqual(all.body.meta, { total: 5, page: 1, limit: 200, pages: 1 });
    // The last page (not full), a full one and one past the end: the same total.
    for (const [page, rows] of [[3, 1], [2, 2], [4, 0], [99, 0]]) {
      const res = await server.request('GET', `/posts?sort=views:asc&limit=2&page=${page}`);
      assert.equal(res.body.data.length, rows, `page ${page}`);
      assert.deepEqual(res.body.meta, { total: 5, page, limit: 2, pages: 3 }, `page ${page}`);
    }
    await refused('/posts?limit=0', 'limit must be at least 1, got "0"');
    await refused('/posts?page=x', 'page must be a positive integer, got "x"');
  });

  it('a sorted list read a page at a time gives every row once, in the order of the whole list (SQLite reads such pages by id)', async () => {
    const paged = async (query: string, limit: number) => {
      const pages: string[][] = [];
      for (let page = 1; page <= Math.ceil(5 / limit) + 1; page++) pages.push(await titles(`${query}&limit=${limit}&page=${page}`));
      assert.deepEqual(pages.at(-1), [], `${query}: the page after the last is empty`);
      return pages.flat();
    };
    assert.deepEqual(await paged('sort=author.name:asc,views:asc', 2), ['p4', 'p2', 'p3', 'p5', 'p1']);
    assert.deepEqual(await paged('sort=author.name:desc,views:desc', 3), ['p1', 'p5', 'p3', 'p2', 'p4']);
    assert.deepEqual(await paged('sort=views:desc,title:desc', 2), ['p2', 'p4', 'p3', 'p1', 'p5']);
    assert.deepEqual(await paged('filter=status:eq:published&sort=views:desc&sort=title:asc', 1), ['p3', 'p4', 'p1']);
    // Ties on the sort key are broken by id, the same way on every page.
    const whole = await server.request('GET', '/posts?sort=views:desc&limit=200');
    const tied = whole.body.data.filter((p: { views: number }) => p.views === 20).map((p: { id: string; title: string }) => p.title);
    assert.deepEqual(tied.sort(), ['p3', 'p4']);
    assert.deepEqual(await paged('sort=views:desc', 2), whole.body.data.map((p: { title: string }) => p.title));
  });

  it('select returns only the named keys on list and read, never hidden or writeonly ones', async () => {
    const list = await server.request('GET', '/posts?select=title,views&sort=views:desc&limit=1');
    assert.deepEqual(list.body.data, [{ title: 'p2', views: 30 }]);
    const read = await server.request('GET', `/users/${users.Alice}?select=name,email`);
    assert.deepEqual(read.body.data, { name: 'Alice', email: 'Alice@example.com' });
    await refused('/users?select=name,password', 'select names unknown field "password" of User; selectable: id, name, email, role, bio, companyId, created_at, updated_at');
    await refused(`/users/${users.Alice}?select=loginCount`, 'select names unknown field "loginCount" of User; selectable: id, name, email, role, bio, companyId, created_at, updated_at');
  });

  it('select combines with include', async () => {
    const res = await server.request('GET', '/posts?select=title&include=author&sort=views:desc&limit=1');
    assert.equal(res.status, 200, res.text);
    const [post] = res.body.data;
    assert.deepEqual(Object.keys(post).sort(), ['author', 'title']);
    assert.equal(post.author.name, 'Alice');
    assert.equal('password' in post.author, false);
    assert.equal('loginCount' in post.author, false);
  });

  it('a request URI over 8 KiB is 414 URI_TOO_LONG', async () => {
    const res = await server.request('GET', `/posts?filter=title:eq:${'x'.repeat(9000)}`);
    assert.equal(res.status, 414);
    assert.equal(res.body.error.code, 'URI_TOO_LONG');
  });
});

eachBackend('keyset pagination', (backend) => {
  const server = useServer(backend, { fixture: 'query', config: { cursorSecret: 'test secret' } });
  before(async () => {
    for (let i = 0; i < 7; i++) {
      const res = await server.request('POST', '/docs', { body: { title: `doc ${i}`, code: `c${i}`, size: i } });
      assert.equal(res.status, 201);
    }
  });

  const page = async (query: string) => {
    const res = await server.request('GET', `/docs?${query}`);
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return res.body as { data: { id: string; title: string; created_at: string }[]; meta: { limit: number; next_cursor: string | null; has_more: boolean } };
  };
  const refused = async (query: string, message: string) => {
    const res = await server.request('GET', `/docs?${query}`);
    assert.equal(res.status, 400, `${query}: ${res.text}`);
    assert.deepEqual(res.body, { error: { code: 'INVALID_QUERY', message } });
  };

  it('an empty cursor starts; meta is {limit, next_cursor, has_more}', async () => {
    const first = await page('cursor=&limit=3');
    assert.equal(first.data.length, 3);
    assert.deepEqual(Object.keys(first.meta).sort(), ['has_more', 'limit', 'next_cursor']);
    assert.equal(first.meta.limit, 3);
    assert.equal(first.meta.has_more, true);
    assert.equal(typeof first.meta.next_cursor, 'string');
    const all = await page('cursor=&limit=200');
    assert.equal(all.meta.has_more, false);
    assert.equal(all.meta.next_cursor, null);
  });

  it('every row exactly once while rows are inserted and deleted between pages; ties broken by id', async () => {
    const before = (await page('cursor=&limit=200')).data.map((d) => d.id);
    const seen: string[] = [];
    const deleted = new Set<string>();
    let cursor = '';
    for (let round = 0; round < 50; round++) {
      const res = await page(`cursor=${encodeURIComponent(cursor)}&limit=2`);
      seen.push(...res.data.map((d) => d.id));
      // Between pages: delete a row not seen yet, insert a new one.
      const unseen = before.find((id) => !seen.includes(id) && !deleted.has(id));
      if (unseen && round === 1) {
        assert.equal((await server.request('DELETE', `/docs/${unseen}`)).status, 204);
        deleted.add(unseen);
      }
      await server.request('POST', '/docs', { body: { title: `late ${round}`, code: 'late' } });
      if (!res.meta.has_more || round > 6) break;
      cursor = res.meta.next_cursor!;
    }
    assert.equal(new Set(seen).size, seen.length, 'no row twice');
    for (const id of before) if (!deleted.has(id)) assert.ok(seen.includes(id), `row ${id} seen`);
    for (const id of deleted) assert.ok(!seen.includes(id), 'a deleted row is not served');
  });

  it('sort on the cursor field gives the direction', async () => {
    const asc = (await page('cursor=&limit=200')).data.map((d) => d.id);
    const desc = await page('cursor=&limit=3&sort=created_at:desc');
    assert.deepEqual(desc.data.map((d) => d.id), asc.slice(-3).reverse());
    const next = await page(`cursor=${encodeURIComponent(desc.meta.next_cursor!)}&limit=3&sort=created_at:desc`);
    assert.deepEqual(next.data.map((d) => d.id), asc.slice(-6, -3).reverse());
  });

  it('a forged, malformed or foreign cursor is 400', async () => {
    const message = 'cursor is not valid: pass meta.next_cursor of the previous page unchanged, or an empty cursor for the first page';
    const { meta } = await page('cursor=&limit=1');
    const token = meta.next_cursor!;
    const [payload, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify(['1999-01-01T00:00:00.000Z', 'x'])).toString('base64url');
    await refused(`cursor=${forged}.${mac}`, message);
    await refused(`cursor=${payload}.${mac.slice(0, -2)}AA`, message);
    await refused('cursor=garbage', message);
    await refused(`cursor=${payload}`, message);
    // A token of the ascending walk does not continue the descending one.
    await refused(`cursor=${encodeURIComponent(token)}&sort=created_at:desc`, message);
  });

  it('cursor rules: other sorts, page, and models without cursor_field are 400', async () => {
    await refused('cursor=&sort=size:asc', 'cursor pagination orders by created_at then id; sort may only give its direction (sort=created_at:desc), or drop cursor to sort freely');
    await refused('cursor=&page=2', 'page and cursor cannot be combined: follow meta.next_cursor instead of page numbers');
    const res = await server.request('GET', '/owners?cursor=');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error, {
      code: 'INVALID_QUERY',
      message: 'cursor pagination needs a cursor field; Owner has none (add the model directive cursor_field:<column>), or page with page and limit',
    });
  });
});
