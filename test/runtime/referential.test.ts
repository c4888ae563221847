// Referential actions on delete (cascade, setNull, restrict) and foreign-key violations on write.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type CascadedChange, type Context, type ScopeFilter, transaction } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

eachBackend('referential actions', (backend) => {
  const server = useServer(backend, {
    fixture: 'query',
    setup(app) {
      app.use('service', transaction(), { models: ['Category'], ops: ['delete'] });
      app.use('db', async (ctx: Context, next) => {
        const scope = ctx.req.headers['x-scope'];
        if (typeof scope === 'string') ctx.scope.push(...(JSON.parse(scope) as ScopeFilter[]));
        await next();
      });
    },
  });

  const create = async (path: string, body: Record<string, unknown>) => {
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  /** Rows of a table by id, soft-deleted included, straight from the database. */
  const rows = async (table: string, column: string, value: string) => server.app.db.raw(`SELECT * FROM ${table} WHERE "${column}" = ?`, [value]);
  const deletedAt = async (table: string, id: string) => {
    const found = await server.app.db.raw(`SELECT deleted_at FROM ${table} WHERE id = ?`, [id]);
    return found.length === 0 ? 'absent' : found[0].deleted_at;
  };

  /** An owner with a project, two tasks (one with a note), a badge and optionally an invoice. */
  const tree = async (invoice: boolean) => {
    const owner = await create('/owners', { name: 'O', tenant: 't1' });
    const project = await create('/projects', { name: 'P', tenant: 't1', ownerId: owner });
    const task1 = await create('/tasks', { title: 'T1', tenant: 't1', projectId: project });
    const task2 = await create('/tasks', { title: 'T2', tenant: 't2', projectId: project });
    const note = await create('/notes', { text: 'N', taskId: task1 });
    const badge = await create('/badges', { label: 'B', ownerId: owner });
    const bill = invoice ? await create('/invoices', { amount: 5, ownerId: owner }) : null;
    return { owner, project, task1, task2, note, badge, bill };
  };

  it('restrict: 409 DELETE_RESTRICTED and nothing deleted, not even what a cascade reached first', async () => {
    const t = await tree(true);
    const res = await server.request('DELETE', `/owners/${t.owner}`);
    assert.equal(res.status, 409);
    assert.deepEqual(res.body.error, {
      code: 'DELETE_RESTRICTED',
      message:
        'cannot delete this Owner: 1 Invoice record still refers to it through Invoice.ownerId (onDelete:restrict); delete it first, or declare onDelete:cascade or setNull on the relation',
    });
    assert.equal((await rows('owners', 'id', t.owner)).length, 1);
    assert.equal(await deletedAt('projects', t.project), null);
    assert.equal(await deletedAt('tasks', t.task1), null);
    assert.equal((await rows('notes', 'id', t.note)).length, 1);
    assert.equal((await rows('badges', 'id', t.badge))[0].ownerId, t.owner);
  });

  it('cascade on a removed parent removes the chain; setNull clears the foreign key', async () => {
    const t = await tree(false);
    assert.equal((await server.request('DELETE', `/owners/${t.owner}`)).status, 204);
    assert.equal((await rows('owners', 'id', t.owner)).length, 0);
    // The owner row is gone, so its children cannot stay behind, soft-delete models included.
    assert.equal(await deletedAt('projects', t.project), 'absent');
    assert.equal(await deletedAt('tasks', t.task1), 'absent');
    assert.equal((await rows('notes', 'id', t.note)).length, 0);
    const [badge] = await rows('badges', 'id', t.badge);
    assert.equal(badge.ownerId, null);
    assert.notEqual(badge.updated_at, badge.created_at);
  });

  it('cascade on a soft-deleted parent soft-deletes soft-delete children and removes the others', async () => {
    const t = await tree(false);
    assert.equal((await server.request('DELETE', `/projects/${t.project}`)).status, 204);
    assert.notEqual(await deletedAt('projects', t.project), null);
    assert.notEqual(await deletedAt('tasks', t.task1), null);
    assert.notEqual(await deletedAt('tasks', t.task2), null);
    assert.equal((await rows('notes', 'id', t.note)).length, 0);
    assert.equal((await server.request('GET', `/tasks/${t.task1}`)).status, 404);
    const visible = await server.request('GET', `/tasks?filter=deleted_at:not_null&filter=projectId:eq:${t.project}`);
    assert.equal(visible.body.data.length, 2);
  });

  it('a cascade only reaches rows in scope of the models named', async () => {
    const t = await tree(false);
    const scope = JSON.stringify([{ model: 'Task', field: 'tenant', value: 't1' }]);
    assert.equal((await server.request('DELETE', `/projects/${t.project}`, { headers: { 'x-scope': scope } })).status, 204);
    assert.notEqual(await deletedAt('tasks', t.task1), null);
    assert.equal(await deletedAt('tasks', t.task2), null, 'the other tenant\'s task is untouched');
  });

  it('every cascaded row reaches the observer hook point, inside the transaction', async () => {
    const t = await tree(false);
    const seen: Array<Pick<CascadedChange, 'action' | 'depth'> & { model: string; id: unknown }> = [];
    const removed = await server.app.store('Owner').remove(server.app.db, t.owner, {
      observe: (change) => void seen.push({ model: change.model.name, action: change.action, depth: change.depth, id: change.before.id }),
    });
    assert.equal(removed, true);
    const key = (s: (typeof seen)[number]) => `${s.model}:${s.action}:${s.depth}`;
    assert.deepEqual(seen.map(key).sort(), ['Badge:setNull:1', 'Note:delete:3', 'Project:delete:1', 'Task:delete:2', 'Task:delete:2']);
    assert.ok(seen.some((s) => s.id === t.note));
  });

  it('recursive cascades through a self-referential relation, cycles included, inside an active transaction', async () => {
    const root = await create('/categories', { name: 'root', kind: 'k' });
    const child = await create('/categories', { name: 'child', kind: 'k', parentId: root });
    const grandchild = await create('/categories', { name: 'grandchild', kind: 'k', parentId: child });
    // A cycle: root's parent is the grandchild.
    await server.request('PATCH', `/categories/${root}`, { body: { parentId: grandchild } });
    assert.equal((await server.request('DELETE', `/categories/${child}`)).status, 204);
    for (const id of [root, child, grandchild]) assert.notEqual(await deletedAt('categories', id), null);
  });

  it('a write naming a missing parent is 409 FOREIGN_KEY_VIOLATION and writes nothing', async () => {
    const res = await server.request('POST', '/projects', { body: { name: 'orphan', tenant: 't1', ownerId: MISSING } });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'FOREIGN_KEY_VIOLATION');
    assert.equal((await rows('projects', 'name', 'orphan')).length, 0);

    const t = await tree(false);
    const patch = await server.request('PATCH', `/badges/${t.badge}`, { body: { ownerId: MISSING } });
    assert.equal(patch.status, 409);
    assert.equal(patch.body.error.code, 'FOREIGN_KEY_VIOLATION');
    assert.equal((await rows('badges', 'id', t.badge))[0].ownerId, t.owner);
  });
});

