// dedupe(handler, store) on both bundled stores: a concurrent duplicate is skipped, a handler
// error releases the claim, a claim outlives a crash mid-handler, claims are per subscription,
// the memory store's TTL, and pruning of the event_dedupe table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type DedupeStore, type DeliveryInfo, dedupe, type MfxEvent, memoryDedupeStore, sqlDedupeStore } from '@mfx/runtime';
import { eachBackend, useServer } from '../../support/suite.js';
import { gate } from '../../support/wait.js';
import { eventsConfig } from './support.js';

const event = (id: string): MfxEvent => ({ id, type: 'order.created', model: 'Order', recordId: id, data: null, tenantId: null, actorId: null, requestId: null, time: new Date().toISOString(), headers: {} });
const info = (subscription = 'mailer'): DeliveryInfo => ({ subscription, attempt: 1 });

function storeSuite(makeStore: () => DedupeStore, fresh: () => DedupeStore): void {
  it('runs the handler once when duplicates arrive at the same time', async () => {
    const store = makeStore();
    const held = gate();
    let runs = 0;
    const handler = dedupe(async () => {
      runs++;
      await held.opened;
    }, store);
    const all = Promise.all(Array.from({ length: 5 }, () => handler(event('race-1'), info())));
    held.open();
    await all;
    assert.equal(runs, 1);
    await handler(event('race-1'), info());
    assert.equal(runs, 1, 'a later duplicate is skipped too');
  });

  it('releases the claim when the handler fails, so the retry runs', async () => {
    const store = makeStore();
    let runs = 0;
    const handler = dedupe(() => {
      runs++;
      if (runs === 1) throw new Error('first try fails');
    }, store);
    await assert.rejects(handler(event('retry-1'), info()), /first try fails/);
    await handler(event('retry-1'), info());
    assert.equal(runs, 2);
  });

  it('keeps a claim when the process dies mid-handler: the redelivery is skipped', async () => {
    const store = makeStore();
    const reached = gate();
    // The first handler never finishes (its process "dies").
    void dedupe(() => {
      reached.open();
      return new Promise<void>(() => {});
    }, store)(event('crash-1'), info());
    await reached.opened;
    let runs = 0;
    await dedupe(() => void runs++, fresh())(event('crash-1'), info());
    assert.equal(runs, 0);
  });

  it('claims per subscription: another subscription runs the same event', async () => {
    const store = makeStore();
    let runs = 0;
    const handler = dedupe(() => void runs++, store);
    await handler(event('shared-1'), info('mailer'));
    await handler(event('shared-1'), info('crm'));
    assert.equal(runs, 2);
  });
}

describe('memoryDedupeStore', () => {
  let shared = memoryDedupeStore({ ttl: '1h' });
  storeSuite(() => (shared = memoryDedupeStore({ ttl: '1h' })), () => shared);

  it('forgets a claim after its ttl', async () => {
    const store = memoryDedupeStore({ ttl: 0 });
    let runs = 0;
    const handler = dedupe(() => void runs++, store);
    await handler(event('ttl-1'), info());
    await handler(event('ttl-1'), info());
    assert.equal(runs, 2);
  });

  it('refuses a missing handler or store', () => {
    assert.throws(() => dedupe(undefined as never, memoryDedupeStore()), /dedupe\(handler, store\) needs a handler/);
    assert.throws(() => dedupe(() => {}, {} as never), /dedupe\(handler, store\) needs a store/);
  });
});

eachBackend('sqlDedupeStore', (backend) => {
  const server = useServer(backend, {
    fixture: 'events',
    config: eventsConfig(),
    setup(app) {
      for (const table of sqlDedupeStore(() => app.db).tables) app.declareTable(table);
    },
  });
  storeSuite(() => sqlDedupeStore(() => server.app.db), () => sqlDedupeStore(() => server.app.db));

  it('keeps its claims in event_dedupe and prunes those past the retention', async () => {
    const store = sqlDedupeStore(() => server.app.db, { retention: '1h' });
    await dedupe(() => {}, store)(event('prune-1'), info());
    const count = async () => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM event_dedupe'))[0]!.n);
    const total = await count();
    assert.ok(total >= 1);
    assert.equal(await store.prune(), 0);
    assert.equal(await store.prune(Date.now() + 2 * 3_600_000), total);
    assert.equal(await count(), 0);
  });
});
