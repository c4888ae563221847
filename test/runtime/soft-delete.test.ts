// Soft delete (both markers) and headless models.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('soft delete', (backend) => {
  const server = useServer(backend, { fixture: 'lifecycle' });

  it('timestamp marker: DELETE marks deleted_at (204), the row stays and is hidden from read, list and meta.total', async () => {
    const a = (await server.request('POST', '/notes', { body: { title: 'keep' } })).body.data;
    const b = (await server.request('POST', '/notes', { body: { title: 'drop' } })).body.data;
    const del = await server.request('DELETE', `/notes/${b.id}`);
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    const rows = await server.app.db.raw('SELECT deleted_at FROM notes WHERE id = ?', [b.id]);
    assert.equal(rows.length, 1);
    assert.ok(rows[0].deleted_at);
    const read = await server.request('GET', `/notes/${b.id}`);
    assert.equal(read.status, 404);
    assert.equal(read.body.error.code, 'NOT_FOUND');
    const list = await server.request('GET', '/notes');
    assert.deepEqual(list.body.data.map((n: { id: string }) => n.id), [a.id]);
    assert.equal(list.body.meta.total, 1);
    const patch = await server.request('PATCH', `/notes/${b.id}`, { body: { title: 'revived?' } });
    assert.equal(patch.status, 404);
    assert.equal((await server.app.db.raw('SELECT title FROM notes WHERE id = ?', [b.id]))[0].title, 'drop');
  });

  it('deleting again is 404 and keeps the original marker', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-03-01T09:00:00.000Z') });
    const n = (await server.request('POST', '/notes', { body: { title: 'twice' } })).body.data;
    assert.equal((await server.request('DELETE', `/notes/${n.id}`)).status, 204);
    const [first] = await server.app.db.raw('SELECT deleted_at, updated_at FROM notes WHERE id = ?', [n.id]);
    // A second marking would now write a later time.
    t.mock.timers.tick(1000);
    const again = await server.request('DELETE', `/notes/${n.id}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, 'NOT_FOUND');
    assert.equal(again.body.error.message, `no Note with id "${n.id}"`);
    const [second] = await server.app.db.raw('SELECT deleted_at, updated_at FROM notes WHERE id = ?', [n.id]);
    assert.deepEqual(second, first);
  });

  it('flag marker: DELETE sets is_deleted, reads and lists hide the row, a second DELETE is 404', async () => {
    const t = (await server.request('POST', '/tasks', { body: { title: 'flagged' } })).body.data;
    assert.equal(t.is_deleted, false);
    assert.equal((await server.request('DELETE', `/tasks/${t.id}`)).status, 204);
    const [row] = await server.app.db.raw('SELECT is_deleted FROM tasks WHERE id = ?', [t.id]);
    assert.ok(row.is_deleted === true || row.is_deleted === 1);
    assert.equal((await server.request('GET', `/tasks/${t.id}`)).status, 404);
    const list = await server.request('GET', '/tasks');
    assert.equal(list.body.meta.total, 0);
    assert.equal((await server.request('DELETE', `/tasks/${t.id}`)).status, 404);
  });

  it('a list filter on the marker lifts the automatic exclusion, so deleted rows are reachable through it', async () => {
    const gone = (await server.request('POST', '/notes', { body: { title: 'reachable' } })).body.data.id;
    await server.request('DELETE', `/notes/${gone}`);
    const store = server.app.store('Note');
    const marker = server.app.registry.get('Note')!.field('deleted_at')!;
    const base = { sorts: [], page: 1, limit: 200, include: [], select: null, q: null, cursor: null, locale: null };
    const hidden = await store.list(server.app.db, { ...base, filters: [] });
    assert.equal(hidden.records.some((r) => r.id === gone), false);
    // The query language adds the clause itself to the WHERE; the store only drops its own live condition.
    const visible = await store.list(server.app.db, { ...base, filters: [{ path: [], field: marker, op: 'not_null', value: null, group: 0 }] });
    assert.equal(visible.records.some((r) => r.id === gone), true);
  });

  it('a missing id is 404 and writes nothing', async () => {
    const before = await server.app.db.raw('SELECT COUNT(*) AS n FROM notes WHERE deleted_at IS NOT NULL');
    const res = await server.request('DELETE', '/notes/no-such-note');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: { code: 'NOT_FOUND', message: 'no Note with id "no-such-note"' } });
    assert.deepEqual(await server.app.db.raw('SELECT COUNT(*) AS n FROM notes WHERE deleted_at IS NOT NULL'), before);
  });
});

eachBackend('headless models', (backend) => {
  const server = useServer(backend, {
    fixture: 'lifecycle',
    setup(app) {
      // A headless model's path is free for a custom action to serve.
      app.action({
        method: 'POST',
        path: '/audit_entries/:id/echo',
        public: true,
        status: 201,
        async handler(ctx, input) {
          const body = (await input.json()) as { message: string };
          return app.store('AuditEntry').insert(ctx.db, { message: `${ctx.params.id}: ${body.message}` });
        },
      });
    },
  });

  it('leave their path to a custom action', async () => {
    const res = await server.request('POST', '/audit_entries/a9/echo', { body: { message: 'from an action' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.message, 'a9: from an action');
    await server.app.db.raw('DELETE FROM audit_entries WHERE id = ?', [res.body.data.id]);
  });

  it('are registered and migrated but mount no routes', async () => {
    assert.ok(server.app.registry.get('AuditEntry'));
    const now = new Date().toISOString();
    await server.app.db.raw('INSERT INTO audit_entries (id, message, created_at, updated_at) VALUES (?, ?, ?, ?)', ['a1', 'hello', now, now]);
    assert.equal((await server.app.db.raw('SELECT message FROM audit_entries'))[0].message, 'hello');
    for (const [method, path] of [
      ['GET', '/audit_entries'],
      ['POST', '/audit_entries'],
      ['GET', '/audit_entries/a1'],
      ['PATCH', '/audit_entries/a1'],
      ['DELETE', '/audit_entries/a1'],
    ]) {
      const res = await server.request(method, path, method === 'POST' || method === 'PATCH' ? { body: { message: 'x' } } : {});
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    }
    assert.equal(Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM audit_entries'))[0].n), 1);
  });
});
