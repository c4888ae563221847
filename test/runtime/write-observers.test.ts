// Write observers: one signal for every write of the generated routes and every row a
// delete cascades to, inside the write's transaction, with the row before it when asked.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ApiError, type App, createServer, type Executor, loadManifest, openSqlite, RegistrationClosedError, type WriteChange, type WriteObserver } from '@mfx/runtime';
import { notify, ObserverError, type ObserverPlan } from '../../runtime/src/pipeline/write-observers.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { eachBackend, useServer } from '../support/suite.js';

interface Seen {
  model: string;
  op: string;
  cascade: string | null;
  id: unknown;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** The changed row as the observer's transaction sees it (undefined: not looked up). */
  inTx?: Record<string, unknown> | null;
}

eachBackend('write observers', (backend) => {
  const seen: Seen[] = [];
  const callbacks: string[] = [];
  let failOn: string | null = null;

  const server = useServer(backend, {
    fixture: 'query',
    setup(app) {
      const recorded = ['Owner', 'Project', 'Task', 'Note', 'Badge'];
      app.observeWrites({
        name: 'recorder',
        needsBefore: true,
        needsTransaction: true,
        async observe(tx, change: WriteChange) {
          const id = change.after?.id ?? change.before?.id;
          const row = await tx.get(`SELECT * FROM ${tx.dialect.quote(change.model.table)} WHERE id = ${tx.dialect.param(1)}`, [id]);
          seen.push({
            model: change.model.name,
            op: change.op,
            cascade: change.cascade ? `${change.cascade.action}:${change.cascade.depth}:${change.cascade.relation.key}` : null,
            id,
            before: change.before,
            after: change.after,
            inTx: row ?? null,
          });
          change.caller.afterCommit(() => void callbacks.push(`commit:${change.model.name}:${change.op}`));
          change.caller.onRollback(() => void callbacks.push(`rollback:${change.model.name}:${change.op}`));
          if (failOn === `${change.model.name}:${change.op}`) throw new Error('observer refused');
        },
      }, { models: recorded });
      // Follows Badge updates only, without asking for the row before (a direct update gives it null).
      app.observeWrites(
        {
          name: 'badge-updates',
          ops: ['update'],
          observe: (_tx, change) =>
            void seen.push({ model: `${change.model.name}(light)`, op: change.op, cascade: change.cascade?.action ?? null, id: change.after?.id, before: change.before, after: change.after }),
        },
        { models: ['Badge', 'Category'] },
      );
    },
  });

  const create = async (path: string, body: Record<string, unknown>) => {
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  const reset = () => {
    seen.length = 0;
    callbacks.length = 0;
    failOn = null;
  };
  /** An owner with a project, two tasks (one with a note) and a badge. */
  const tree = async () => {
    const owner = await create('/owners', { name: 'O', tenant: 't1' });
    const project = await create('/projects', { name: 'P', tenant: 't1', ownerId: owner });
    const task1 = await create('/tasks', { title: 'T1', tenant: 't1', projectId: project });
    const task2 = await create('/tasks', { title: 'T2', tenant: 't1', projectId: project });
    const note = await create('/notes', { text: 'N', taskId: task1 });
    const badge = await create('/badges', { label: 'B', ownerId: owner });
    return { owner, project, task1, task2, note, badge };
  };

  it('sees a create with the row after it, and an update with the row before and after', async () => {
    reset();
    const id = await create('/owners', { name: 'Ada', tenant: 't1' });
    assert.deepEqual(
      seen.map((s) => [s.model, s.op, s.cascade, s.before, s.after?.name]),
      [['Owner', 'create', null, null, 'Ada']],
    );
    assert.equal(seen[0].inTx?.name, 'Ada', 'the observer runs after the row is written');
    reset();
    assert.equal((await server.request('PATCH', `/owners/${id}`, { body: { name: 'Ada L.' } })).status, 200);
    assert.deepEqual(seen.map((s) => [s.model, s.op, s.before?.name, s.after?.name]), [['Owner', 'update', 'Ada', 'Ada L.']]);
    assert.deepEqual(callbacks, ['commit:Owner:update']);
  });

  it('the row before is read once for every observer of a write, and only when one asks for it', async () => {
    const badge = await create('/badges', { label: 'light' });
    reset();
    assert.equal((await server.request('PATCH', `/badges/${badge}`, { body: { label: 'lighter' } })).status, 200);
    const light = seen.find((s) => s.model === 'Badge(light)')!;
    const full = seen.find((s) => s.model === 'Badge')!;
    assert.equal(light.before?.label, 'light');
    assert.equal(light.before, full.before, 'both observers get the one pre-image');
    const category = await create('/categories', { name: 'c', kind: 'k' });
    reset();
    assert.equal((await server.request('PATCH', `/categories/${category}`, { body: { name: 'd' } })).status, 200);
    assert.deepEqual(seen.map((s) => [s.model, s.before, s.after?.name]), [['Category(light)', null, 'd']]);
  });

  it('a PATCH that writes nothing is not observed', async () => {
    const id = await create('/owners', { name: 'Quiet', tenant: 't1' });
    reset();
    assert.equal((await server.request('PATCH', `/owners/${id}`, { body: { unknown: 1 } })).status, 200);
    assert.deepEqual(seen, []);
  });

  it('sees the deleted row and every row its delete cascades to or clears, in the delete transaction', async () => {
    const t = await tree();
    reset();
    assert.equal((await server.request('DELETE', `/owners/${t.owner}`)).status, 204);
    const rows = seen.map((s) => `${s.model}:${s.op}:${s.cascade ?? 'direct'}`).sort();
    assert.deepEqual(rows, [
      'Badge(light):update:setNull',
      'Badge:update:setNull:1:owner',
      'Note:delete:delete:3:task',
      'Owner:delete:direct',
      'Project:delete:delete:1:owner',
      'Task:delete:delete:2:project',
      'Task:delete:delete:2:project',
    ]);
    const badge = seen.find((s) => s.model === 'Badge')!;
    assert.equal(badge.before?.ownerId, t.owner);
    assert.equal(badge.after?.ownerId, null);
    assert.equal(badge.inTx?.ownerId, null, 'the observer sees the cleared row inside the transaction');
    const light = seen.find((s) => s.model === 'Badge(light)')!;
    assert.equal(light.before?.ownerId, t.owner, 'cascaded rows always come with the row before: the delete read it anyway');
    const owner = seen.find((s) => s.model === 'Owner')!;
    assert.equal(owner.before?.name, 'O');
    assert.equal(owner.after, null);
    assert.equal(owner.inTx, null, 'the owner row is already gone inside the transaction');
    assert.ok(seen.some((s) => s.model === 'Note' && s.id === t.note));
    assert.deepEqual([...new Set(callbacks)].sort(), ['commit:Badge:update', 'commit:Note:delete', 'commit:Owner:delete', 'commit:Project:delete', 'commit:Task:delete']);
  });

  it('an observer that throws rolls the whole delete back, cascades included, and runs the rollback callbacks', async () => {
    const t = await tree();
    reset();
    failOn = 'Owner:delete';
    const res = await server.request('DELETE', `/owners/${t.owner}`);
    assert.equal(res.status, 500);
    assert.deepEqual(res.body.error, { code: 'INTERNAL', message: 'internal server error' });
    assert.ok(server.logs.some((l) => l.message === 'write observer returned an error' && l.fields.observer === 'recorder'));
    assert.equal((await server.request('GET', `/owners/${t.owner}`)).status, 200);
    assert.equal((await server.request('GET', `/projects/${t.project}`)).status, 200);
    assert.equal((await server.request('GET', `/notes/${t.note}`)).status, 200);
    assert.equal((await server.request('GET', `/badges/${t.badge}`)).body.data.ownerId, t.owner);
    assert.equal(callbacks.filter((c) => c.startsWith('commit:')).length, 0, 'no after-commit callback runs on rollback');
    assert.ok(callbacks.includes('rollback:Badge:update') && callbacks.includes('rollback:Owner:delete'));
  });

  it('an observer that throws on create leaves nothing written', async () => {
    reset();
    failOn = 'Badge:create';
    const res = await server.request('POST', '/badges', { body: { label: 'never' } });
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, 'INTERNAL');
    assert.equal((await server.request('GET', '/badges?filter=label:eq:never')).body.meta.total, 0);
  });
});

