// The job queue contract on redisQueue (@mfx/jobs-redis), on the real Redis at REDIS_URL (default redis://127.0.0.1:6379), a fresh key prefix per test.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { redisQueue } from '@mfx/jobs-redis';
import { type JobTransition, silentLogger } from '@mfx/runtime';
import { Redis } from 'ioredis';
import { Worker } from '../../runtime/src/jobs/worker.js';
import { Recorder } from '../support/wait.js';
import { queueContract } from '../support/job-queue-contract.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

queueContract('redisQueue', async () => {
  const prefix = `mfx:test:jobs:${randomBytes(6).toString('hex')}`;
  const client = new Redis(REDIS_URL);
  return {
    queue: redisQueue({ client, prefix }),
    close: async () => {
      const keys = await client.keys(`${prefix}:*`);
      if (keys.length > 0) await client.del(...keys);
      await client.quit();
    },
  };
});

describe('redisQueue under a worker', () => {
  it('runs jobs, and finishes once the job of a worker that died after claiming it', async () => {
    const prefix = `mfx:test:jobs:${randomBytes(6).toString('hex')}`;
    const client = new Redis(REDIS_URL);
    const queue = redisQueue({ client, prefix });
    const done = new Recorder<JobTransition>();
    const runs = new Recorder<string>();
    const worker = new Worker({ queue, handlers: { work: async (job) => (runs.push(job.id), { output: { ok: true } }) }, pollMs: 5, onTransition: (t) => t.status === 'succeeded' && done.push(t) }, null, silentLogger);
    try {
      await queue.enqueue([{ type: 'work', id: 'orphaned' }, { type: 'work', id: 'plain' }]);
      const [dead] = await queue.claim({ limit: 1, leaseMs: 100 });
      assert.equal(dead!.id, 'orphaned');
      worker.start();
      await done.count(2);
      assert.deepEqual(runs.seen.sort(), ['orphaned', 'plain']);
      assert.equal(await queue.ack(dead!), false, 'the dead claim no longer finishes the job');
    } finally {
      await worker.stop(1000);
      await queue.close();
      const keys = await client.keys(`${prefix}:*`);
      if (keys.length > 0) await client.del(...keys);
      await client.quit();
    }
  });
});
