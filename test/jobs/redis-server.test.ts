// redisQueue (@mfx/jobs-redis) behind a server, end to end on both
// databases and the real Redis: a Tag create enqueues a job (after its
// commit, since Redis cannot join the transaction), the worker runs it, and
// every transition is read over HTTP from /job_statuses/<id>, including a
// retry after a small backoff and `dead` after maxRetry; terminal
// transitions arrive as job.<type>.completed / job.<type>.failed on a memory
// bus. To read the short states for sure, each handler run waits on a gate
// the test opens, and the worker's claims wait while the test holds them
// (a pass-through around the real queue): the worker cannot move a job on
// while the test is looking.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, it } from 'node:test';
import { redisQueue } from '@mfx/jobs-redis';
import { ApiError, type App, type JobQueue, type JobTransition, memoryBus, type MfxEvent, transaction } from '@mfx/runtime';
import { Redis } from 'ioredis';
import { REDIS_URL } from '../support/job-worker-app.js';
import { eachBackend, useServer } from '../support/suite.js';
import { type Gate, gate, Recorder } from '../support/wait.js';

const BACKOFF_MS = 40;

/** Claims that wait while the test holds them: `wrap` passes everything else straight to the real queue. */
function holdableClaims() {
  let held: Gate | null = null;
  return {
    wrap: (queue: JobQueue): JobQueue => ({
      ...queue,
      async claim(options) {
        while (held) await held.opened;
        return queue.claim(options);
      },
    }),
    hold() {
      held ??= gate();
    },
    release() {
      const was = held;
      held = null;
      was?.open();
    },
  };
}

interface Run {
  id: string;
  attempt: number;
  /** Opening it lets the handler go on: it fails when the tag's name starts with `doomed`, else succeeds. */
  go: Gate;
}

