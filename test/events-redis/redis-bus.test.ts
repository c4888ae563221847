// @mfx/events-redis against the Redis on this machine: the shared bus
// contract (a cut connection included: the client reconnects), then what is
// Redis's own: a crashed consumer's pending entry
// taken over by XAUTOCLAIM, undecodable entries skipped, a client that gives
// up reconnecting ending the bus, the options checked.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { redisStreamBus } from '@mfx/events-redis';
import type { MfxEvent } from '../../runtime/src/events/types.js';
import { busContract, makeEvent } from '../support/bus-contract.js';
import { Recorder } from '../support/wait.js';
import { openBus, REDIS_URL } from './open.js';

const stream = `mfx:test:events:${process.pid}:${randomUUID().slice(0, 8)}`;
process.env.MFX_TEST_STREAM = stream;
const admin = new Redis(REDIS_URL);
after(async () => {
  await admin.del(stream, `${stream}:ephemeral`);
  await admin.quit();
});

/** The group of that name on the test stream, or the bus's ephemeral heartbeat key or registry entry for it. */
async function artefact(name: string): Promise<boolean> {
  const groups = (await admin.exists(stream)) ? ((await admin.xinfo('GROUPS', stream)) as unknown[][]) : [];
  const grouped = groups.some((g) => g[g.indexOf('name') + 1] === name);
  return grouped || (await admin.exists(`${stream}:ephemeral:${name}`)) === 1 || (await admin.sismember(`${stream}:ephemeral`, name)) === 1;
}

busContract('redis-streams', {
  open: () => openBus(),
  child: new URL('./open.ts', import.meta.url).pathname,
  env: { MFX_TEST_STREAM: stream },
  artefact,
  cut: { port: 6379, open: (port) => openBus(`redis://127.0.0.1:${port}`) },
});

