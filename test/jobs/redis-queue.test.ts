// The job queue contract on redisQueue (@mfx/jobs-redis), on the real Redis at REDIS_URL (default redis://127.0.0.1:6379), a fresh key prefix per test.
import { randomBytes } from 'node:crypto';
import { redisQueue } from '@mfx/jobs-redis';
import { Redis } from 'ioredis';
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
