// Versioning: the <model>_history table, the diff rules, the history route and concurrent writers.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ApiError, describeHook, historyOf, silentLogger, transaction } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';
import { gate, until } from '../support/wait.js';

eachBackend('history', (backend) => {
  const server = useServer(backend, {
    fixture: 'lifecycle',
    setup(app) {
      // x-user plays the authenticator; x-hide-tenant plays a scope hook that hides another tenant's notes.
      app.use('auth', async (ctx, next) => {
        const user = ctx.req.headers['x-user'];
        if (typeof user === 'string') ctx.identity = { userId: user, roles: [], claims: {}, tenantId: null, identityType: 'human', scopes: [], sessionId: null, authMethod: 'test' };
        const tenant = ctx.req.headers['x-tenant'];
        if (typeof tenant === 'string') ctx.scope.push({ field: 'tenant', value: tenant });
        await next();
      });
      // Declared as a gate so the OpenAPI document lists its 403 (the harness checks every answer against it).
      app.use('auth', describeHook(async (ctx, next) => {
        if (ctx.req.headers['x-deny-read'] === 'yes') throw new ApiError('FORBIDDEN', 'read denied');
        await next();
      }, { role: 'gate', label: 'x-deny-read gate' }), { models: ['Note'], ops: ['read'] });
      app.use('auth', async (ctx, next) => {
        ctx.headers['X-History-Hook'] = 'ran';
        await next();
      }, { models: ['Note'], ops: ['history'] });
      app.use('service', transaction(), { models: ['Ledger'] });
      app.use('db', describeHook(async (ctx, next) => {
        await next();
        if (ctx.req.headers['x-fail-after'] === 'yes') throw new ApiError('FORBIDDEN', 'refused after the write');
      }, { role: 'gate', label: 'x-fail-after gate' }), { models: ['Ledger'] });
    },
  });

  const historyRows = async (table: string, recordId: string) =>
    server.app.db.raw(`SELECT version, operation FROM ${table} WHERE record_id = ? ORDER BY version`, [recordId]);

  it('migrates <model>_history with the spec columns and a unique (record_id, version) index', async () => {
    const tables = await server.app.db.introspect();
    const columns = tables.get('note_history')?.map((c) => c.name);
    assert.deepEqual(columns, ['id', 'record_id', 'version', 'operation', 'actor_id', 'timestamp', 'request_id', 'diff', 'snapshot']);
    assert.ok(tables.has('draft_history') && tables.has('ledger_history'));
    assert.equal(tables.has('order_history'), false);
    const now = new Date().toISOString();
    const insert = 'INSERT INTO note_history (id, record_id, version, operation, timestamp, diff) VALUES (?, ?, ?, ?, ?, ?)';
    await server.app.db.raw(insert, ['h1', 'r-unique', 1, 'create', now, '{}']);
    await assert.rejects(server.app.db.raw(insert, ['h2', 'r-unique', 1, 'create', now, '{}']));
    await server.app.db.raw('DELETE FROM note_history WHERE record_id = ?', ['r-unique']);
  });

  it('writes one row per create, update and delete with the diff rules, actor and request id', async () => {
    const created = await server.request('POST', '/notes', {
      body: { title: 'first', stars: 2, internal: 'x', secret: 's3cret' },
      headers: { 'x-user': 'ada', 'x-request-id': 'req-create-1' },
    });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    const updated = await server.request('PATCH', `/notes/${id}`, { body: { title: 'second', secret: 'other' }, headers: { 'x-user': 'bob', 'x-request-id': 'req-update-1' } });
    assert.equal(updated.status, 200);
    assert.equal((await server.request('DELETE', `/notes/${id}`, { headers: { 'x-request-id': 'req-delete-1' } })).status, 204);

    const res = await server.request('GET', `/notes/${id}/history`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.meta, { total: 3, page: 1, limit: 20, pages: 1 });
    const [del, upd, cre] = res.body.data;
    assert.deepEqual([del.version, upd.version, cre.version], [3, 2, 1]);
    assert.deepEqual([del.operation, upd.operation, cre.operation], ['delete', 'update', 'create']);
    assert.deepEqual([cre.actor_id, upd.actor_id, del.actor_id], ['ada', 'bob', null]);
    assert.deepEqual([cre.request_id, upd.request_id, del.request_id], ['req-create-1', 'req-update-1', 'req-delete-1']);
    assert.ok(!Number.isNaN(Date.parse(cre.timestamp)));

    // create: every non-null field, old null; never id, hidden or writeonly fields
    const c = created.body.data;
    assert.deepEqual(cre.diff, {
      title: { old: null, new: 'first' },
      stars: { old: null, new: 2 },
      created_at: { old: null, new: c.created_at },
      updated_at: { old: null, new: c.updated_at },
    });
    // update: only changed fields (the writeonly secret changed too, but is never recorded)
    assert.deepEqual(Object.keys(upd.diff).sort(), ['title', 'updated_at']);
    assert.deepEqual(upd.diff.title, { old: 'first', new: 'second' });
    // delete: every field old → new null
    assert.deepEqual(del.diff.title, { old: 'second', new: null });
    assert.deepEqual(del.diff.stars, { old: 2, new: null });
    assert.deepEqual(del.diff.body, { old: null, new: null });
    assert.equal('id' in del.diff || 'internal' in del.diff || 'secret' in del.diff, false);
    // the snapshot keeps the id, never hidden or writeonly fields
    assert.equal(upd.snapshot.id, id);
    assert.equal(upd.snapshot.title, 'second');
    assert.equal('internal' in upd.snapshot || 'secret' in upd.snapshot, false);
    assert.equal(del.snapshot.title, 'second');
  });

  it('a PATCH without writable keys writes no history row', async () => {
    const id = (await server.request('POST', '/notes', { body: { title: 'quiet' } })).body.data.id;
    assert.equal((await server.request('PATCH', `/notes/${id}`, { body: {} })).status, 200);
    assert.deepEqual((await historyRows('note_history', id)).map((r) => r.operation), ['create']);
  });

  it('a failed write leaves no history row', async () => {
    const id = (await server.request('POST', '/notes', { body: { title: 'valid' } })).body.data.id;
    const bad = await server.request('PATCH', `/notes/${id}`, { body: { stars: -1 } });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
    assert.equal((await historyRows('note_history', id)).length, 1);
  });

  it('pages newest first with page and limit', async () => {
    const id = (await server.request('POST', '/notes', { body: { title: 'v1' } })).body.data.id;
    for (let i = 2; i <= 5; i++) await server.request('PATCH', `/notes/${id}`, { body: { title: `v${i}` } });
    const res = await server.request('GET', `/notes/${id}/history?page=2&limit=2`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.map((e: { version: number }) => e.version), [3, 2]);
    assert.deepEqual(res.body.meta, { total: 5, page: 2, limit: 2, pages: 3 });
    const bad = await server.request('GET', `/notes/${id}/history?limit=0`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.error, { code: 'INVALID_QUERY', message: 'limit must be at least 1, got "0"' });
  });

  it('refuses filters on history reads: a filter on operation is 400', async () => {
    const id = (await server.request('POST', '/notes', { body: { title: 'filtered' } })).body.data.id;
    const res = await server.request('GET', `/notes/${id}/history?filter=operation:eq:create`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error, {
      code: 'INVALID_QUERY',
      message: "filter is not supported on history reads: a record's history cannot be filtered or sorted; use page and limit",
    });
    assert.equal((await server.request('GET', `/notes/${id}/history?sort=version:asc`)).status, 400);
  });

  it('runs the parent read pipeline: read hooks and history hooks apply, an unreadable record is 404', async () => {
    const id = (await server.request('POST', '/notes', { body: { title: 'hooks', tenant: 'acme' } })).body.data.id;
    const ok = await server.request('GET', `/notes/${id}/history`);
    assert.equal(ok.headers.get('x-history-hook'), 'ran');
    assert.equal((await server.request('GET', `/notes/${id}`)).headers.get('x-history-hook'), null, 'history-scoped hooks match only history reads');
    const denied = await server.request('GET', `/notes/${id}/history`, { headers: { 'x-deny-read': 'yes' } });
    assert.equal(denied.status, 403, 'hooks scoped to read also run for history reads');
    const otherTenant = await server.request('GET', `/notes/${id}/history`, { headers: { 'x-tenant': 'globex' } });
    assert.equal(otherTenant.status, 404);
    assert.deepEqual(otherTenant.body.error, { code: 'NOT_FOUND', message: `no Note with id "${id}"` });
    assert.equal((await server.request('GET', `/notes/${id}/history`, { headers: { 'x-tenant': 'acme' } })).status, 200);
  });

  it('keeps a soft-deleted record’s history readable; a missing or hard-deleted record is 404', async () => {
    const id = (await server.request('POST', '/notes', { body: { title: 'gone soft' } })).body.data.id;
    await server.request('DELETE', `/notes/${id}`);
    const res = await server.request('GET', `/notes/${id}/history`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data[0].operation, 'delete');
    assert.equal((await server.request('GET', '/notes/nope/history')).status, 404);

    const draft = (await server.request('POST', '/drafts', { body: { text: 'hard' } })).body.data.id;
    assert.equal((await server.request('DELETE', `/drafts/${draft}`)).status, 204);
    assert.equal((await historyRows('draft_history', draft)).length, 2, 'rows stay in the table');
    const hard = await server.request('GET', `/drafts/${draft}/history`);
    assert.equal(hard.status, 404);
    assert.equal(hard.body.error.code, 'NOT_FOUND');
  });

  it('diff_only models store no snapshot', async () => {
    const id = (await server.request('POST', '/drafts', { body: { text: 'one' } })).body.data.id;
    await server.request('PATCH', `/drafts/${id}`, { body: { text: 'two' } });
    const res = await server.request('GET', `/drafts/${id}/history`);
    assert.deepEqual(res.body.data.map((e: object) => 'snapshot' in e), [false, false]);
    assert.deepEqual(res.body.data[0].diff.text, { old: 'one', new: 'two' });
    const [row] = await server.app.db.raw('SELECT snapshot FROM draft_history WHERE record_id = ? AND version = 2', [id]);
    assert.equal(row.snapshot, null);
  });

  it('has no /<model>_history route and no history route on unversioned models', async () => {
    assert.equal((await server.request('GET', '/note_history')).status, 404);
    const order = (await server.request('POST', '/orders', { body: { item: 'x', quantity: 1 } })).body.data.id;
    assert.equal((await server.request('GET', `/orders/${order}/history`)).status, 404);
  });

  it('rolls history back with a rolled-back transaction', async () => {
    const id = (await server.request('POST', '/ledgers', { body: { amount: 1 } })).body.data.id;
    const res = await server.request('PATCH', `/ledgers/${id}`, { body: { amount: 2 }, headers: { 'x-fail-after': 'yes' } });
    assert.equal(res.status, 403);
    assert.equal((await server.app.db.raw('SELECT amount FROM ledgers WHERE id = ?', [id]))[0].amount, 1);
    assert.deepEqual((await historyRows('ledger_history', id)).map((r) => r.operation), ['create']);
  });

  it('a failed history write is logged and the write stands; with versioned_required the write fails and rolls back', async () => {
    const draft = (await server.request('POST', '/drafts', { body: { text: 'before' } })).body.data.id;
    const ledger = (await server.request('POST', '/ledgers', { body: { amount: 10 } })).body.data.id;
    await server.app.db.exec('DROP TABLE draft_history');
    await server.app.db.exec('DROP TABLE ledger_history');
    try {
      const soft = await server.request('PATCH', `/drafts/${draft}`, { body: { text: 'after' } });
      assert.equal(soft.status, 200);
      assert.equal(soft.body.data.text, 'after');
      assert.equal((await server.app.db.raw('SELECT text FROM drafts WHERE id = ?', [draft]))[0].text, 'after');
      assert.ok(server.logs.some((l) => l.message === 'history write failed; the write stands' && l.fields.model === 'Draft'));

      const hard = await server.request('PATCH', `/ledgers/${ledger}`, { body: { amount: 20 } });
      assert.equal(hard.status, 500);
      assert.deepEqual(hard.body.error, { code: 'DB_ERROR', message: 'internal server error' });
      assert.equal((await server.app.db.raw('SELECT amount FROM ledgers WHERE id = ?', [ledger]))[0].amount, 10);
      const create = await server.request('POST', '/ledgers', { body: { amount: 99 } });
      assert.equal(create.status, 500);
      assert.equal(Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM ledgers WHERE amount = 99'))[0].n), 0);
    } finally {
      await server.app.migrate();
    }
  });

  it('without the existence-in-scope check the gate falls back to a scoped read: a soft-deleted record answers 404', async () => {
    const id = (await server.request('POST', '/notes', { body: { title: 'fallback' } })).body.data.id;
    await server.request('DELETE', `/notes/${id}`);
    const store = server.app.store('Note') as unknown as { existsInScope?: unknown };
    store.existsInScope = undefined;
    try {
      assert.equal((await server.request('GET', `/notes/${id}/history`)).status, 404);
      const live = (await server.request('POST', '/notes', { body: { title: 'still readable' } })).body.data.id;
      assert.equal((await server.request('GET', `/notes/${live}/history`)).status, 200);
    } finally {
      delete store.existsInScope;
    }
  });

  it('records one row per call of the per-row writer, as referential actions use it inside their transaction', async () => {
    const model = server.app.registry.get('Note')!;
    const id = (await server.request('POST', '/notes', { body: { title: 'child', body: 'in folder' } })).body.data.id;
    const caller = { identity: null, requestId: 'cascade-req', log: silentLogger };
    await server.app.db.transaction(async (tx) => {
      const store = server.app.store('Note');
      const before = (await store.findById(tx, id, { lock: true }))!;
      const after = (await store.update(tx, id, { body: null }))!;
      await historyOf(model, tx.dialect)!.record(tx, 'update', before, after, caller);
    });
    const res = await server.request('GET', `/notes/${id}/history`);
    assert.equal(res.body.data[0].version, 2);
    assert.equal(res.body.data[0].request_id, 'cascade-req');
    assert.deepEqual(res.body.data[0].diff.body, { old: 'in folder', new: null });
  });

  it('records history for the rows a delete cascades to or clears, in the delete transaction', async () => {
    const folder = (await server.request('POST', '/folders', { body: { name: 'Inbox' } })).body.data;
    const page = (await server.request('POST', '/pages', { body: { title: 'Cover', folderId: folder.id } })).body.data;
    const memo = (await server.request('POST', '/memos', { body: { text: 'Call back', folderId: folder.id } })).body.data;
    assert.equal((await server.request('DELETE', `/folders/${folder.id}`, { headers: { 'x-user': 'remover' } })).status, 204);

    // The cascaded page is gone, so its history route is 404; its rows are in the table.
    const pageRows = await server.app.db.raw('SELECT operation, version, actor_id, diff FROM page_history WHERE record_id = ? ORDER BY version', [page.id]);
    assert.deepEqual(pageRows.map((r) => [r.operation, Number(r.version), r.actor_id]), [['create', 1, null], ['delete', 2, 'remover']]);
    const pageDiff = typeof pageRows[1].diff === 'string' ? JSON.parse(pageRows[1].diff) : pageRows[1].diff;
    assert.deepEqual(pageDiff.title, { old: 'Cover', new: null });

    const memoHistory = await server.request('GET', `/memos/${memo.id}/history`);
    assert.equal(memoHistory.status, 200);
    const [update] = memoHistory.body.data;
    assert.equal(update.operation, 'update');
    assert.equal(update.version, 2);
    assert.equal(update.actor_id, 'remover');
    assert.deepEqual(update.diff.folderId, { old: folder.id, new: null });
    assert.equal((await server.request('GET', `/memos/${memo.id}`)).body.data.folderId, null);
  });

  it('the writer retries when a concurrent writer took its version', async () => {
    const model = server.app.registry.get('Note')!;
    const id = (await server.request('POST', '/notes', { body: { title: 'retry' } })).body.data.id;
    const row = (await server.app.store('Note').findById(server.app.db, id))!;
    const caller = { identity: null, requestId: 'retry-req', log: silentLogger };
    const writer = historyOf(model, server.app.db.dialect)!;
    // No row lock here: both transactions read version 1 as the latest; the second collides on the unique index and retries.
    const firstRecorded = gate();
    const secondStarted = gate();
    const secondWaits = gate();
    let secondPid = 0;
    const first = server.app.db.transaction(async (tx) => {
      await writer.record(tx, 'update', row, { ...row, title: 'retry 0' }, caller);
      firstRecorded.open();
      await secondWaits.opened; // commits once the second writer is stuck behind its uncommitted version
    });
    const second = server.app.db.transaction(async (tx) => {
      await firstRecorded.opened;
      if (backend.name === 'postgres') secondPid = (await tx.raw('SELECT pg_backend_pid() AS pid'))[0].pid as number;
      secondStarted.open();
      await writer.record(tx, 'update', row, { ...row, title: 'retry 1' }, caller);
    });
    // PostgreSQL: the second insert of version 2 waits on the first transaction's row (the server shows it waiting on a lock).
    // SQLite runs one write transaction at a time: the second begins once the first has committed.
    const stuck =
      backend.name === 'postgres'
        ? secondStarted.opened.then(() => until(async () => (await server.app.db.raw(`SELECT 1 AS waiting FROM pg_stat_activity WHERE pid = ? AND wait_event_type = 'Lock'`, [secondPid])).length > 0))
        : Promise.resolve(true);
    await Promise.all([first, second, stuck.then(secondWaits.open)]);
    assert.deepEqual((await historyRows('note_history', id)).map((r) => Number(r.version)), [1, 2, 3]);
  });

  it('records every update, also writes that land within one millisecond', async (t) => {
    // Frozen clock: the create and both updates carry the same updated_at.
    t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-11-23T12:00:00.000Z') });
    const id = (await server.request('POST', '/notes', { body: { title: 'same ms', stars: 0 } })).body.data.id;
    assert.equal((await server.request('PATCH', `/notes/${id}`, { body: { stars: 1 } })).status, 200);
    assert.equal((await server.request('PATCH', `/notes/${id}`, { body: { stars: 2 } })).status, 200);
    // A PATCH without writable keys still records nothing.
    assert.equal((await server.request('PATCH', `/notes/${id}`, { body: {} })).status, 200);
    const rows = await historyRows('note_history', id);
    assert.deepEqual(rows.map((r) => [Number(r.version), r.operation]), [[1, 'create'], [2, 'update'], [3, 'update']]);
  });

  it('N concurrent updates of one record get unique, gapless versions', async () => {
    const id = (await server.request('POST', '/notes', { body: { title: 'race', stars: 0 } })).body.data.id;
    const n = 12;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => server.request('PATCH', `/notes/${id}`, { body: { stars: i + 1 } })));
    assert.deepEqual(results.map((r) => r.status), Array(n).fill(200));
    const versions = (await historyRows('note_history', id)).map((r) => Number(r.version));
    assert.deepEqual(versions, Array.from({ length: n + 1 }, (_, i) => i + 1));
  });
});
