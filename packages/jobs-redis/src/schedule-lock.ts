/**
 * `redisScheduleLock`: the interval lock of @mfx/runtime (`app.every(...,
 * { lock })`, `app.scheduler({ lock })`) in Redis, for replicas that share a
 * Redis rather than (or beside) a database. One key per schedule holds the
 * last interval taken; one Lua script moves it forward only, so of replicas
 * racing for an interval exactly one takes it. Same contract as the SQL
 * lock (test/support/schedule-lock-contract.ts).
 */
import { clientFromOptions, type ScheduleLock } from '@mfx/runtime';
import { Redis, type RedisOptions } from 'ioredis';

export interface RedisScheduleLockOptions {
  /** An ioredis client you own (you close it); or */
  client?: Redis;
  /** a Redis URL, for a client the lock opens and closes with the server. */
  url?: string;
  /** Key prefix; default `mfx:schedule-locks:` (the key is the prefix and the schedule's name). */
  prefix?: string;
  /** Extra ioredis options for a client opened from `url`. */
  redisOptions?: RedisOptions;
}

// KEYS[1] the schedule's key; ARGV[1] the slot. 1 when the key moved to it, 0 when it held this slot or a later one.
const TAKE = `
local held = redis.call('GET', KEYS[1])
if held and tonumber(held) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

/**
 * An interval lock in Redis.
 *
 * @example
 * import { redisScheduleLock } from '@mfx/jobs-redis';
 * app.every('5m', { type: 'report.build' }, { lock: redisScheduleLock({ url: 'redis://127.0.0.1:6379' }) });
 */
export function redisScheduleLock(options: RedisScheduleLockOptions): ScheduleLock {
  const { client, close } = clientFromOptions('redisScheduleLock()', options, (url) => new Redis(url, { maxRetriesPerRequest: 1, ...options.redisOptions }));
  const prefix = options.prefix ?? 'mfx:schedule-locks:';
  let closed = false;
  return {
    kind: 'redis',
    async take(name, slot) {
      if (closed) throw new Error('the redis interval lock is closed');
      if (!Number.isSafeInteger(slot)) throw new TypeError(`an interval slot is a whole number, got ${String(slot)}`);
      return (await client.eval(TAKE, 1, prefix + name, String(slot))) === 1;
    },
    async close() {
      if (closed) return;
      closed = true;
      await close();
    },
  };
}
