// The outbox prune's index (issue 21): shipped rows are indexed by shipped_at, partially (WHERE
// shipped_at IS NOT NULL), so the prune walks that index instead of reading the whole table, and a
// write's insert (shipped_at NULL) adds no entry to it. A database whose mfx_outbox was made before
// the index (the pending index only) gets it from the migration, and both databases plan the prune
// along it.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { memoryBus, outboxBus, outboxTable, publishEvents, type TableSpec } from '@mfx/runtime';
import { relayStatements } from '../../../runtime/src/events/outbox.js';
import { indexDefinition, queryPlan } from '../../support/query-plan.js';
import { memoryLogger } from '../../support/server.js';
import { eachBackend, useServer } from '../../support/suite.js';
import { eventsConfig, tickEvent } from './support.js';

const SHIPPED = 'ix_mfx_outbox_shipped';
const SHIPPED_AT = Date.now();

eachBackend('outbox prune index on a table made before it', (backend) => {
  let outbox!: ReturnType<typeof outboxBus>;
  const server = useServer(backend, {
    fixture: 'events',
    config: eventsConfig(),
    setup(app) {
      outbox = outboxBus(() => app.db, { relayTo: memoryBus({ logger: memoryLogger() }), interval: '1h', retention: '1h', logger: memoryLogger() });
      app.use('db', publishEvents(outbox), { position: 'after', models: ['Note'] });
    },
    // mfx_outbox as the previous version declared it (its pending index only), with a row shipped just now
    // (so the prune of the relay's first batch, before the tests stop it, keeps it).
    prepare: async (adapter) => {
      const current = outboxTable();
      const old: TableSpec = { ...current, indexes: current.indexes.filter((index) => index.name !== SHIPPED) };
      assert.equal(old.indexes.length, current.indexes.length - 1, 'the current declaration has the shipped index');
      await adapter.exec(adapter.dialect.createTable(old));
      for (const index of old.indexes) await adapter.exec(adapter.dialect.createIndex(old.name, index));
      await adapter.raw('INSERT INTO mfx_outbox (id, seq, type, payload, created_at, shipped_at) VALUES (?, ?, ?, ?, ?, ?)', ['old-row', 1, 'tick.created', JSON.stringify(tickEvent(1)), SHIPPED_AT, SHIPPED_AT]);
    },
  });
  // The tests ship and prune by hand.
  before(() => outbox.stop());
  const db = () => server.app.db;

  it('the migration added the shipped index to the existing table, partial, and has nothing left to do', async () => {
    const definition = await indexDefinition(db(), SHIPPED);
    assert.ok(definition, `${SHIPPED} exists`);
    assert.match(definition, /\(\s*"?shipped_at"?\s*\)\s+WHERE\s+\(?"?shipped_at"?\s+IS NOT NULL\)?$/i, definition);
    const again = await server.app.migrate();
    assert.deepEqual(again.statements, []);
    const [old] = await db().raw('SELECT shipped_at FROM mfx_outbox WHERE id = ?', ['old-row']);
    assert.equal(Number(old?.shipped_at), SHIPPED_AT, 'the rows of the old table stay');
  });

  it('plans the prune along the shipped index on both databases', async () => {
    const plan = await queryPlan(db(), relayStatements(db().dialect, 'mfx_outbox').prune, [Date.now()], { enable_seqscan: 'off' });
    assert.match(plan, new RegExp(`\\b${SHIPPED}\\b`), plan);
    // SQLite reads the index alone (it holds the rowid): `shipped_at>? AND shipped_at<?` is its spelling of NOT NULL and <=.
    if (backend.name === 'sqlite') assert.deepEqual(plan.split('\n'), [`SEARCH mfx_outbox USING COVERING INDEX ${SHIPPED} (shipped_at>? AND shipped_at<?)`]);
    else assert.doesNotMatch(plan, /Seq Scan/, plan);
  });

  it('prunes shipped rows past the retention through it, never pending ones', async () => {
    await outbox.publish([tickEvent(2), tickEvent(3)]);
    while ((await outbox.relayOnce()) > 0);
    await outbox.publish([tickEvent(4)]);
    const count = async (where: string) => Number((await db().raw(`SELECT COUNT(*) AS n FROM mfx_outbox WHERE ${where}`))[0]!.n);
    const shipped = await count('shipped_at IS NOT NULL');
    assert.equal(shipped, 3, 'the old row and the two shipped');
    assert.equal(await outbox.prune(), 0, 'nothing was shipped an hour ago');
    assert.equal(await outbox.prune(Date.now() + 2 * 3_600_000), shipped);
    assert.equal(await count('shipped_at IS NOT NULL'), 0);
    assert.equal(await count('shipped_at IS NULL'), 1, 'the pending row stays');
  });
});
