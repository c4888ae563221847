// publishEvents on the in-process bus, end to end over HTTP: one event per create, update
// and delete (cascaded and set-null rows included), the DESIGN fields, redaction, scoping,
// nothing for a failed or rolled-back write, and the memory bus's own rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type MfxEvent, memoryBus, outboxBus, publishEvents, redactRow, transaction } from '@mfx/runtime';
import { memoryLogger, startServer } from '../../support/server.js';
import { eachBackend, sqlite, useServer } from '../../support/suite.js';
import { Recorder } from '../../support/wait.js';
import { assertRedacted, eventsConfig, PASSWORD, record, SSN, TRACE } from './support.js';

eachBackend('publishEvents on the memory bus', (backend) => {
  const bus = memoryBus();
  const scoped = memoryBus();
  let seen!: Recorder<MfxEvent>;
  let scopedSeen!: Recorder<MfxEvent>;
  const server = useServer(backend, {
    fixture: 'events',
    config: eventsConfig(),
    async setup(app) {
      seen = await record(bus);
      scopedSeen = await record(scoped);
      app.use('service', transaction(), { ops: ['create', 'update', 'delete'] });
      app.use('db', publishEvents(bus), { position: 'after' });
      app.use('db', publishEvents(scoped), { position: 'after', models: ['Order'], ops: ['create'] });
      // Runs after the write: a request with x-fail fails once the row is written, and its transaction rolls back.
      app.use('db', async (ctx, next) => {
        await next();
        if (ctx.req.headers['x-fail']) throw new Error('failing after the write');
      }, { position: 'after' });
    },
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await server.request('POST', path, { body, headers });
    assert.equal(res.status, 201, res.text);
    return res.body.data as Record<string, unknown> & { id: string };
  };
  const column = (model: string, field: string) => server.app.registry.get(model)!.fields.find((f) => f.name === field)!.column;
  /** Events delivered since `from`, once the bus has handed out everything published. */
  const since = async (from: number) => {
    await bus.idle();
    return seen.seen.slice(from);
  };

  it('publishes account.created with the DESIGN fields and the row by column name, redacted', async () => {
    const from = seen.seen.length;
    const account = await post('/accounts', { name: 'Ada', password: PASSWORD, ssn: SSN }, { 'x-request-id': 'req-ev-1', traceparent: TRACE });
    const [event] = await since(from);
    assert.ok(event);
    assert.equal(event.type, 'account.created');
    assert.equal(event.model, 'Account');
    assert.equal(event.recordId, account.id);
    assert.equal(event.requestId, 'req-ev-1');
    assert.equal(event.actorId, null);
    assert.equal(event.tenantId, null);
    // A version 7 UUID whose clock part is the event's millisecond; the span id is its random tail, not the clock.
    assert.match(event.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(!Number.isNaN(Date.parse(event.time)));
    assert.ok(Math.abs(parseInt(event.id.replace('-', '').slice(0, 12), 16) - Date.parse(event.time)) < 1000, 'the id starts with the clock');
    assert.equal(event.headers.traceparent, `00-4bf92f3577b34da6a3ce929d0e0e4736-${event.id.slice(19, 23)}${event.id.slice(24)}-01`);
    assert.equal(event.data!.name, 'Ada');
    assert.equal(event.data!.id, account.id);
    assert.ok(column('Account', 'created_at') in event.data!, 'keyed by column name');
    assert.deepEqual(Object.keys(event.data!).sort(), ['created_at', 'id', 'name', 'updated_at'].map((f) => column('Account', f)).sort());
    assertRedacted(JSON.stringify(event), 'the event');
  });

  it('publishes updates and deletes, and one event per row a delete cascades to or clears', async () => {
    const account = await post('/accounts', { name: 'Grace', password: PASSWORD, ssn: '111-22-3333' });
    const orders = [await post('/orders', { title: 'one', accountId: account.id }), await post('/orders', { title: 'two', accountId: account.id })];
    const note = await post('/notes', { body: 'hello', accountId: account.id });
    let from = seen.seen.length;
    const patched = await server.request('PATCH', `/accounts/${account.id}`, { body: { name: 'Grace H', password: 'another-secret' } });
    assert.equal(patched.status, 200);
    const [updated] = await since(from);
    assert.equal(updated!.type, 'account.updated');
    assert.equal(updated!.data!.name, 'Grace H');
    assertRedacted(JSON.stringify(updated), 'the update event');
    assert.equal(JSON.stringify(updated).includes('another-secret'), false);

    from = seen.seen.length;
    assert.equal((await server.request('DELETE', `/accounts/${account.id}`)).status, 204);
    const events = await since(from);
    assert.deepEqual(
      events.map((e) => `${e.type}:${e.recordId}`).sort(),
      [`account.deleted:${account.id}`, ...orders.map((o) => `order.deleted:${o.id}`), `note.updated:${note.id}`].sort(),
    );
    const deleted = events.find((e) => e.type === 'account.deleted')!;
    assert.equal(deleted.data!.name, 'Grace H', 'a delete carries the row as it was');
    const cleared = events.find((e) => e.type === 'note.updated')!;
    assert.equal(cleared.data![column('Note', 'accountId')], null);
    assert.equal(cleared.data!.body, 'hello');
    const order = events.find((e) => e.type === 'order.deleted')!;
    assert.equal(order.data![column('Order', 'accountId')], account.id);
    for (const event of events) assertRedacted(JSON.stringify(event), event.type);
  });

  it('publishes nothing for a rolled-back, a refused or a missing write, nor for a read', async () => {
    const from = seen.seen.length;
    const failed = await server.request('POST', '/accounts', { body: { name: 'Rolled back' }, headers: { 'x-fail': '1' } });
    assert.equal(failed.status, 500);
    const invalid = await server.request('POST', '/accounts', { body: {} });
    assert.equal(invalid.status, 422);
    const missing = await server.request('PATCH', '/accounts/00000000-0000-4000-8000-000000000000', { body: { name: 'x' } });
    assert.equal(missing.status, 404);
    assert.equal((await server.request('GET', '/accounts')).status, 200);
    assert.deepEqual(await since(from), []);
    assert.equal((await server.request('GET', '/accounts?filter=name:eq:Rolled%20back')).body.meta.total, 0, 'the write rolled back');
  });

  it('follows the scope it is registered with: models and operations', async () => {
    const account = await post('/accounts', { name: 'Scoped' });
    const from = scopedSeen.seen.length;
    const order = await post('/orders', { title: 'scoped', accountId: account.id });
    assert.equal((await server.request('PATCH', `/orders/${order.id}`, { body: { title: 'changed' } })).status, 200);
    await scoped.idle();
    assert.deepEqual(scopedSeen.seen.slice(from).map((e) => `${e.type}:${e.recordId}`), [`order.created:${order.id}`]);
  });
});

describe('redactRow', () => {
  it('keeps the recorded fields by column name, from a row by column or by field name', async () => {
    const server = await startServer(sqlite, { fixture: 'events', config: eventsConfig() });
    try {
      const note = server.app.registry.get('Note')!;
      const account = server.app.registry.get('Account')!;
      const accountColumn = note.fields.find((f) => f.name === 'accountId')!.column;
      assert.deepEqual(redactRow(note, { id: 'n1', body: 'b', accountId: 'a1', extra: 'dropped' }), { id: 'n1', body: 'b', [accountColumn]: 'a1' });
      assert.deepEqual(redactRow(account, { id: 'a1', name: 'n', password: 'p', score: 3, ssn: 's', ssn_hmac: 'h' }), { id: 'a1', name: 'n' });
    } finally {
      await server.close();
    }
  });
});

describe('publishEvents at startup', () => {
  it('belongs at the db step, position after', async () => {
    await assert.rejects(
      startServer(sqlite, { fixture: 'events', config: eventsConfig(), setup: (app) => void app.use('db', publishEvents(memoryBus())) }),
      /publishEvents\(\) belongs at the db step, position after/,
    );
    assert.throws(() => publishEvents({} as never), /publishEvents\(\) needs an event bus/);
  });
});

describe('memoryBus', () => {
  it('refuses a capacity that is not a whole number above 0, and an outbox batch likewise', () => {
    assert.throws(() => memoryBus({ capacity: 0 }), { name: 'ConfigError', message: 'mfx: memoryBus(): capacity must be a whole number above 0, not 0' });
    assert.throws(() => outboxBus(() => null as never, { relayTo: memoryBus(), batch: 2.5 }), { name: 'ConfigError', message: 'mfx: outboxBus(): batch must be a whole number above 0, not 2.5' });
  });

  it('never blocks the publisher, keeps each subscription in order, drops beyond its capacity, and drains on close', async () => {
    const logger = memoryLogger();
    const bus = memoryBus({ capacity: 3, logger });
    const handled: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await bus.subscribe({ name: 'slow', patterns: ['post.*'], handler: async (e) => { await held; handled.push(e.id); } });
    const event = (id: string, type = 'post.created'): MfxEvent => ({ id, type, model: 'Post', recordId: id, data: null, tenantId: null, actorId: null, requestId: null, time: new Date().toISOString(), headers: {} });
    // The handler is held: publishing still resolves at once.
    await bus.publish([event('1'), event('2'), event('3'), event('4'), event('5', 'user.created')]);
    assert.deepEqual(handled, []);
    release();
    await bus.close();
    // The queue held 3: '4' was dropped (and logged), '5' did not match.
    assert.deepEqual(handled, ['1', '2', '3']);
    assert.deepEqual(logger.lines.map((l) => [l.message, l.fields.eventId]), [['event dropped: the subscription queue is full', '4']]);
    await assert.rejects(bus.publish([event('6')]), /the memory bus is closed/);
  });

  it('retries a failing handler, then republishes the event under the dlqType', async () => {
    const bus = memoryBus({ logger: memoryLogger() });
    let tries = 0;
    await bus.subscribe({ name: 'flaky', patterns: ['order.created'], retries: 2, backoffMs: 0, dlqType: 'order.dead', handler: () => { tries++; throw new Error('down'); } });
    const dead = await record(bus, 'dead', ['order.dead']);
    const original: MfxEvent = { id: 'e-1', type: 'order.created', model: 'Order', recordId: 'o-1', data: { title: 'x' }, tenantId: 't', actorId: 'u', requestId: 'r', time: new Date().toISOString(), headers: { traceparent: TRACE } };
    await bus.publish([original]);
    const letter = await dead.next();
    assert.equal(tries, 3);
    assert.notEqual(letter.id, 'e-1');
    assert.deepEqual(letter.headers, { traceparent: TRACE, original_type: 'order.created', original_id: 'e-1' });
    assert.deepEqual([letter.data, letter.model, letter.recordId, letter.tenantId], [{ title: 'x' }, 'Order', 'o-1', 't']);
    await bus.close();
  });
});
