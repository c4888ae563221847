// Scheduled field transitions (spec "Record lifecycle"): each directive form
// applied by app.sweepScheduled() through the write path (history with a
// null actor, cascades), guards, edits that win, chains, failures of one row,
// the hooks after commit, and the interval runner.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { ConfigError, createServer, type JsonValue, type MfxEvent, memoryBus, publishEvents, transaction } from '@mfx/runtime';
import { PG_URL } from '../support/backends.js';
import { eachBackend, onlyOn, useServer } from '../support/suite.js';
import { Recorder } from '../support/wait.js';

const past = (minutes = 5) => new Date(Date.now() - minutes * 60_000).toISOString();
const future = (minutes = 60) => new Date(Date.now() + minutes * 60_000).toISOString();

type Hooked = { hook: 'delete'; model: string; id: string } | { hook: 'set'; model: string; id: string; field: string; value: JsonValue };

eachBackend('scheduled transitions', (backend) => {
  const hooks = new Recorder<Hooked>();
  const events = new Recorder<MfxEvent>();
  const server = useServer(backend, {
    fixture: 'scheduled',
    async setup(app) {
      const bus = memoryBus();
      await bus.subscribe({ name: 'scheduled-test', patterns: ['notice.*'], handler: (event) => events.push(event) });
      app.use('db', publishEvents(bus), { position: 'after', models: ['Notice'] });
      app.rollup({ parent: 'Board', field: 'messageCount', child: 'Message', via: 'boardId', op: 'count' });
      app.use('service', transaction(), { models: ['Message'] });
      // A long interval: the tests sweep with sweepScheduled(); batches of 2 make every sweep run several.
      app.scheduler({
        interval: '1h',
        batchSize: 2,
        onDelete: (model, id) => hooks.push({ hook: 'delete', model, id }),
        onSetField: (model, id, field, value) => hooks.push({ hook: 'set', model, id, field, value }),
      });
    },
  });

  const create = async (path: string, body: Record<string, unknown>) => {
    const response = await server.request('POST', path, { body });
    assert.equal(response.status, 201, response.text);
    return response.body.data as Record<string, any>;
  };
  const read = async (path: string) => server.request('GET', path);
  const history = async (table: string, id: string) =>
    server.app.db.raw(`SELECT version, operation, actor_id, request_id FROM ${table} WHERE record_id = ? ORDER BY version`, [id]);
  const row = async (table: string, id: string) => (await server.app.db.raw(`SELECT * FROM ${table} WHERE id = ?`, [id]))[0];

  it('set-field with a guard: draft becomes live, the time is cleared in the same write, history has a null actor', async () => {
    const notice = await create('/sched_notices', { title: 'launch', publishAt: past() });
    const report = await server.app.sweepScheduled();
    assert.ok(report.fieldsSet >= 1 && report.failed === 0, JSON.stringify(report));
    const after = (await read(`/sched_notices/${notice.id}`)).body.data;
    assert.deepEqual([after.state, after.publishAt], ['live', null]);
    const rows = await history('notice_history', notice.id);
    assert.deepEqual(rows.map((r) => [r.version, r.operation, r.actor_id]), [[1, 'create', null], [2, 'update', null]]);
    assert.match(String(rows[1].request_id), /^scheduler-/);
    assert.deepEqual(await hooks.next((h) => h.id === notice.id), { hook: 'set', model: 'Notice', id: notice.id, field: 'state', value: 'live' });
    // publishEvents follows writes as an observer: the transition is an update event with no actor.
    const event = await events.next((e) => e.recordId === notice.id && e.type === 'notice.updated');
    assert.deepEqual([event.actorId, event.data?.state, event.data?.publishAt, event.requestId], [null, 'live', null, rows[1].request_id]);
  });

  it('a guarded row whose field no longer holds `from` is left untouched, its time kept', async () => {
    const notice = await create('/sched_notices', { title: 'already archived', state: 'archived', publishAt: past() });
    await server.app.sweepScheduled();
    const after = (await read(`/sched_notices/${notice.id}`)).body.data;
    assert.deepEqual([after.state, after.publishAt, after.updated_at], ['archived', notice.publishAt, notice.updated_at]);
    assert.equal((await history('notice_history', notice.id)).length, 1);
  });

  it('rows not yet due and rows with no time are left alone', async () => {
    const later = await create('/sched_notices', { title: 'later', publishAt: future(), expiresAt: future() });
    const never = await create('/sched_notices', { title: 'never' });
    await server.app.sweepScheduled();
    assert.deepEqual((await read(`/sched_notices/${later.id}`)).body.data, later);
    assert.deepEqual((await read(`/sched_notices/${never.id}`)).body.data, never);
  });

  it('set-field without a guard sets the value whatever the field held', async () => {
    const board = await create('/boards', { name: 'pinned', pinned: true, unpinAt: past() });
    await server.app.sweepScheduled();
    const after = (await read(`/boards/${board.id}`)).body.data;
    assert.deepEqual([after.pinned, after.unpinAt], [false, null]);
  });

  it('chained transitions: both in one sweep when both are due (declaration order), else the second once it is due', async () => {
    const both = await create('/sched_notices', { title: 'both due', publishAt: past(10), archiveAt: past(5) });
    const chained = await create('/sched_notices', { title: 'second later', publishAt: past(10), archiveAt: future() });
    await server.app.sweepScheduled();
    const first = (await read(`/sched_notices/${both.id}`)).body.data;
    assert.deepEqual([first.state, first.publishAt, first.archiveAt], ['archived', null, null]);
    assert.deepEqual((await history('notice_history', both.id)).map((r) => r.operation), ['create', 'update', 'update']);
    assert.equal((await read(`/sched_notices/${chained.id}`)).body.data.state, 'live');
    // The second time comes due (an edit moves it into the past): the next sweep archives.
    assert.equal((await server.request('PATCH', `/sched_notices/${chained.id}`, { body: { archiveAt: past(1) } })).status, 200);
    await server.app.sweepScheduled();
    const second = (await read(`/sched_notices/${chained.id}`)).body.data;
    assert.deepEqual([second.state, second.archiveAt], ['archived', null]);
  });

  it('soft-delete: the record is gone from reads and lists over HTTP, kept in the table with its time, history and the hook follow', async () => {
    const notice = await create('/sched_notices', { title: 'expiring soon', expiresAt: past() });
    const report = await server.app.sweepScheduled();
    assert.ok(report.softDeleted >= 1, JSON.stringify(report));
    const gone = await read(`/sched_notices/${notice.id}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, 'NOT_FOUND');
    const list = await read('/sched_notices?limit=100');
    assert.equal(list.body.data.some((n: { id: string }) => n.id === notice.id), false);
    const stored = await row('sched_notices', notice.id);
    assert.ok(stored.deleted_at !== null);
    assert.equal(new Date(stored.expiresAt as string).toISOString(), notice.expiresAt);
    assert.deepEqual((await history('notice_history', notice.id)).map((r) => [r.operation, r.actor_id]), [['create', null], ['delete', null]]);
    assert.deepEqual(await hooks.next((h) => h.id === notice.id), { hook: 'delete', model: 'Notice', id: notice.id });
  });

  it('soft-delete, then hard-delete once the purge time passes: the soft-deleted row is removed', async () => {
    const notice = await create('/sched_notices', { title: 'expire then purge', expiresAt: past(10), purgeAt: future() });
    await server.app.sweepScheduled();
    assert.ok((await row('sched_notices', notice.id)).deleted_at !== null);
    // Nothing over HTTP reaches a deleted row: the purge time is moved in the table.
    await server.app.db.raw('UPDATE sched_notices SET "purgeAt" = ? WHERE id = ?', [past(1), notice.id]);
    const report = await server.app.sweepScheduled();
    assert.ok(report.hardDeleted >= 1, JSON.stringify(report));
    assert.equal(await row('sched_notices', notice.id), undefined);
    assert.deepEqual((await history('notice_history', notice.id)).map((r) => r.operation), ['create', 'delete', 'delete']);
  });

  it('hard-delete cascades: the messages go with the board, each with a history row of a null actor', async () => {
    const board = await create('/boards', { name: 'closing', pinned: false, closeAt: past() });
    const messages = [await create('/messages', { text: 'a', boardId: board.id }), await create('/messages', { text: 'b', boardId: board.id })];
    const report = await server.app.sweepScheduled();
    assert.ok(report.hardDeleted >= 1, JSON.stringify(report));
    assert.equal((await read(`/boards/${board.id}`)).status, 404);
    assert.equal(await row('boards', board.id), undefined);
    for (const message of messages) {
      assert.equal(await row('messages', message.id), undefined);
      assert.deepEqual((await history('message_history', message.id)).map((r) => [r.operation, r.actor_id]), [['create', null], ['delete', null]]);
    }
    assert.deepEqual(await hooks.next((h) => h.id === board.id), { hook: 'delete', model: 'Board', id: board.id });
  });

  it("a row of the batch that an earlier row's cascade changed is read again: its own removal records it as the cascade left it", async () => {
    const parent = await create('/sched_topics', { name: 'parent', removeAt: past(10) });
    const child = await create('/sched_topics', { name: 'child', parentId: parent.id, removeAt: past(5) });
    const report = await server.app.sweepScheduled();
    assert.ok(report.hardDeleted >= 2 && report.failed === 0, JSON.stringify(report));
    assert.equal(await row('sched_topics', parent.id), undefined);
    assert.equal(await row('sched_topics', child.id), undefined);
    // One batch: the parent's removal cleared the child's parentId (setNull), then the child's own turn removed it.
    const entries = await server.app.db.raw('SELECT operation, actor_id, snapshot FROM topic_history WHERE record_id = ? ORDER BY version', [child.id]);
    assert.deepEqual(entries.map((e) => [e.operation, e.actor_id]), [['create', null], ['update', null], ['delete', null]]);
    const removed = typeof entries[2].snapshot === 'string' ? JSON.parse(entries[2].snapshot) : entries[2].snapshot;
    assert.equal(removed.parentId, null, 'the snapshot of the removal has the parent the cascade cleared, not the one the batch first read');
  });

  it('a rollup follows: a message removed by its schedule leaves the count of its board', async () => {
    const board = await create('/boards', { name: 'counted', pinned: false });
    await create('/messages', { text: 'stays', boardId: board.id });
    await create('/messages', { text: 'goes', boardId: board.id, expiresAt: past() });
    assert.equal((await read(`/boards/${board.id}`)).body.data.messageCount, 2);
    await server.app.sweepScheduled();
    assert.equal((await read(`/boards/${board.id}`)).body.data.messageCount, 1);
  });

  it('a row that cannot be removed fails alone: logged, counted, still due; the other rows of its batches are applied', async () => {
    const held = await create('/shelves', { label: 'held', removeAt: past(10) });
    await create('/books', { title: 'standing', shelfId: held.id });
    const free = [await create('/shelves', { label: 'free 1', removeAt: past(5) }), await create('/shelves', { label: 'free 2', removeAt: past(4) }), await create('/shelves', { label: 'free 3', removeAt: past(3) })];
    const report = await server.app.sweepScheduled();
    assert.equal(report.failed, 1);
    assert.ok(report.hardDeleted >= 3, JSON.stringify(report));
    for (const shelf of free) assert.equal(await row('shelves', shelf.id), undefined);
    assert.equal((await read(`/shelves/${held.id}`)).body.data.removeAt, held.removeAt);
    const line = await server.logLine((l) => l.message === 'scheduled transition failed; the row stays due' && l.fields.id === held.id);
    assert.equal(line.level, 'error');
    assert.deepEqual([line.fields.model, line.fields.field], ['Shelf', 'removeAt']);
    assert.match(String(line.fields.err), /cannot delete this Shelf: 1 Book record still refers to it/);
  });

  it('an edit before the sweep wins: a cleared time, or a guarded field moved away from `from`', async () => {
    const cleared = await create('/sched_notices', { title: 'cancelled', publishAt: past() });
    const moved = await create('/sched_notices', { title: 'moved', publishAt: past() });
    assert.equal((await server.request('PATCH', `/sched_notices/${cleared.id}`, { body: { publishAt: null } })).status, 200);
    assert.equal((await server.request('PATCH', `/sched_notices/${moved.id}`, { body: { state: 'archived' } })).status, 200);
    await server.app.sweepScheduled();
    assert.deepEqual((await read(`/sched_notices/${cleared.id}`)).body.data.state, 'draft');
    const after = (await read(`/sched_notices/${moved.id}`)).body.data;
    assert.deepEqual([after.state, after.publishAt], ['archived', moved.publishAt]);
  });

  it('a row another transaction holds is left to a later sweep, and the edit it commits wins', { ...onlyOn(backend, 'postgres', 'only PostgreSQL has row locks another session can hold; SQLite serialises write transactions'), timeout: 60_000 }, async () => {
    const schema = (await server.app.db.raw('SELECT current_schema() AS s'))[0].s as string;
    for (const [title, edit] of [
      ['cleared under the lock', 'UPDATE sched_notices SET "publishAt" = NULL WHERE id = $1'],
      ['moved under the lock', `UPDATE sched_notices SET state = 'archived' WHERE id = $1`],
    ] as const) {
      const notice = await create('/sched_notices', { title, publishAt: past() });
      const free = await create('/sched_notices', { title: `${title}: beside it`, publishAt: past() });
      const locker = new pg.Client({ connectionString: PG_URL });
      await locker.connect();
      try {
        await locker.query(`SET search_path TO "${schema}"`);
        await locker.query('BEGIN');
        await locker.query('SELECT id FROM sched_notices WHERE id = $1 FOR UPDATE', [notice.id]);
        // The batch skips the held row (FOR UPDATE SKIP LOCKED) rather than waiting: the sweep ends while the lock is held.
        await server.app.sweepScheduled();
        assert.equal((await read(`/sched_notices/${free.id}`)).body.data.state, 'live', `${title}: the row beside it is applied`);
        assert.equal((await row('sched_notices', notice.id)).state, 'draft', `${title}: the held row waits`);
        await locker.query(edit, [notice.id]);
        await locker.query('COMMIT');
      } finally {
        await locker.end();
      }
      // The next sweep finds the row as the edit left it: no longer due.
      await server.app.sweepScheduled();
      const after = (await read(`/sched_notices/${notice.id}`)).body.data;
      assert.notEqual(after.state, 'live', title);
      assert.equal((await history('notice_history', notice.id)).length, 1, title);
    }
  });

  it('batches: more due rows than batchSize are all applied in one sweep', async () => {
    const boards = await Promise.all([1, 2, 3, 4, 5].map((n) => create('/boards', { name: `batch ${n}`, pinned: true, unpinAt: past(n) })));
    await server.app.sweepScheduled();
    for (const board of boards) assert.equal((await read(`/boards/${board.id}`)).body.data.pinned, false);
  });
});

eachBackend('scheduled transitions runner', (backend) => {
  const server = useServer(backend, {
    fixture: 'scheduled',
    setup(app) {
      app.scheduler({ interval: '20ms', batchSize: 501 });
    },
  });

  it('sweeps every interval on its own once the server started, and warns about a batch size above 500', async () => {
    const warning = await server.logLine((l) => l.level === 'warn' && String(l.message).startsWith('scheduler batchSize above 500'));
    assert.equal(warning.fields.batchSize, 501);
    const board = (await server.request('POST', '/boards', { body: { name: 'by the runner', pinned: true, unpinAt: past() } })).body.data;
    // The runner logs each sweep that changed something; this board is the only due row of this server.
    const applied = await server.logLine((l) => l.message === 'scheduled transitions applied');
    assert.equal(applied.fields.fieldsSet, 1);
    assert.equal((await server.request('GET', `/boards/${board.id}`)).body.data.pinned, false);
  });
});

describe('app.scheduler options', () => {
  it('refuses a bad interval, batch size, hook, dispatch or lock, naming it', () => {
    const app = createServer({ handleSignals: false });
    assert.throws(() => app.scheduler({ interval: 'soon' }), new ConfigError('scheduler interval must be a duration such as "500ms", "5s" or "2m", got "soon"'));
    assert.throws(() => app.scheduler({ batchSize: 0 }), new ConfigError('scheduler batchSize must be a whole number of at least 1, got 0'));
    assert.throws(() => app.scheduler({ onDelete: 'log' as never }), new ConfigError('scheduler onDelete must be a function'));
    assert.throws(() => app.scheduler({ dispatch: 'yes' as never }), new ConfigError('scheduler dispatch must be true or false'));
    assert.throws(
      () => app.scheduler({ lock: true as never }),
      new ConfigError('scheduler lock must be an interval lock such as sqlScheduleLock(db) or redisScheduleLock({ url }) from @mfx/jobs-redis'),
    );
  });

  it('sweepScheduled needs the handler built', () => {
    const app = createServer({ handleSignals: false });
    assert.throws(() => app.sweepScheduled(), new ConfigError('sweepScheduled needs the models sealed: build the handler (app.handler() or app.start()) first'));
  });
});
