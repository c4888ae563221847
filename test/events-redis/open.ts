// Opens the Redis Streams bus of test/events-redis on the stream named by
// MFX_TEST_STREAM, with short claim and block times so a crashed consumer's
// entry is taken over within the test, and a short ephemeral expiry so a
// killed process's ephemeral group is swept within it (used by the test and
// its child process).
import type { EventBus } from '../../runtime/src/events/types.js';
import { redisStreamBus } from '@mfx/events-redis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function openBus(url = REDIS_URL): Promise<EventBus> {
  return redisStreamBus({ url, stream: process.env.MFX_TEST_STREAM!, claimIdleMs: 300, blockMs: 100, ephemeralExpiryMs: 1000 });
}
