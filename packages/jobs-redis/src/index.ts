/**
 * @mfx/jobs-redis: `redisQueue`, the job queue of @mfx/runtime on Redis
 * Streams. Due jobs are entries of a stream read through a consumer group
 * (`workers`): each entry goes to exactly one claimer, however many workers
 * read. Each job is a hash; jobs not yet due (notBefore, a retry's delay)
 * wait in a sorted set and are appended to the stream once due; a claimed
 * job holds a lease in another sorted set, and a job whose lease ran out
 * (its worker died) is appended again and its old claim refused. Every step
 * is one Lua script, so replicas never see a half-made change. Times are the
 * callers' clocks (epoch ms), as in the SQL queue.
 */
import { randomUUID } from 'node:crypto';
import { type ClaimedJob, type ClaimOptions, clientFromOptions, DuplicateJobError, JobCancelError, type JobQueue, type NackOptions, type NewJob, normaliseJob } from '@mfx/runtime';
import { Redis, type RedisOptions } from 'ioredis';

export interface RedisQueueOptions {
  /** An ioredis client you own (you close it); or */
  client?: Redis;
  /** a Redis URL, for a client the queue opens and closes. */
  url?: string;
  /** Key prefix; default `mfx:jobs`. A lane is a prefix of its own. */
  prefix?: string;
  redisOptions?: RedisOptions;
}

// Keys: 1 ready stream, 2 delayed zset, 3 running zset, 4 busy groups hash, 5 parked zset (by seq), 6 seq counter. Job hashes are <prefix>:job:<id>.
const PROMOTE = `
local function promote(now)
  local parked = redis.call('ZRANGE', KEYS[5], 0, -1)
  for _, id in ipairs(parked) do redis.call('XADD', KEYS[1], '*', 'id', id) end
  redis.call('DEL', KEYS[5])
  local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
  for _, id in ipairs(due) do redis.call('XADD', KEYS[1], '*', 'id', id) end
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
  for _, id in ipairs(expired) do
    local key = ARGV[1] .. ':job:' .. id
    local group = redis.call('HGET', key, 'group')
    if group and group ~= '' and redis.call('HGET', KEYS[4], group) == id then redis.call('HDEL', KEYS[4], group) end
    redis.call('HSET', key, 'state', 'enqueued', 'token', '')
    redis.call('XADD', KEYS[1], '*', 'id', id)
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
end
`;

const ENQUEUE = `
-- ARGV: prefix, now, then per job: id, fields JSON, group, due
for i = 3, #ARGV, 4 do
  if redis.call('EXISTS', ARGV[1] .. ':job:' .. ARGV[i]) == 1 then return {'dup', ARGV[i]} end
end
for i = 3, #ARGV, 4 do
  local id = ARGV[i]
  local due = tonumber(ARGV[i + 3])
  local seq = redis.call('INCR', KEYS[6])
  redis.call('HSET', ARGV[1] .. ':job:' .. id, 'f', ARGV[i + 1], 'group', ARGV[i + 2], 'attempts', 0, 'requeues', 0, 'state', 'enqueued', 'token', '', 'seq', seq)
  if due <= tonumber(ARGV[2]) then redis.call('XADD', KEYS[1], '*', 'id', id) else redis.call('ZADD', KEYS[2], due, id) end
end
return {'ok'}
`;

const CLAIM = `${PROMOTE}
-- ARGV: prefix, now, limit, lease, token, consumer
local now = tonumber(ARGV[2])
promote(now)
local read = redis.call('XREADGROUP', 'GROUP', 'workers', ARGV[6], 'COUNT', tonumber(ARGV[3]), 'STREAMS', KEYS[1], '>')
local claimed = {}
if not read then return claimed end
for _, entry in ipairs(read[1][2]) do
  local id = entry[2][2]
  redis.call('XACK', KEYS[1], 'workers', entry[1])
  redis.call('XDEL', KEYS[1], entry[1])
  local key = ARGV[1] .. ':job:' .. id
  if redis.call('HGET', key, 'state') == 'enqueued' then
    local group = redis.call('HGET', key, 'group')
    if group ~= '' and redis.call('HEXISTS', KEYS[4], group) == 1 then
      redis.call('ZADD', KEYS[5], tonumber(redis.call('HGET', key, 'seq')), id)
    else
      if group ~= '' then redis.call('HSET', KEYS[4], group, id) end
      local attempts = redis.call('HINCRBY', key, 'attempts', 1)
      redis.call('HSET', key, 'state', 'running', 'token', ARGV[5])
      redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), id)
      table.insert(claimed, {id, redis.call('HGET', key, 'f'), attempts, redis.call('HGET', key, 'requeues')})
    end
  end
end
return claimed
`;

