// The transaction hook, after-commit callbacks, nested transactions and raw SQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, createServer, NestedTransactionError, transaction } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('transactions', (backend) => {
  const events: string[] = [];
  const server = useServer(backend, {
    // Hooks here answer made-up statuses (401, 403, 418) and shapes on purpose; the document cannot list them.
    validateResponses: false,
    setup(app) {
      // Tags run in a transaction (registered twice: harmless); companies do not.
      app.use('service', transaction(), { models: ['Tag'] });
      app.use('service', transaction(), { models: ['Tag'] });
      app.use('service', async (ctx, next) => {
        const mode = ctx.req.headers['x-test-mode'];
        ctx.afterCommit(() => events.push(`after-commit:${ctx.requestId}`));
        ctx.onRollback(() => events.push(`rollback:${ctx.requestId}`));
        events.push(`service:${ctx.requestId}`);
        if (mode === 'nested') await ctx.db.transaction(async () => {});
        if (mode === 'raw' || mode === 'raw-then-fail') {
          const now = new Date().toISOString();
          await ctx.db.raw('INSERT INTO tags (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', [`raw-${ctx.requestId}`, `raw ${ctx.requestId}`, now, now]);
        }
        await next();
      });
      app.use('db', async (ctx, next) => {
        const mode = ctx.req.headers['x-test-mode'];
        if (mode === 'fail-after-write' || mode === 'raw-then-fail') throw new ApiError('FORBIDDEN', 'refused after the write');
        await next();
      }, { position: 'after' });
      app.use('response', async (ctx, next) => {
        await next();
        if (ctx.req.headers['x-test-mode'] === 'late-409') ctx.respond(409, { error: { code: 'CONFLICT', message: 'late' } });
      }, { position: 'after' });
    },
  });

  const tagNamed = async (name: string) => (await server.app.db.raw('SELECT id FROM tags WHERE name = ?', [name])).length;

  it('commits when nothing failed and the response is below 400, then runs after-commit callbacks', async () => {
    const res = await server.request('POST', '/tags', { body: { name: 'committed' } });
    assert.equal(res.status, 201);
    assert.equal(await tagNamed('committed'), 1);
    const id = res.headers.get('x-request-id');
    assert.ok(events.indexOf(`after-commit:${id}`) > events.indexOf(`service:${id}`));
  });

  it('rolls back when a later step fails, and drops the after-commit callbacks', async () => {
    const res = await server.request('POST', '/tags', { body: { name: 'rolled back' }, headers: { 'x-test-mode': 'fail-after-write' } });
    assert.equal(res.status, 403);
    assert.equal(await tagNamed('rolled back'), 0);
    assert.equal(events.includes(`after-commit:${res.headers.get('x-request-id')}`), false);
  });

  it('rolls back when the final response status is 400 or above', async () => {
    const res = await server.request('POST', '/tags', { body: { name: 'late conflict' }, headers: { 'x-test-mode': 'late-409' } });
    assert.equal(res.status, 409);
    assert.equal(await tagNamed('late conflict'), 0);
    assert.equal(events.includes(`after-commit:${res.headers.get('x-request-id')}`), false);
  });

  it('runs onRollback callbacks after a rollback and drops them on commit', async () => {
    const failed = await server.request('POST', '/tags', { body: { name: 'undone' }, headers: { 'x-test-mode': 'fail-after-write' } });
    assert.equal(failed.status, 403);
    assert.ok(events.includes(`rollback:${failed.headers.get('x-request-id')}`));
    const ok = await server.request('POST', '/tags', { body: { name: 'kept' } });
    assert.equal(ok.status, 201);
    assert.equal(events.includes(`rollback:${ok.headers.get('x-request-id')}`), false);
    // Companies run without a transaction: there is nothing to roll back, so the callback is dropped.
    const plain = await server.request('POST', '/companies', { body: { name: 'plain' }, headers: { 'x-test-mode': 'fail-after-write' } });
    assert.equal(plain.status, 403);
    assert.equal(events.includes(`rollback:${plain.headers.get('x-request-id')}`), false);
  });

  it('runs raw SQL inside the request transaction: committed with it, rolled back with it', async () => {
    const ok = await server.request('POST', '/tags', { body: { name: 'raw ok' }, headers: { 'x-test-mode': 'raw' } });
    assert.equal(ok.status, 201);
    assert.equal(await tagNamed(`raw ${ok.headers.get('x-request-id')}`), 1);
    const failed = await server.request('POST', '/tags', { body: { name: 'raw failed' }, headers: { 'x-test-mode': 'raw-then-fail' } });
    assert.equal(failed.status, 403);
    assert.equal(await tagNamed(`raw ${failed.headers.get('x-request-id')}`), 0);
    assert.equal(await tagNamed('raw failed'), 0);
  });

  it('refuses a transaction started inside an active one', async () => {
    const res = await server.request('POST', '/tags', { body: { name: 'nested' }, headers: { 'x-test-mode': 'nested' } });
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, 'INTERNAL');
    assert.equal(await tagNamed('nested'), 0);
    assert.ok(server.logs.some((l) => String(l.fields.err).includes('nested transactions are not supported')));
    await assert.rejects(server.app.db.transaction((tx) => tx.transaction(async () => {})), NestedTransactionError);
  });

  it('runs after-commit callbacks at once when no transaction is active', async () => {
    const res = await server.request('POST', '/companies', { body: { name: 'No transaction' } });
    assert.equal(res.status, 201);
    const id = res.headers.get('x-request-id');
    assert.equal(events.indexOf(`after-commit:${id}`), events.indexOf(`service:${id}`) - 1, 'the callback ran when it was registered');
  });

  it('serialises concurrent transactions: every one commits', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => server.request('POST', '/tags', { body: { name: `concurrent ${i}` } })));
    assert.deepEqual(results.map((r) => r.status), Array(20).fill(201));
    const rows = await server.app.db.raw("SELECT COUNT(*) AS n FROM tags WHERE name LIKE 'concurrent %'");
    assert.equal(Number(rows[0].n), 20);
  });

  it('binds raw SQL values with ? placeholders, booleans as booleans', async () => {
    const user = (await server.request('POST', '/users', { body: { name: 'Raw', email: 'raw@example.com' } })).body.data;
    const post = (await server.request('POST', '/posts', { body: { title: 'Raw', userId: user.id } })).body.data;
    await server.request('POST', '/comments', { body: { body: 'yes', postId: post.id, approved: true } });
    await server.request('POST', '/comments', { body: { body: 'no', postId: post.id, approved: false } });
    const approved = await server.app.db.raw('SELECT body FROM comments WHERE "postId" = ? AND approved = ? ORDER BY body', [post.id, true]);
    assert.deepEqual(approved.map((r) => r.body), ['yes']);
    const quoted = await server.app.db.raw("SELECT COUNT(*) AS n FROM comments WHERE body = '?' OR body = ?", ['no']);
    assert.equal(Number(quoted[0].n), 1, 'a ? inside a string literal is not a placeholder');
  });
});

describe('transaction hook registration', () => {
  it('requires the default before position', () => {
    const app = createServer({ handleSignals: false });
    assert.throws(() => app.use('service', transaction(), { position: 'after' }), /only works at the default before position/);
    assert.throws(() => app.use('service', transaction(), { position: 'replace' }), /only works at the default before position/);
    app.use('service', transaction(), { position: 'before' });
  });
});
