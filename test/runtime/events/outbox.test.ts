// The transactional outbox end to end: the event row is written in the write's transaction
// (and rolls back with it), the relay ships committed rows in order and marks them, two relays
// never publish a row twice, a relay that starts after a crash ships what was left, a failing
// broker is retried, an undecodable row is dead-lettered, and shipped rows are pruned.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type EventBus, type MfxEvent, memoryBus, outboxBus, publishEvents, transaction } from '@mfx/runtime';
import { memoryLogger } from '../../support/server.js';
import { eachBackend, useServer } from '../../support/suite.js';
import { Recorder } from '../../support/wait.js';
import { assertRedacted, eventsConfig, PASSWORD, record, SSN, tickEvent } from './support.js';

eachBackend('outboxBus', (backend) => {
  const relayTo = memoryBus({ logger: memoryLogger() });
  const logger = memoryLogger();
  let outbox!: ReturnType<typeof outboxBus>;
  let seen!: Recorder<MfxEvent>;
  const server = useServer(backend, {
    fixture: 'events',
    config: eventsConfig(),
    async setup(app) {
      // The server starts the relay; the tests stop it and ship with relayOnce().
      outbox = outboxBus(() => app.db, { relayTo, interval: '1h', batch: 10, retention: '1h', dlqType: 'outbox.dead', logger });
      seen = await record(outbox);
      app.use('service', transaction(), { ops: ['create', 'update', 'delete'] });
      app.use('db', publishEvents(outbox), { position: 'after', models: ['Account', 'Order', 'Note'] });
      app.use('db', async (ctx, next) => {
        await next();
        if (ctx.req.headers['x-fail']) throw new Error('failing after the write');
      }, { position: 'after' });
    },
  });
  // The server started the relay, whose first batch runs at once: stop it, so that a late first batch
  // (a loaded machine) never claims a row under a test's relayOnce().
  before(() => outbox.stop());
  const raw = (sql: string, params: unknown[] = []) => server.app.db.raw(sql, params);
  const pending = async () => Number((await raw('SELECT COUNT(*) AS n FROM mfx_outbox WHERE shipped_at IS NULL'))[0]!.n);
  /** Ships everything committed, then waits for the subscribers. */
  const drain = async (bus = outbox) => {
    while ((await bus.relayOnce()) > 0);
    await relayTo.idle();
  };

  it('writes the event row in the write transaction, redacted; the relay ships it and marks it shipped', async () => {
    await drain();
    const from = seen.seen.length;
    const created = await server.request('POST', '/accounts', { body: { name: 'Ada', password: PASSWORD, ssn: SSN } });
    assert.equal(created.status, 201);
    const rows = await raw('SELECT id, type, payload, shipped_at FROM mfx_outbox WHERE shipped_at IS NULL');
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.type, 'account.created');
    assertRedacted(String(rows[0]!.payload), 'the outbox row');
    assert.equal(seen.seen.length, from, 'nothing ships before the relay runs');
    assert.equal(await outbox.relayOnce(), 1);
    const [shipped] = await seen.count(from + 1).then((all) => all.slice(from));
    assert.equal(shipped!.id, rows[0]!.id);
    assert.equal(shipped!.recordId, created.body.data.id);
    assert.equal(shipped!.data!.name, 'Ada');
    assert.equal(await pending(), 0);
  });

  it("ships each event as its row's JSON gives it, whether the relay wrote it (kept) or another process did (parsed)", async () => {
    await drain();
    const from = seen.seen.length;
    const created = await server.request('POST', '/accounts', { body: { name: 'Kept' } });
    assert.equal(created.status, 201);
    // A hand-built event whose JSON differs from the object: a Date, an undefined member.
    const built = { ...tickEvent(5000), data: { when: new Date(0), gone: undefined } };
    await outbox.publish([built]);
    const rows = await raw('SELECT id, payload FROM mfx_outbox WHERE shipped_at IS NULL ORDER BY seq, id');
    assert.equal(rows.length, 2);
    assert.equal(await outbox.relayOnce(), 2);
    const shipped = (await seen.count(from + 2)).slice(from);
    assert.deepEqual(shipped, rows.map((r) => JSON.parse(String(r.payload))));
    assert.deepEqual(shipped[1]!.data, { when: '1970-01-01T00:00:00.000Z' });
    // The same rows shipped by a relay that did not write them (another replica) give the same events.
    const other = outboxBus(() => server.app.db, { relayTo, interval: '1h', logger });
    await raw('UPDATE mfx_outbox SET shipped_at = NULL WHERE id IN (?, ?)', [rows[0]!.id, rows[1]!.id]);
    assert.equal(await other.relayOnce(), 2);
    assert.deepEqual((await seen.count(from + 4)).slice(from + 2), shipped);
  });

  it('writes no row for a rolled-back or refused write', async () => {
    await drain();
    const before = Number((await raw('SELECT COUNT(*) AS n FROM mfx_outbox'))[0]!.n);
    assert.equal((await server.request('POST', '/accounts', { body: { name: 'x' }, headers: { 'x-fail': '1' } })).status, 500);
    assert.equal((await server.request('POST', '/accounts', { body: {} })).status, 422);
    assert.equal(Number((await raw('SELECT COUNT(*) AS n FROM mfx_outbox'))[0]!.n), before);
  });

  it('ships a cascaded delete in write order within one transaction', async () => {
    const account = (await server.request('POST', '/accounts', { body: { name: 'Cascade' } })).body.data.id;
    const order = (await server.request('POST', '/orders', { body: { title: 'o', accountId: account } })).body.data.id;
    await drain();
    const from = seen.seen.length;
    assert.equal((await server.request('DELETE', `/accounts/${account}`)).status, 204);
    await drain();
    assert.deepEqual(seen.seen.slice(from).map((e) => `${e.type}:${e.recordId}`).sort(), [`account.deleted:${account}`, `order.deleted:${order}`].sort());
  });

  it('two relays at once publish every row exactly once, in order', async () => {
    await drain();
    const other = outboxBus(() => server.app.db, { relayTo, interval: '1h', batch: 7, logger });
    const from = seen.seen.length;
    const events = Array.from({ length: 60 }, (_, i) => tickEvent(1000 + i));
    for (let i = 0; i < events.length; i += 20) await outbox.publish(events.slice(i, i + 20));
    // Both relays loop until neither ships anything and nothing is left.
    for (;;) {
      const [a, b] = await Promise.all([outbox.relayOnce(), other.relayOnce()]);
      if (a + b === 0 && (await pending()) === 0) break;
    }
    await relayTo.idle();
    assert.deepEqual(seen.seen.slice(from).map((e) => e.id), events.map((e) => e.id));
  });

  it('a relay started after a crash ships what was committed and never shipped', async () => {
    await drain();
    const from = seen.seen.length;
    // The server's relay never ran for this row (it "crashed" before its next tick).
    const created = await server.request('POST', '/notes', { body: { body: 'survives' } });
    assert.equal(created.status, 201);
    assert.equal(await pending(), 1);
    const restarted = outboxBus(() => server.app.db, { relayTo, interval: '1h', logger });
    restarted.start();
    const [shipped] = (await seen.count(from + 1)).slice(from);
    await restarted.stop();
    assert.equal(shipped!.type, 'note.created');
    assert.equal(shipped!.recordId, created.body.data.id);
    assert.equal(await pending(), 0);
  });

  // Without the look brought forward the batch would wait an hour: the timeout turns that into a failure.
  it("looks again at once when the process has written a batch's worth since its last look, whatever its interval", { timeout: 60_000 }, async () => {
    await drain();
    const relay = outboxBus(() => server.app.db, { relayTo, interval: '1h', batch: 5, logger });
    const from = seen.seen.length;
    // The first look ships what is there, then the next would be an hour away.
    await outbox.publish([tickEvent(6000)]);
    relay.start();
    await seen.count(from + 1);
    // Fewer than a batch waits for the interval; the fifth event since the last look brings it forward.
    const batch = [tickEvent(6001), tickEvent(6002), tickEvent(6003), tickEvent(6004), tickEvent(6005)];
    for (const e of batch) await relay.publish([e]);
    const shipped = (await seen.count(from + 6)).slice(from);
    await relay.stop();
    assert.deepEqual(shipped.map((e) => e.recordId), ['6000', '6001', '6002', '6003', '6004', '6005']);
    assert.equal(await pending(), 0);
  });

  it('keeps the rows when the broker refuses a batch and ships them on the next try', async () => {
    await drain();
    let refuse = true;
    const flaky: EventBus = {
      kind: 'flaky',
      publish: (events) => (refuse ? Promise.reject(new Error('broker down')) : relayTo.publish(events)),
      subscribe: (o) => relayTo.subscribe(o),
      close: async () => {},
    };
    const relay = outboxBus(() => server.app.db, { relayTo: flaky, interval: '1h', logger });
    const from = seen.seen.length;
    await outbox.publish([tickEvent(2000), tickEvent(2001)]);
    await assert.rejects(relay.relayOnce(), /broker down/);
    assert.equal(await pending(), 2);
    refuse = false;
    assert.equal(await relay.relayOnce(), 2);
    await relayTo.idle();
    assert.deepEqual(seen.seen.slice(from).map((e) => e.recordId), ['2000', '2001']);
  });

  it('dead-letters a row that cannot be decoded and ships the rows around it', async () => {
    await drain();
    const dead = new Recorder<MfxEvent>();
    const sub = await relayTo.subscribe({ name: 'outbox-dead', patterns: ['outbox.dead'], handler: (e) => dead.push(e) });
    const from = seen.seen.length;
    await outbox.publish([tickEvent(3000)]);
    await raw('INSERT INTO mfx_outbox (id, seq, type, payload, created_at) VALUES (?, ?, ?, ?, ?)', ['broken-row', Date.now() * 1000 + 999_999_000, 'tick.created', '{not json', Date.now()]);
    await drain();
    const [letter] = await dead.count(1);
    assert.deepEqual(letter!.headers, { original_id: 'broken-row', original_type: 'tick.created' });
    assert.deepEqual(letter!.data, { payload: '{not json' });
    assert.deepEqual(seen.seen.slice(from).map((e) => `${e.type}:${e.recordId}`), ['tick.created:3000', 'outbox.dead:null']);
    const [row] = await raw('SELECT shipped_at, error FROM mfx_outbox WHERE id = ?', ['broken-row']);
    assert.ok(row!.shipped_at !== null);
    assert.match(String(row!.error), /^the payload is not JSON/);
    assert.ok(logger.lines.some((l) => l.message === 'outbox row dead-lettered: it cannot be decoded' && l.fields.outboxId === 'broken-row'));
    await sub.close();
  });

  it('prunes shipped rows older than the retention, never pending ones', async () => {
    await drain();
    await outbox.publish([tickEvent(4000)]);
    const total = Number((await raw('SELECT COUNT(*) AS n FROM mfx_outbox'))[0]!.n);
    assert.equal(await outbox.prune(), 0, 'nothing is an hour old yet');
    assert.equal(await outbox.prune(Date.now() + 2 * 3_600_000), total - 1);
    assert.equal(await pending(), 1);
    await drain();
  });
});

eachBackend('outboxBus relay started with the server', (backend) => {
  const relayTo = memoryBus({ logger: memoryLogger() });
  let seen!: Recorder<MfxEvent>;
  const server = useServer(backend, {
    fixture: 'events',
    config: eventsConfig(),
    async setup(app) {
      const outbox = outboxBus(() => app.db, { relayTo, interval: '20ms', logger: memoryLogger() });
      seen = await record(outbox);
      app.use('db', publishEvents(outbox), { position: 'after', models: ['Note'] });
    },
  });

  it('ships committed rows on its own, without a transaction hook (the write opens one for the outbox row)', async () => {
    const created = await server.request('POST', '/notes', { body: { body: 'relayed' } });
    assert.equal(created.status, 201);
    const shipped = await seen.next((e) => e.recordId === created.body.data.id);
    assert.equal(shipped.type, 'note.created');
    const [row] = await server.app.db.raw('SELECT shipped_at FROM mfx_outbox WHERE id = ?', [shipped.id]);
    assert.ok(row, 'the row stays until the retention passes');
  });
});
