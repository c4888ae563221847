// Hostile text through every query parameter: never a 500, never SQL text in a response, nothing written.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

const HOSTILE = [
  "'",
  '"',
  "x' OR '1'='1",
  '1; DROP TABLE posts; --',
  '/* comment */',
  '--',
  ';',
  '\\',
  '%',
  '_',
  '\0',
  'a\0b',
  '\u202e\u0000',
  '😀𝔘ñ',
  '\uFFFD',
  '$1',
  '?',
  '::jsonb',
  ')',
  '(',
  '"unterminated',
  'NEAR(',
  'a'.repeat(2000),
  'b'.repeat(10 * 1024),
];

/** Text that would mean a database's words leaked into a response. */
const SQL_LEAK = /\bSELECT\b|\bWHERE\b|\bFROM\s+"|[Ss]yntax error|SQLITE_|sqlite3|\bpg_|violates|unterminated quoted|invalid input syntax|operator does not exist/;

eachBackend('hostile query input', (backend) => {
  let postId = '';
  const server = useServer(backend);
  before(async () => {
    const user = await server.request('POST', '/users', { body: { name: 'Ada', email: 'ada@x.org', password: 'long enough' } });
    const post = await server.request('POST', '/posts', { body: { title: 'kept', userId: user.body.data.id, keywords: ['a'], metadata: { k: 'v' } } });
    postId = post.body.data.id;
  });

  /** Every query parameter, each carrying `bad` in every position it has. */
  const queries = (bad: string): string[] => {
    const e = encodeURIComponent(bad);
    return [
      `filter=${e}`,
      `filter=title:${e}`,
      `filter=title:eq:${e}`,
      `filter=${e}:eq:x`,
      `filter=author.${e}:eq:x`,
      `filter=title:like:${e}`,
      `filter=title:ilike:${e}`,
      `filter=title:contains:${e}`,
      `filter=title:starts_with:${e}`,
      `filter=title:ends_with:${e}`,
      `filter=title:in:${e},${e}`,
      `filter=views:between:${e},${e}`,
      `filter=views:gt:${e}`,
      `filter=rating:eq:${e}`,
      `filter=publishedAt:gte:${e}`,
      `filter=keywords:has:${e}`,
      `filter=keywords:not_has:${e}`,
      `filter=author.name:eq:${e}`,
      `filter=comments.approved:eq:${e}`,
      `filter=tags.name:eq:${e}`,
      `filter[${e}]=title:eq:x`,
      `filter[0]=title:eq:${e}`,
      `sort=${e}`,
      `sort=title:${e}`,
      `sort=author.${e}:asc`,
      `include=${e}`,
      `include=author.${e}`,
      `select=${e}`,
      `page=${e}`,
      `limit=${e}`,
      `q=${e}`,
      `cursor=${e}`,
      `cursor=${e}.${e}`,
      `locale=${e}`,
    ];
  };

  it('list and read answer 4xx (or 200) for every hostile value, never a 500 or SQL text', async () => {
    for (const bad of HOSTILE) {
      for (const query of queries(bad)) {
        for (const path of [`/posts?${query}`, `/posts/${postId}?${query}`]) {
          const res = await server.request('GET', path);
          assert.ok(res.status < 500, `${path.slice(0, 120)} answered ${res.status}: ${res.text.slice(0, 200)}`);
          assert.doesNotMatch(res.text, SQL_LEAK, `${path.slice(0, 120)} leaked: ${res.text.slice(0, 300)}`);
        }
      }
    }
  });

  it('huge page numbers and limits are refused or clamped, not passed to the database', async () => {
    for (const query of ['page=9007199254740993', 'page=99999999', 'limit=99999999999999999999', 'page=1e3', 'limit=-1']) {
      const res = await server.request('GET', `/posts?${query}`);
      assert.ok(res.status === 200 || res.status === 400, `${query}: ${res.status} ${res.text}`);
    }
    const res = await server.request('GET', '/posts?page=99999999');
    assert.deepEqual(res.body.error, { code: 'INVALID_QUERY', message: 'page must be at most 10000000, got "99999999"' });
  });

  it('NUL characters are refused with a message naming the parameter', async () => {
    const res = await server.request('GET', `/posts?filter=${encodeURIComponent('title:eq:a\0b')}`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error, { code: 'INVALID_QUERY', message: 'query parameter "filter" contains a NUL character, which no field can hold' });
  });

  it('nothing was written and the table is intact', async () => {
    const list = await server.request('GET', '/posts');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((p: { id: string }) => p.id), [postId]);
    assert.equal(list.body.data[0].title, 'kept');
  });
});