eachBackend('referential actions in the blog', (backend) => {
  const server = useServer(backend);

  it('deleting a post soft-deletes its comments and removes its tag links', async () => {
    const user = (await server.request('POST', '/users', { body: { name: 'Ada', email: 'a@x.org', password: 'long enough' } })).body.data.id;
    const post = (await server.request('POST', '/posts', { body: { title: 'p', userId: user } })).body.data.id;
    const comment = (await server.request('POST', '/comments', { body: { body: 'c', postId: post } })).body.data.id;
    const tag = (await server.request('POST', '/tags', { body: { name: 't' } })).body.data.id;
    await server.request('POST', '/post_tags', { body: { postId: post, tagId: tag } });
    assert.equal((await server.request('DELETE', `/posts/${post}`)).status, 204);
    assert.equal((await server.request('GET', `/comments/${comment}`)).status, 404);
    const [row] = await server.app.db.raw('SELECT deleted_at FROM comments WHERE id = ?', [comment]);
    assert.notEqual(row.deleted_at, null);
    assert.equal((await server.app.db.raw('SELECT id FROM post_tags WHERE "postId" = ?', [post])).length, 0);
    assert.equal((await server.request('GET', `/tags/${tag}`)).status, 200);
  });

  it('a hard delete with children and no onDelete is 409 DELETE_RESTRICTED', async () => {
    const user = (await server.request('POST', '/users', { body: { name: 'Bob', email: 'b@x.org', password: 'long enough' } })).body.data.id;
    const post = (await server.request('POST', '/posts', { body: { title: 'p', userId: user } })).body.data.id;
    await server.request('POST', '/comments', { body: { body: 'c', postId: post, userId: user } });
    const res = await server.request('DELETE', `/users/${user}`);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'DELETE_RESTRICTED');
    assert.match(res.body.error.message, /Comment record still refers to it through Comment\.userId \(no onDelete action\)/);
    assert.equal((await server.request('GET', `/users/${user}`)).status, 200);
    assert.equal((await server.request('GET', `/posts/${post}`)).status, 200);
  });
});