describe('write observers at startup', () => {
  const open = async () => {
    const app = createServer({ port: 0, handleSignals: false, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    app.register(loadManifest(await fixtureManifestDir('query')));
    app.setDB(openSqlite(':memory:', app.registry));
    return app;
  };
  const noop = { name: 'noop', observe() {} };

  it('refuses an observer scoped to a model that is not registered', async () => {
    const app: App = await open();
    app.observeWrites(noop, { models: ['Nope'] });
    assert.throws(() => app.handler(), /a write observer names model Nope, which is not registered/);
  });

  it('refuses an observer without a name or observe, and any after the server sealed', async () => {
    const app = await open();
    assert.throws(() => app.observeWrites({} as never), /a write observer needs \{ name, observe\(tx, change\) \}/);
    app.handler();
    assert.throws(() => app.observeWrites(noop), RegistrationClosedError);
  });
});

describe('notify', () => {
  const change = {} as WriteChange;
  const tx = {} as Executor;
  const planOf = (observers: WriteObserver[]): ObserverPlan => ({ observers, needsBefore: false, needsTransaction: false, needsLock: false, refusesOutsideTransaction: null });

  it('calls observers that answer now in order, without a promise', () => {
    const calls: string[] = [];
    const result = notify(tx, planOf(['a', 'b', 'c'].map((name) => ({ name, observe: () => void calls.push(name) }))), change);
    assert.equal(result, undefined);
    assert.deepEqual(calls, ['a', 'b', 'c']);
  });

  it('waits for an observer that returns a promise before calling the next one', async () => {
    const calls: string[] = [];
    const result = notify(
      tx,
      planOf([
        { name: 'a', observe: () => void calls.push('a') },
        { name: 'b', observe: async () => void calls.push(await Promise.resolve('b')) },
        { name: 'c', observe: () => void calls.push('c') },
      ]),
      change,
    );
    assert.ok(result instanceof Promise);
    assert.deepEqual(calls, ['a']);
    await result;
    assert.deepEqual(calls, ['a', 'b', 'c']);
  });

  it("names the observer that failed, thrown at once or rejected, and stops there; an ApiError stays itself", async () => {
    const after = { name: 'after', observe: () => assert.fail('an observer after a failure ran') };
    assert.throws(
      () => notify(tx, planOf([{ name: 'sync', observe: () => { throw new Error('boom'); } }, after]), change),
      (error) => error instanceof ObserverError && error.observer === 'sync' && (error.cause as Error).message === 'boom',
    );
    await assert.rejects(
      Promise.resolve(notify(tx, planOf([{ name: 'async', observe: async () => { throw new Error('later'); } }, after]), change)),
      (error) => error instanceof ObserverError && error.observer === 'async',
    );
    const refused = new ApiError('CONFLICT', 'taken');
    assert.throws(() => notify(tx, planOf([{ name: 'api', observe: () => { throw refused; } }]), change), (error) => error === refused);
  });
});