eachBackend('redisQueue behind a server', (backend) => {
  const prefix = `mfx:test:jobs:${randomBytes(6).toString('hex')}`;
  // Redis clients are opened when the server starts: a suite skipped (PostgreSQL unreachable) opens none.
  let redis: Redis;
  const claims = holdableClaims();
  const transitions = new Recorder<{ transition: JobTransition; at: number }>();
  const runs = new Recorder<Run>();
  const bus = memoryBus();
  const events = new Recorder<MfxEvent>();
  let app: App;
  // Before the server's own `after` (hooks run in order): a worker stopping waits for its claim, which must not be held.
  after(() => claims.release());
  const server = useServer(backend, {
    setup: (a) => void (app = a),
    prepare: async () => {
      redis = new Redis(REDIS_URL);
      await bus.subscribe({ name: 'job-events', patterns: ['job.*.completed', 'job.*.failed'], handler: (event) => events.push(event) });
      app.jobs({
        queue: claims.wrap(redisQueue({ url: REDIS_URL, prefix })),
        concurrency: 1,
        pollMs: 10,
        backoff: { baseMs: BACKOFF_MS, capMs: 1000 },
        bus,
        handlers: {
          work: async (job, ctx) => {
            const go = gate();
            runs.push({ id: job.id, attempt: ctx.attempt, go });
            await go.opened;
            if ((job.payload as { fail: boolean }).fail) throw new Error(`run ${ctx.attempt} failed on purpose`);
            return { url: `https://files.example.com/${job.id}.pdf`, output: { attempt: ctx.attempt } };
          },
        },
        onTransition: (transition) => {
          // Held before the worker nacks the job: its retry is not claimed until the test has read `failed`.
          if (transition.status === 'failed') claims.hold();
          transitions.push({ transition, at: Date.now() });
        },
      });
      app.use('service', transaction(), { models: ['Tag'], ops: ['create'] });
      // A tag's create enqueues `tag-<name>`; a name starting with "refuse" fails the request after the enqueue, rolling the write back.
      app.use(
        'db',
        async (ctx, next) => {
          await next();
          const name = String(ctx.body?.name ?? '');
          ctx.headers['x-job-id'] = await app.enqueue({ type: 'work', id: `tag-${name}`, maxRetry: 2, payload: { fail: name.startsWith('doomed') } }, ctx);
          if (name.startsWith('refuse')) throw new ApiError('CONFLICT', 'refused after the enqueue, on purpose');
        },
        { models: ['Tag'], ops: ['create'], position: 'after' },
      );
    },
  });
  after(async () => {
    await bus.close();
    if (!redis) return;
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  const status = async (id: string) => {
    const answer = await server.request('GET', `/job_statuses/${id}`);
    assert.equal(answer.status, 200, answer.text);
    assert.equal('error' in answer.body.data, false, 'the error column is never served');
    return answer.body.data as { status: string; attempts: number; started_at: string | null; completed_at: string | null; result_url: string | null; output: unknown };
  };
  const reached = (id: string, state: string, attempts: number) =>
    transitions.next((s) => s.transition.id === id && s.transition.status === state && s.transition.attempts === attempts);
  const jobKeys = async (id: string) => (await redis.keys(`${prefix}:job:${id}`)).length;

  it('runs a job enqueued by a POST to succeeded, each state read over HTTP, and publishes job.work.completed', { timeout: 30_000 }, async () => {
    claims.hold();
    const created = await server.request('POST', '/tags', { body: { name: 'fine' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('x-job-id'), 'tag-fine');
    const waiting = await status('tag-fine');
    assert.deepEqual([waiting.status, waiting.attempts, waiting.started_at, waiting.completed_at], ['enqueued', 0, null, null]);
    assert.equal(await jobKeys('tag-fine'), 1, 'the job is in Redis once the POST has answered');

    claims.release();
    const run = await runs.next((r) => r.id === 'tag-fine');
    const running = await status('tag-fine');
    assert.deepEqual([running.status, running.attempts, running.completed_at], ['running', 1, null]);
    assert.match(running.started_at!, /^\d{4}-\d\d-\d\dT/);

    run.go.open();
    const completed = await events.next((e) => e.recordId === 'tag-fine');
    const done = await status('tag-fine');
    assert.deepEqual([done.status, done.attempts, done.result_url, done.output], ['succeeded', 1, 'https://files.example.com/tag-fine.pdf', { attempt: 1 }]);
    assert.match(done.completed_at!, /^\d{4}-\d\d-\d\dT/);
    assert.equal(completed.type, 'job.work.completed');
    assert.deepEqual(completed.data, { id: 'tag-fine', type: 'work', status: 'succeeded', attempts: 1, result_url: 'https://files.example.com/tag-fine.pdf', output: { attempt: 1 } });
    assert.equal(await jobKeys('tag-fine'), 0, 'a finished job leaves Redis');
  });

  it('retries a failing job after the backoff, failed read over HTTP between runs, then dead after maxRetry with job.work.failed', { timeout: 30_000 }, async () => {
    claims.hold();
    const created = await server.request('POST', '/tags', { body: { name: 'doomed' } });
    assert.equal(created.status, 201, created.text);
    const id = created.headers.get('x-job-id')!;
    assert.equal((await status(id)).status, 'enqueued');
    for (let attempt = 1; attempt <= 3; attempt++) {
      claims.release();
      const run = await runs.next((r) => r.id === id && r.attempt === attempt);
      const running = await status(id);
      assert.deepEqual([running.status, running.attempts, running.completed_at], ['running', attempt, null]);
      run.go.open();
      if (attempt === 3) break;
      await reached(id, 'failed', attempt);
      const failed = await status(id);
      assert.deepEqual([failed.status, failed.attempts, failed.completed_at], ['failed', attempt, null]);
      assert.equal((await app.db.raw('SELECT error FROM job_statuses WHERE id = ?', [id]))[0]!.error, `run ${attempt} failed on purpose`);
    }
    const failedEvent = await events.next((e) => e.recordId === id);
    const dead = await status(id);
    assert.deepEqual([dead.status, dead.attempts, dead.result_url, dead.output], ['dead', 3, null, null]);
    assert.match(dead.completed_at!, /^\d{4}-\d\d-\d\dT/);
    assert.equal((await app.db.raw('SELECT error FROM job_statuses WHERE id = ?', [id]))[0]!.error, 'run 3 failed on purpose');
    assert.equal(failedEvent.type, 'job.work.failed');
    assert.deepEqual(failedEvent.data, { id, type: 'work', status: 'dead', attempts: 3 });
    assert.equal(events.seen.filter((e) => e.recordId === id).length, 1, 'no event for the failed runs between retries');

    const mine = transitions.seen.filter((s) => s.transition.id === id);
    assert.deepEqual(
      mine.map((s) => `${s.transition.status} ${s.transition.attempts}`),
      ['enqueued 0', 'running 1', 'failed 1', 'running 2', 'failed 2', 'running 3', 'dead 3'],
    );
    // Retry n waits BACKOFF_MS × 2^(n−1) after its failure, whenever the test released the claims.
    const at = (state: string, attempts: number) => mine.find((s) => s.transition.status === state && s.transition.attempts === attempts)!.at;
    assert.ok(at('running', 2) - at('failed', 1) >= BACKOFF_MS, `first retry after ≥ ${BACKOFF_MS} ms`);
    assert.ok(at('running', 3) - at('failed', 2) >= 2 * BACKOFF_MS, `second retry after ≥ ${2 * BACKOFF_MS} ms`);
    assert.equal(await jobKeys(id), 0, 'a dead job leaves Redis');
  });

  it('enqueues nothing for a request that is refused, before or after its write', { timeout: 30_000 }, async () => {
    const invalid = await server.request('POST', '/tags', { body: { name: 42 } });
    assert.equal(invalid.status, 422);
    assert.deepEqual(invalid.body.error, { code: 'VALIDATION_ERROR', message: 'the Tag is not valid; see details', details: [{ field: 'name', message: 'must be a string' }] });
    assert.equal((await server.request('GET', '/job_statuses/tag-42')).status, 404);
    assert.equal(await jobKeys('tag-42'), 0);

    const refused = await server.request('POST', '/tags', { body: { name: 'refuse-me' } });
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body, { error: { code: 'CONFLICT', message: 'refused after the enqueue, on purpose' } });
    assert.equal((await server.request('GET', '/tags?filter=name:eq:refuse-me')).body.meta.total, 0);
    const missing = await server.request('GET', '/job_statuses/tag-refuse-me');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    assert.equal(await jobKeys('tag-refuse-me'), 0, 'the enqueue waited for a commit that never came');
    assert.equal(transitions.seen.some((s) => s.transition.id === 'tag-refuse-me' || s.transition.id === 'tag-42'), false);
  });
});