// ARGV: prefix, id, token, now, lease | delay, refund. Returns 1 when the claim was this token's.
const HOLDS = `
local key = ARGV[1] .. ':job:' .. ARGV[2]
if redis.call('HGET', key, 'state') ~= 'running' or redis.call('HGET', key, 'token') ~= ARGV[3] then return 0 end
`;
const RELEASE_GROUP = `
local group = redis.call('HGET', key, 'group')
if group and group ~= '' and redis.call('HGET', KEYS[4], group) == ARGV[2] then redis.call('HDEL', KEYS[4], group) end
redis.call('ZREM', KEYS[3], ARGV[2])
`;
const RENEW = `${HOLDS}
redis.call('ZADD', KEYS[3], tonumber(ARGV[4]) + tonumber(ARGV[5]), ARGV[2])
return 1`;
const ACK = `${HOLDS}${RELEASE_GROUP}
redis.call('DEL', key)
return 1`;
const NACK = `${HOLDS}${RELEASE_GROUP}
local refund = tonumber(ARGV[6])
redis.call('HSET', key, 'state', 'enqueued', 'token', '')
if refund == 1 then redis.call('HINCRBY', key, 'attempts', -1); redis.call('HINCRBY', key, 'requeues', 1) end
local delay = tonumber(ARGV[5])
if delay > 0 then redis.call('ZADD', KEYS[2], tonumber(ARGV[4]) + delay, ARGV[2]) else redis.call('XADD', KEYS[1], '*', 'id', ARGV[2]) end
return 1`;
const CANCEL = `
-- ARGV: prefix, id, now
local key = ARGV[1] .. ':job:' .. ARGV[2]
local state = redis.call('HGET', key, 'state')
if not state then return 'unknown' end
if state == 'running' then
  local lease_end = redis.call('ZSCORE', KEYS[3], ARGV[2])
  if lease_end and tonumber(lease_end) > tonumber(ARGV[3]) then return 'running' end
  local group = redis.call('HGET', key, 'group')
  if group ~= '' and redis.call('HGET', KEYS[4], group) == ARGV[2] then redis.call('HDEL', KEYS[4], group) end
end
redis.call('DEL', key)
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[5], ARGV[2])
return 'cancelled'`;

interface StaticFields {
  type: string;
  payload: unknown;
  actorId: string | null;
  tenantId: string | null;
  maxRetry: number;
  notBefore: number | null;
  groupKey: string | null;
  traceId: string | null;
}

/**
 * A job queue on Redis Streams, shared by every replica pointing at the same Redis.
 *
 * @example
 * app.jobs({ queue: redisQueue({ url: 'redis://127.0.0.1:6379' }), handlers: { 'mail.send': send } });
 */
export function redisQueue(options: RedisQueueOptions = {}): JobQueue {
  const { client: redis, close: release } = clientFromOptions('redisQueue()', options, (url) => new Redis(url, { lazyConnect: false, ...options.redisOptions }), { defaultUrl: 'redis://127.0.0.1:6379' });
  const prefix = options.prefix ?? 'mfx:jobs';
  const keys = [`${prefix}:ready`, `${prefix}:delayed`, `${prefix}:running`, `${prefix}:busy`, `${prefix}:parked`, `${prefix}:seq`];
  const consumer = `worker-${randomUUID()}`;
  let group: Promise<void> | null = null;
  let closed = false;
  const ready = () =>
    (group ??= redis.xgroup('CREATE', keys[0]!, 'workers', '0', 'MKSTREAM').then(
      () => {},
      (error: Error) => {
        if (String(error.message).includes('BUSYGROUP')) return;
        // Not kept: a connection down at the first call would otherwise fail every later one.
        group = null;
        throw error;
      },
    ));
  const run = async (script: string, args: (string | number)[]): Promise<unknown> => {
    if (closed) throw new Error('the redis job queue is closed');
    await ready();
    return redis.eval(script, keys.length, ...keys, prefix, ...args);
  };

  return {
    kind: 'redis',
    transactional: false,
    async enqueue(jobs: readonly NewJob[]) {
      const made = jobs.map((job) => normaliseJob(job, randomUUID));
      if (made.length === 0) return [];
      const ids = made.map((j) => j.id);
      const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
      if (repeated) throw new DuplicateJobError(repeated);
      const args: (string | number)[] = [Date.now()];
      for (const job of made) {
        const fields: StaticFields = { type: job.type, payload: job.payload, actorId: job.actorId, tenantId: job.tenantId, maxRetry: job.maxRetry, notBefore: job.notBefore?.getTime() ?? null, groupKey: job.groupKey, traceId: job.traceId };
        args.push(job.id, JSON.stringify(fields), job.groupKey ?? '', job.notBefore?.getTime() ?? 0);
      }
      const answer = (await run(ENQUEUE, args)) as string[];
      if (answer[0] === 'dup') throw new DuplicateJobError(answer[1]!);
      return ids;
    },
    async claim({ limit, leaseMs }: ClaimOptions) {
      const token = randomUUID();
      const rows = (await run(CLAIM, [Date.now(), limit, leaseMs, token, consumer])) as [string, string, number, string][];
      return rows.map(([id, json, attempts, requeues]): ClaimedJob => {
        const f = JSON.parse(json) as StaticFields;
        return {
          id,
          type: f.type,
          payload: f.payload ?? null,
          actorId: f.actorId,
          tenantId: f.tenantId,
          maxRetry: f.maxRetry,
          notBefore: f.notBefore === null ? null : new Date(f.notBefore),
          groupKey: f.groupKey,
          traceId: f.traceId,
          attempts: Number(attempts),
          requeues: Number(requeues),
          token,
        };
      });
    },
    async renew(job, leaseMs) {
      return (await run(RENEW, [job.id, job.token, Date.now(), leaseMs])) === 1;
    },
    async ack(job) {
      return (await run(ACK, [job.id, job.token])) === 1;
    },
    async nack(job, options: NackOptions = {}) {
      return (await run(NACK, [job.id, job.token, Date.now(), options.delayMs ?? 0, options.refund ? 1 : 0])) === 1;
    },
    async cancel(id) {
      const answer = await run(CANCEL, [id, Date.now()]);
      if (answer === 'unknown' || answer === 'running') throw new JobCancelError(id, answer);
    },
    async close() {
      if (closed) return;
      closed = true;
      await release();
    },
  };
}

export { redisScheduleLock, type RedisScheduleLockOptions } from './schedule-lock.js';
