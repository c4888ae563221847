// q: full-text search over searchable text fields, kept in sync on every write path.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { eachBackend, onlyOn, useServer } from '../support/suite.js';

eachBackend('full-text search', (backend) => {
  const ids: Record<string, string> = {};
  const server = useServer(backend, { fixture: 'query' });
  before(async () => {
    const docs = [
      { title: 'Quarterly Budget', summary: 'numbers for the board', code: 'a', size: 1 },
      { title: 'Garden notes', summary: 'tomatoes and budget seeds', code: 'b', size: 2 },
      { title: 'Holiday plan', summary: null, code: 'c', size: 3 },
    ];
    for (const doc of docs) {
      const res = await server.request('POST', '/docs', { body: doc });
      assert.equal(res.status, 201, res.text);
      ids[doc.code] = res.body.data.id;
    }
  });

  const codes = async (query: string): Promise<string[]> => {
    const res = await server.request('GET', `/docs?${query}`);
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return res.body.data.map((d: { code: string }) => d.code).sort();
  };

  it('matches words in any searchable field, case-insensitively; every word must match', async () => {
    assert.deepEqual(await codes('q=budget'), ['a', 'b']);
    assert.deepEqual(await codes('q=BOARD'), ['a']);
    assert.deepEqual(await codes('q=budget%20seeds'), ['b']);
    assert.deepEqual(await codes('q=holiday'), ['c']);
    assert.deepEqual(await codes('q=nothing'), []);
    // Text with no words matches nothing; a blank q is no search at all.
    assert.deepEqual(await codes('q=%21%21'), []);
    assert.deepEqual(await codes('q=%20'), ['a', 'b', 'c']);
  });

  it('is ANDed with filters and counted in meta.total', async () => {
    assert.deepEqual(await codes('q=budget&filter=size:gt:1'), ['b']);
    const res = await server.request('GET', '/docs?q=budget&limit=1');
    assert.equal(res.body.meta.total, 2);
    // Sorted and paged (SQLite reads a sorted page's ids first, the search inside that step).
    for (const [page, code] of [[1, 'b'], [2, 'a']] as const) {
      const sorted = await server.request('GET', `/docs?q=budget&sort=size:desc&limit=1&page=${page}`);
      assert.deepEqual(sorted.body.data.map((d: { code: string }) => d.code), [code], `page ${page}`);
      assert.equal(sorted.body.meta.total, 2, `page ${page}`);
    }
  });

  it('stays in sync on update, delete and raw SQL; soft-deleted rows are excluded', async () => {
    await server.request('PATCH', `/docs/${ids.c}`, { body: { title: 'Budget holiday' } });
    assert.deepEqual(await codes('q=budget'), ['a', 'b', 'c']);
    await server.request('PATCH', `/docs/${ids.c}`, { body: { title: 'Holiday plan' } });
    assert.deepEqual(await codes('q=budget'), ['a', 'b']);

    assert.equal((await server.request('DELETE', `/docs/${ids.a}`)).status, 204);
    assert.deepEqual(await codes('q=budget'), ['b']);

    const now = new Date().toISOString();
    await server.app.db.raw('INSERT INTO docs (id, title, code, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [randomUUID(), 'Raw budget', 'raw', now, now]);
    assert.deepEqual(await codes('q=budget'), ['b', 'raw']);
    await server.app.db.raw('UPDATE docs SET title = ? WHERE code = ?', ['Raw ledger', 'raw']);
    assert.deepEqual(await codes('q=ledger'), ['raw']);
    assert.deepEqual(await codes('q=budget'), ['b']);
    await server.app.db.raw('DELETE FROM docs WHERE code = ?', ['raw']);
    assert.deepEqual(await codes('q=ledger'), []);
  });

  it('search syntax in the text is taken as plain words, never an error', async () => {
    for (const q of ['"unbalanced', 'title:garden', 'garden AND', 'NOT garden', 'gard*', '(garden', "garden' OR 1=1 --", 'NEAR(garden notes)', '^garden']) {
      const res = await server.request('GET', `/docs?q=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200, `${q}: ${res.text}`);
    }
    assert.deepEqual(await codes(`q=${encodeURIComponent('"garden')}`), ['b']);
  });

  it('the migration refills an index that is new or lost its sync triggers', onlyOn(backend, 'sqlite', 'PostgreSQL searches an expression index the database maintains itself: there are no sync triggers to lose'), async () => {
    await server.app.db.raw('DROP TRIGGER docs_fts_ai');
    const now = new Date().toISOString();
    await server.app.db.raw('INSERT INTO docs (id, title, code, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [randomUUID(), 'Unindexed budget', 'u', now, now]);
    await server.app.migrate();
    assert.deepEqual(await codes('q=unindexed'), ['u']);
    await server.app.db.raw('DELETE FROM docs WHERE code = ?', ['u']);
    assert.deepEqual(await codes('q=unindexed'), []);
  });

  it('q on a model with no searchable field is 400', async () => {
    const res = await server.request('GET', '/owners?q=x');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error, {
      code: 'INVALID_QUERY',
      message: 'q needs searchable fields, and Owner has none; add the searchable directive to its text fields',
    });
  });
});
