/**
 * @mfx/redis: the Redis store of @mfx/runtime's rate limiter, shared by
 * every replica that points at the same Redis. A package of its own so that
 * apps without Redis never install ioredis.
 */
import { clientFromOptions, type RateLimitStore } from '@mfx/runtime';
import { Redis, type RedisOptions } from 'ioredis';

export interface RedisStoreOptions {
  /** An ioredis client you own (you close it); or */
  client?: Redis;
  /** a Redis URL, for a client the store opens and closes with the server. */
  url?: string;
  /** Key prefix (default `mfx:rl:`). */
  prefix?: string;
  /** Extra ioredis options for a client opened from `url`. */
  redisOptions?: RedisOptions;
}

// INCR and set the expiry on the first hit in one round trip, atomically, so replicas share one count.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/**
 * A shared Redis store: every replica pointing at the same Redis shares one
 * count per key.
 *
 * @example
 * import { rateLimit } from '@mfx/runtime';
 * import { redisStore } from '@mfx/redis';
 * app.use('db', rateLimit({ requestsPerMinute: 120, store: redisStore({ url: 'redis://127.0.0.1:6379' }) }));
 */
export function redisStore(options: RedisStoreOptions): RateLimitStore {
  const { client, close } = clientFromOptions('redisStore()', options, (url) => new Redis(url, { maxRetriesPerRequest: 1, ...options.redisOptions }));
  const prefix = options.prefix ?? 'mfx:rl:';
  return {
    async hit(key, windowMs) {
      const [count, ttl] = (await client.eval(HIT_SCRIPT, 1, prefix + key, String(windowMs))) as [number, number];
      return { count: Number(count), resetMs: Number(ttl) };
    },
    close,
  };
}

