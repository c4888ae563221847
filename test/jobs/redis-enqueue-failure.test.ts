// A redisQueue enqueue that fails after the request's write committed (docs/decisions.md, "A job a
// non-transactional queue fails to take after the commit"), on both databases and the real Redis: the
// queue's own connection is stopped, a Tag create commits its row, the enqueue after the commit fails,
// and the request answers 500 JOB_ENQUEUE_FAILED (not 201): the tag stands, the job and its status row do
// not exist. With the connection back, the next create enqueues as before.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { after, it } from 'node:test';
import { redisQueue } from '@mfx/jobs-redis';
import { type App, transaction } from '@mfx/runtime';
import { Redis } from 'ioredis';
import { REDIS_URL } from '../support/job-worker-app.js';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('redisQueue enqueue failing after the commit', (backend) => {
  const prefix = `mfx:test:jobs:${randomBytes(6).toString('hex')}`;
  let client: Redis;
  let app: App;
  const server = useServer(backend, {
    setup: (a) => void (app = a),
    prepare: async () => {
      // The queue's connection, owned by the test so it can stop it; the worker's claims fail meanwhile (logged).
      client = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
      client.on('error', () => {});
      // No handler for `work`: the jobs stay in Redis for the test to find.
      app.jobs({ queue: redisQueue({ client, prefix }), handlers: {}, pollMs: 10 });
      app.use('service', transaction(), { models: ['Tag'], ops: ['create'] });
      app.use(
        'db',
        async (ctx, next) => {
          await next();
          ctx.headers['x-job-id'] = await app.enqueue({ type: 'work', id: `tag-${String(ctx.body?.name)}` }, ctx);
        },
        { models: ['Tag'], ops: ['create'], position: 'after' },
      );
    },
  });
  after(async () => {
    if (!client) return;
    if (client.status !== 'ready') await client.connect().catch(() => {});
    const keys = await client.keys(`${prefix}:*`);
    if (keys.length > 0) await client.del(...keys);
    client.disconnect();
  });
  const jobKeys = async (id: string) => (await client.keys(`${prefix}:job:${id}`)).length;
  const tags = async (name: string) => (await server.request('GET', `/tags?filter=name:eq:${name}`)).body.meta.total;

  it('answers 500 JOB_ENQUEUE_FAILED when the queue fails after the commit: the write stands, no job, no status row; then recovers', { timeout: 30_000 }, async () => {
    const before = await server.request('POST', '/tags', { body: { name: 'before' } });
    assert.equal(before.status, 201, before.text);
    assert.equal(await jobKeys('tag-before'), 1);

    const ended = once(client, 'end');
    client.disconnect();
    await ended;
    const lost = await server.request('POST', '/tags', { body: { name: 'lost' } });
    assert.equal(lost.status, 500, lost.text);
    assert.deepEqual(lost.body, { error: { code: 'JOB_ENQUEUE_FAILED', message: 'internal server error' } });
    const line = await server.logLine((l) => l.message === 'enqueueing a job after the commit failed: the write stands, the job was not enqueued');
    assert.deepEqual([line.level, line.fields.jobId, line.fields.type, line.fields.queue], ['error', 'tag-lost', 'work', 'redis']);
    assert.equal(await tags('lost'), 1, 'the committed write stands');
    const status = await server.request('GET', '/job_statuses/tag-lost');
    assert.equal(status.status, 404);
    assert.equal(status.body.error.code, 'NOT_FOUND');

    await client.connect();
    assert.equal(await jobKeys('tag-lost'), 0, 'the job was never enqueued');
    const afterwards = await server.request('POST', '/tags', { body: { name: 'after' } });
    assert.equal(afterwards.status, 201, afterwards.text);
    assert.equal((await server.request('GET', '/job_statuses/tag-after')).body.data.status, 'enqueued');
    assert.equal(await jobKeys('tag-after'), 1);
  });
});
