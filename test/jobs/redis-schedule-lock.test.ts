// The interval lock contract on redisScheduleLock (@mfx/jobs-redis), on the
// real Redis at REDIS_URL (default redis://127.0.0.1:6379), a fresh key
// prefix per test; then app.every with it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { redisScheduleLock } from '@mfx/jobs-redis';
import { type App, ConfigError, memoryQueue } from '@mfx/runtime';
import { Redis } from 'ioredis';
import { scheduleLockContract } from '../support/schedule-lock-contract.js';
import { startServer } from '../support/server.js';
import { sqlite } from '../support/suite.js';
import { Recorder } from '../support/wait.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const freshPrefix = () => `mfx:test:locks:${randomBytes(6).toString('hex')}:`;

async function dropKeys(client: Redis, prefix: string): Promise<void> {
  const keys = await client.keys(`${prefix}*`);
  if (keys.length > 0) await client.del(...keys);
}

scheduleLockContract('redisScheduleLock', async () => {
  const prefix = freshPrefix();
  const client = new Redis(REDIS_URL);
  return {
    // One replica on a client of its own (the test's), one on a client the lock opens from the URL.
    replicas: [redisScheduleLock({ client, prefix }), redisScheduleLock({ url: REDIS_URL, prefix })],
    close: async () => {
      await dropKeys(client, prefix);
      await client.quit();
    },
  };
});

describe('redisScheduleLock', () => {
  it('needs a client or a URL', () => {
    assert.throws(() => redisScheduleLock({}), new ConfigError('redisScheduleLock() needs { client } or { url }'));
  });

  it('leaves a client it was given open, and refuses takes once closed', async () => {
    const client = new Redis(REDIS_URL);
    const prefix = freshPrefix();
    try {
      const lock = redisScheduleLock({ client, prefix });
      await lock.close!();
      assert.equal(await client.ping(), 'PONG');
      await assert.rejects(lock.take('x@1', 1), { message: 'the redis interval lock is closed' });
    } finally {
      await dropKeys(client, prefix);
      await client.quit();
    }
  });

  it('locks app.every: the schedule enqueues through it, and the app declares no lock table', async () => {
    const client = new Redis(REDIS_URL);
    const prefix = freshPrefix();
    const runs = new Recorder<unknown>();
    let app!: App;
    const server = await startServer(sqlite, {
      setup: (a) => {
        app = a;
        a.jobs({ queue: memoryQueue(), handlers: { tick: async (job) => (runs.push(job.payload), {}) }, pollMs: 5, statusRoutes: false });
        a.every('15ms', { type: 'tick', payload: { n: 1 } }, { lock: redisScheduleLock({ client, prefix }) });
      },
    });
    try {
      assert.deepEqual(await runs.count(2), [{ n: 1 }, { n: 1 }]);
      assert.match(String(await client.get(`${prefix}tick@15`)), /^\d+$/);
      assert.deepEqual(await app.db.raw("SELECT name FROM sqlite_master WHERE name = 'mfx_schedule_locks'"), []);
    } finally {
      await server.close();
      await dropKeys(client, prefix);
      await client.quit();
    }
  });
});
