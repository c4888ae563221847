// Rate limiting at the DB step: 429 RATE_LIMITED with Retry-After, per-replica
// memory counts and a Redis count shared by two servers.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { type App, memoryStore, rateLimit } from '@mfx/runtime';
import { redisStore } from '@mfx/redis';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

eachBackend('rate limiting', (backend) => {
  const server = useServer(backend, {
    setup(app) {
      app.use('db', rateLimit({ requestsPerMinute: 3 }), { models: ['Tag'], ops: ['create'] });
      // Keyed by a header so each test has its own counter.
      app.use('db', rateLimit({ requestsPerMinute: 2, key: (ctx) => String(ctx.req.headers['x-client'] ?? 'none') }), { models: ['Company'] });
    },
  });

  it('answers 429 RATE_LIMITED with Retry-After past the limit, and writes nothing', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await server.request('POST', '/tags', { body: { name: `t${i}` } })).status, 201);
    const limited = await server.request('POST', '/tags', { body: { name: 'over' } });
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.body.error, { code: 'RATE_LIMITED', message: `more than 3 requests per minute; retry after ${limited.headers.get('retry-after')} s` });
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60);
    assert.equal((await server.request('GET', '/tags')).body.meta.total, 3);
  });

  it('counts per key', async () => {
    for (const client of ['a', 'a']) assert.equal((await server.request('GET', '/companies', { headers: { 'x-client': client } })).status, 200);
    assert.equal((await server.request('GET', '/companies', { headers: { 'x-client': 'a' } })).status, 429);
    assert.equal((await server.request('GET', '/companies', { headers: { 'x-client': 'b' } })).status, 200);
  });
});

describe('rate limit keys and trustProxyHeaders', () => {
  it('keys anonymous callers by remote address; X-Forwarded-For only counts when trustProxyHeaders is set', async () => {
    for (const trust of [false, true]) {
      const server = await startServer(sqlite, {
        config: { trustProxyHeaders: trust },
        setup: (app) => void app.use('db', rateLimit({ requestsPerMinute: 1 }), { models: ['Tag'] }),
      });
      try {
        assert.equal((await server.request('GET', '/tags', { headers: { 'x-forwarded-for': '203.0.113.1' } })).status, 200);
        const other = await server.request('GET', '/tags', { headers: { 'x-forwarded-for': '203.0.113.2' } });
        // Untrusted, both requests come from 127.0.0.1 and share one count; trusted, they are two clients.
        assert.equal(other.status, trust ? 200 : 429);
      } finally {
        await server.close();
      }
    }
  });

  it('lets requests through when the store fails, and logs it', async () => {
    const broken = { hit: async () => Promise.reject(new Error('store down')) };
    const server = await startServer(sqlite, { setup: (app) => void app.use('db', rateLimit({ requestsPerMinute: 1, store: broken }), { models: ['Tag'] }) });
    try {
      assert.equal((await server.request('GET', '/tags')).status, 200);
      assert.equal((await server.request('GET', '/tags')).status, 200);
      assert.ok(server.logs.some((l) => l.message === 'rate limit store failed; request let through'));
    } finally {
      await server.close();
    }
  });

  it('refuses a limit that is not a positive integer', () => {
    assert.throws(() => rateLimit({ requestsPerMinute: 0 }), /requestsPerMinute must be a positive integer, got 0/);
    assert.throws(() => redisStore({}), /redisStore\(\) needs \{ client \} or \{ url \}/);
    assert.ok(memoryStore());
  });
});

describe('rate limiting shared through Redis', () => {
  const prefix = `mfx:test:${randomBytes(4).toString('hex')}:`;
  // Two replicas, each with its own Redis client, sharing one count.
  const setup = (app: App) => void app.use('db', rateLimit({ requestsPerMinute: 4, store: redisStore({ url: REDIS_URL, prefix }) }), { models: ['Tag'], ops: ['list'] });
  const a = useServer(sqlite, { setup });
  const b = useServer(sqlite, { setup });
  after(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('counts requests to both replicas against one limit', async () => {
    const statuses: number[] = [];
    for (const server of [a, b, a, b, a, b]) statuses.push((await server.request('GET', '/tags')).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    const limited = await b.request('GET', '/tags');
    assert.equal(limited.body.error.code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  });

  it('sets an expiry on the shared counter', async () => {
    await a.request('GET', '/tags'); // counted (200 or, past the limit, 429)
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}*`);
      assert.equal(keys.length, 1);
      const ttl = await redis.pttl(keys[0]);
      assert.ok(ttl > 0 && ttl <= 60_000);
    } finally {
      await redis.quit();
    }
  });
});
