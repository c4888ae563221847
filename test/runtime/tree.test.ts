// RecursiveQuery: descendants and ancestors with _depth, MaxDepth, Where, cycles, soft delete.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { ApiError, type RecursiveQuery, recursiveQuery } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('tree queries', (backend) => {
  const ids: Record<string, string> = {};
  const server = useServer(backend, { fixture: 'query' });
  before(async () => {
    //        root
    //       /    \
    //      a      b (kind x)
    //     / \      \
    //    a1  a2     b1
    const nodes: Array<[string, string | null, string]> = [
      ['root', null, 'k'],
      ['a', 'root', 'k'],
      ['b', 'root', 'x'],
      ['a1', 'a', 'k'],
      ['a2', 'a', 'k'],
      ['b1', 'b', 'k'],
    ];
    for (const [name, parent, kind] of nodes) {
      const res = await server.request('POST', '/categories', { body: { name, kind, parentId: parent ? ids[parent] : null } });
      assert.equal(res.status, 201, res.text);
      ids[name] = res.body.data.id;
    }
  });

  const run = (query: RecursiveQuery) => server.app.store('Category').tree(server.app.db, query);
  const names = (rows: Array<{ name?: unknown; _depth: number }>) => rows.map((r) => `${r.name}@${r._depth}`);

  it('descendants by default: every column plus _depth, ordered by depth', async () => {
    const rows = await run({ rootId: ids.root, parentField: 'parentId' });
    assert.deepEqual(names(rows).slice(0, 1), ['root@0']);
    assert.deepEqual(names(rows).slice(1, 3).sort(), ['a@1', 'b@1']);
    assert.deepEqual(names(rows).slice(3).sort(), ['a1@2', 'a2@2', 'b1@2']);
    const root = rows[0];
    assert.equal(root.id, ids.root);
    assert.equal(root.kind, 'k');
    assert.equal(root.parentId, null);
    assert.ok('created_at' in root);
  });

  it('ancestors walk up; the exported function and the store method agree', async () => {
    const up = await recursiveQuery(server.app.db, server.app.registry.get('Category')!, { rootId: ids.a1, parentField: 'parentId', direction: 'ancestors' });
    assert.deepEqual(names(up), ['a1@0', 'a@1', 'root@2']);
  });

  it('MaxDepth limits the levels; 0 means 100; negative means unlimited', async () => {
    assert.deepEqual(names(await run({ rootId: ids.root, parentField: 'parentId', maxDepth: 1 })).sort(), ['a@1', 'b@1', 'root@0']);
    // A chain of 105 below a fresh root.
    const now = new Date().toISOString();
    let parent = ids.root;
    const chainRoot = randomUUID();
    await server.app.db.raw('INSERT INTO categories (id, name, kind, "parentId", created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [chainRoot, 'chain', 'c', null, now, now]);
    parent = chainRoot;
    for (let i = 0; i < 105; i++) {
      const id = randomUUID();
      await server.app.db.raw('INSERT INTO categories (id, name, kind, "parentId", created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [id, `n${i}`, 'c', parent, now, now]);
      parent = id;
    }
    assert.equal((await run({ rootId: chainRoot, parentField: 'parentId' })).length, 101);
    assert.equal((await run({ rootId: chainRoot, parentField: 'parentId', maxDepth: 0 })).length, 101);
    assert.equal((await run({ rootId: chainRoot, parentField: 'parentId', maxDepth: -1 })).length, 106);
  });

  it('Where applies to the root and every member and stops the walk through a failing node', async () => {
    const rows = await run({ rootId: ids.root, parentField: 'parentId', where: [{ field: 'kind', operator: 'eq', value: 'k' }] });
    assert.deepEqual(names(rows).sort(), ['a1@2', 'a2@2', 'a@1', 'root@0']);
    assert.deepEqual(await run({ rootId: ids.b, parentField: 'parentId', where: [{ field: 'kind', operator: 'eq', value: 'k' }] }), []);
    const inList = await run({ rootId: ids.root, parentField: 'parentId', where: [{ field: 'name', operator: 'in', value: ['root', 'a', 'a2'] }] });
    assert.deepEqual(names(inList).sort(), ['a2@2', 'a@1', 'root@0']);
  });

  it('a parent cycle returns each node once', async () => {
    const x = (await server.request('POST', '/categories', { body: { name: 'x', kind: 'cy' } })).body.data.id;
    const y = (await server.request('POST', '/categories', { body: { name: 'y', kind: 'cy', parentId: x } })).body.data.id;
    await server.request('PATCH', `/categories/${x}`, { body: { parentId: y } });
    assert.deepEqual(names(await run({ rootId: x, parentField: 'parentId', maxDepth: -1 })), ['x@0', 'y@1']);
    assert.deepEqual(names(await run({ rootId: x, parentField: 'parentId', direction: 'ancestors', maxDepth: -1 })), ['x@0', 'y@1']);
  });

  it('ids with LIKE wildcards are compared literally on the path', async () => {
    const now = new Date().toISOString();
    const insert = 'INSERT INTO categories (id, name, kind, "parentId", created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)';
    await server.app.db.raw(insert, ['axb', 'axb', 'w', null, now, now]);
    await server.app.db.raw(insert, ['a_b', 'a_b', 'w', 'axb', now, now]);
    await server.app.db.raw(insert, ['a%', 'a%', 'w', 'a_b', now, now]);
    assert.deepEqual(names(await run({ rootId: 'axb', parentField: 'parentId' })), ['axb@0', 'a_b@1', 'a%@2']);
  });

  it('soft-deleted rows are excluded and end the walk', async () => {
    const p = (await server.request('POST', '/categories', { body: { name: 'p', kind: 'sd' } })).body.data.id;
    const q = (await server.request('POST', '/categories', { body: { name: 'q', kind: 'sd', parentId: p } })).body.data.id;
    await server.request('POST', '/categories', { body: { name: 'r', kind: 'sd', parentId: q } });
    // Soft-delete q alone (its cascade would reach r): mark it directly.
    await server.app.db.raw('UPDATE categories SET deleted_at = ? WHERE id = ?', [new Date().toISOString(), q]);
    assert.deepEqual(names(await run({ rootId: p, parentField: 'parentId' })), ['p@0']);
    assert.deepEqual(await run({ rootId: q, parentField: 'parentId' }), []);
  });

  it('bad inputs are INVALID_QUERY errors naming what is wrong', async () => {
    const fails = async (query: RecursiveQuery, message: string) => {
      await assert.rejects(run(query), (error: unknown) => error instanceof ApiError && error.code === 'INVALID_QUERY' && error.message === message);
    };
    await fails({ rootId: '', parentField: 'parentId' }, 'tree query needs rootId');
    await fails({ rootId: ids.root, parentField: 'mother' }, 'tree query parentField mother is not a field of Category');
    await fails({ rootId: ids.root, parentField: 'parentId', where: [{ field: 'parent.name', operator: 'eq', value: 'x' }] }, 'tree query condition on parent.name: nested-relation filters are not supported in tree queries');
    await fails({ rootId: ids.root, parentField: 'parentId', direction: 'sideways' as 'ancestors' }, 'tree query direction must be descendants or ancestors, got sideways');
  });
});