describe('redisStreamBus', () => {
  it('takes over an entry another consumer of the group read and never acknowledged, once it has been idle for claimIdleMs', async () => {
    const name = `reclaim-${randomUUID().slice(0, 8)}`;
    const bus = redisStreamBus({ url: REDIS_URL, stream, consumer: 'survivor', claimIdleMs: 200, blockMs: 50 });
    // The group exists (made by subscribe); a consumer "crashed" reads the entry by hand and never acknowledges it.
    const got = new Recorder<MfxEvent>();
    const sub = await bus.subscribe({ name, patterns: ['post.*'], handler: (e) => got.push(e) });
    await sub.close();
    const event = makeEvent('post.created');
    await bus.publish([event]);
    const read = (await admin.xreadgroup('GROUP', name, 'crashed', 'COUNT', 10, 'STREAMS', stream, '>')) as [string, [string, string[]][]][];
    assert.equal(read[0]![1].length, 1);
    const [pendingBefore] = (await admin.xpending(stream, name)) as [number];
    assert.equal(pendingBefore, 1);

    const resumed = await bus.subscribe({ name, patterns: ['post.*'], handler: (e) => got.push(e) });
    assert.deepEqual(await got.next(), event);
    await resumed.close();
    const consumers = (await admin.xinfo('CONSUMERS', stream, name)) as unknown[][];
    const pending = Object.fromEntries(consumers.map((c) => [c[1], c[3]]));
    assert.deepEqual(pending, { crashed: 0, survivor: 0 });
    await bus.close();
  });

  it('acknowledges and skips an entry that is not an event, and keeps delivering', async () => {
    const bus = redisStreamBus({ url: REDIS_URL, stream, blockMs: 50 });
    const name = `garbage-${randomUUID().slice(0, 8)}`;
    const got = new Recorder<string>();
    await bus.subscribe({ name, patterns: ['post.*'], handler: (e) => got.push(e.id) });
    await admin.xadd(stream, '*', 'e', '{not json');
    await admin.xadd(stream, '*', 'other', 'x');
    const event = makeEvent('post.created');
    await bus.publish([event]);
    assert.equal(await got.next(), event.id);
    // close() waits for the loop, which acknowledges after the handler.
    await bus.close();
    const [pending] = (await admin.xpending(stream, name)) as [number];
    assert.equal(pending, 0);
  });

  it('uses a client you own without closing it, and trims the stream with maxLen', async () => {
    const own = new Redis(REDIS_URL);
    const trimmed = `${stream}:trim`;
    const bus = redisStreamBus({ redis: own, stream: trimmed, maxLen: 5 });
    await bus.publish(Array.from({ length: 300 }, () => makeEvent('post.created')));
    assert.ok((await own.xlen(trimmed)) < 300);
    await bus.close();
    assert.equal(await own.ping(), 'PONG');
    await own.del(trimmed);
    await own.quit();
  });

  it('makes its group again, from the start of the stream, when the stream was deleted under it', async () => {
    const own = `${stream}:deleted`;
    const bus = redisStreamBus({ url: REDIS_URL, stream: own, blockMs: 50 });
    const got = new Recorder<string>();
    await bus.subscribe({ name: 'survives', patterns: ['post.*'], handler: (e) => got.push(e.id) });
    const before = makeEvent('post.created');
    await bus.publish([before]);
    await got.next((id) => id === before.id);
    await admin.del(own);
    const after = makeEvent('post.updated');
    await bus.publish([after]);
    assert.equal(await got.next((id) => id === after.id), after.id);
    await bus.close();
    await admin.del(own);
  });

  it('a client that gives up reconnecting (retryStrategy answers null) ends every subscription, calls each onClosed once, and the bus refuses work, as the buses that never reconnect do', { timeout: 30_000 }, async () => {
    // Every connection of the bus carries this name (duplicate() keeps it), so the server can close just those.
    const connectionName = `gives-up-${randomUUID().slice(0, 8)}`;
    const bus = redisStreamBus({ url: REDIS_URL, stream, blockMs: 50, redisOptions: { retryStrategy: () => null, connectionName } });
    const closedA = new Recorder<Error>();
    const closedB = new Recorder<Error>();
    const gotA = new Recorder<string>();
    const gotB = new Recorder<string>();
    await bus.subscribe({ name: `${connectionName}-a`, patterns: ['post.*'], handler: (e) => gotA.push(e.id), onClosed: (e) => closedA.push(e) });
    await bus.subscribe({ name: `${connectionName}-b`, patterns: ['*.deleted'], handler: (e) => gotB.push(e.id), onClosed: (e) => closedB.push(e) });
    // Read by both: each subscription's connection is up.
    const event = makeEvent('post.deleted');
    await bus.publish([event]);
    await gotA.next((id) => id === event.id);
    await gotB.next((id) => id === event.id);

    const clients = String(await admin.client('LIST'))
      .split('\n')
      .filter((line) => line.includes(` name=${connectionName} `))
      .map((line) => /(?:^|\s)id=(\d+)/.exec(line)![1]!);
    assert.equal(clients.length, 3, 'the bus client and one reader per subscription');
    for (const id of clients) await admin.client('KILL', 'ID', id);

    const [reason] = await closedA.count(1);
    await closedB.count(1);
    assert.ok(reason instanceof Error);
    assert.match(reason.message, /does not reconnect/);
    const lost = new RegExp(`^Error: the redis-streams bus on "${stream}" lost its connection: `);
    await assert.rejects(bus.publish([makeEvent('post.created')]), lost);
    await assert.rejects(bus.subscribe({ name: `${connectionName}-late`, patterns: ['post.*'], handler: () => {} }), lost);
    await bus.close();
    assert.equal(closedA.seen.length, 1);
    assert.equal(closedB.seen.length, 1);
  });

  it('refuses bad options with the option named', () => {
    assert.throws(() => redisStreamBus({} as never), { name: 'ConfigError', message: 'mfx: redisStreamBus() needs { redis } or { url }' });
    assert.throws(() => redisStreamBus({ url: REDIS_URL, claimIdleMs: 0 }), { name: 'ConfigError', message: 'mfx: redisStreamBus(): claimIdleMs must be a whole number above 0, not 0' });
    assert.throws(() => redisStreamBus({ url: REDIS_URL, ephemeralExpiryMs: 1.5 }), { name: 'ConfigError', message: 'mfx: redisStreamBus(): ephemeralExpiryMs must be a whole number above 0, not 1.5' });
  });
});
