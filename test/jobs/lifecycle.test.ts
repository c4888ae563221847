// The worker's shutdown (running handlers awaited within the budget, the
// claims of those still running released), the interval scheduler and its
// lock, on the in-process queue and both databases (the lock's own contract:
// schedule-lock.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type App, type JobQueue, memoryQueue, silentLogger } from '@mfx/runtime';
import { Worker } from '../../runtime/src/jobs/worker.js';
import { matrix } from '../support/suite.js';
import { startServer } from '../support/server.js';
import { gate, Recorder } from '../support/wait.js';

describe('worker shutdown', () => {
  it('waits for a running handler that ends within the budget', async () => {
    const queue = memoryQueue();
    const reached = new Recorder<string>();
    const held = gate();
    const done = new Recorder<string>();
    const worker = new Worker({ queue, handlers: { slow: async (job) => (reached.push(job.id), await held.opened, done.push(job.id), {}) }, pollMs: 5 }, null, silentLogger);
    await queue.enqueue([{ type: 'slow', id: 'slow-1' }]);
    worker.start();
    await reached.next();
    let stopped = false;
    const stopping = worker.stop(60_000).then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stopped, false, 'still waiting for the handler');
    held.open();
    await stopping;
    assert.deepEqual(done.seen, ['slow-1']);
    assert.deepEqual(await queue.claim({ limit: 10, leaseMs: 1000 }), [], 'the finished job is gone');
  });

  it('releases the claim of a handler still running when the budget runs out, so another worker takes it at once', async () => {
    const queue = memoryQueue();
    const reached = new Recorder<string>();
    let aborted = false;
    const worker = new Worker(
      { queue, handlers: { stuck: (_job, ctx) => new Promise(() => (reached.push('in'), ctx.signal.addEventListener('abort', () => (aborted = true)))) }, pollMs: 5, leaseMs: 3_600_000 },
      null,
      silentLogger,
    );
    await queue.enqueue([{ type: 'stuck', id: 'stuck-1' }]);
    worker.start();
    await reached.next();
    await worker.stop(20);
    assert.equal(aborted, true, 'the handler is told through its signal');
    const [again] = await queue.claim({ limit: 10, leaseMs: 1000 });
    assert.equal(again?.id, 'stuck-1', 'claimable at once, without waiting for the hour-long lease');
    assert.equal(again?.attempts, 2);
  });

  it('claims nothing without a single handler (an app that only enqueues): its jobs wait for a worker that runs them', async (t) => {
    const queue = memoryQueue();
    let claims = 0;
    const counted = { ...queue, kind: queue.kind, transactional: queue.transactional, claim: (options: Parameters<typeof queue.claim>[0]) => (claims++, queue.claim(options)) };
    // The worker schedules its claims with setTimeout: run every timer it sets, at once.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const worker = new Worker({ queue: counted, handlers: {}, pollMs: 1000 }, null, silentLogger);
    await queue.enqueue([{ type: 'elsewhere', id: 'waits-1' }]);
    worker.start();
    worker.wake();
    t.mock.timers.runAll();
    await worker.stop(1000);
    assert.equal(claims, 0);
    const [job] = await queue.claim({ limit: 10, leaseMs: 1000 });
    assert.deepEqual([job?.id, job?.attempts, job?.requeues], ['waits-1', 1, 0], 'never claimed nor requeued before');
  });
});

describe('worker shutdown, a claim that lands as the worker stops', () => {
  it('gives the job back unrun, not counted as an attempt, so a job with no retry left still runs', async () => {
    const queue = memoryQueue();
    const held = gate();
    const asked = new Recorder<string>();
    // The worker's claim is held until the test has asked the worker to stop.
    const gated: JobQueue = { ...queue, claim: async (options) => (asked.push('claim'), await held.opened, queue.claim(options)) };
    await queue.enqueue([{ type: 'once', id: 'once-1', maxRetry: 0 }]);
    const worker = new Worker({ queue: gated, handlers: { once: async () => ({}) }, pollMs: 5 }, null, silentLogger);
    worker.start();
    await asked.next();
    const stopping = worker.stop(1000);
    held.open();
    await stopping;
    const [again] = await queue.claim({ limit: 1, leaseMs: 1000 });
    assert.equal(again?.id, 'once-1');
    assert.equal(again?.attempts, 1, 'only this claim counts');
  });
});

describe('interval scheduler', () => {
  for (const backend of matrix) {
    describe(`on ${backend.name}`, { skip: backend.skip }, () => {
      it('enqueues its job every interval while the server runs, and stops with it', async () => {
        const runs = new Recorder<unknown>();
        let app!: App;
        const server = await startServer(backend, {
          setup: (a) => {
            app = a;
            a.jobs({ queue: memoryQueue(), handlers: { tick: async (job) => (runs.push(job.payload), {}) }, pollMs: 5, statusRoutes: false });
            a.every('15ms', { type: 'tick', payload: { n: 1 } }, { lock: true });
          },
        });
        try {
          assert.deepEqual(await runs.count(3), [{ n: 1 }, { n: 1 }, { n: 1 }]);
          const [row] = await app.db.raw('SELECT name FROM mfx_schedule_locks');
          assert.equal(row?.name, 'tick@15');
        } finally {
          await server.close();
        }
      });
    });
  }

  it('refuses a bad interval, a job without a type or a bad lock, and app.every without app.jobs at start', async () => {
    const { createServer } = await import('@mfx/runtime');
    const app = createServer({ logger: silentLogger });
    assert.throws(() => app.every('soon', { type: 'x' }), { message: 'mfx: app.every() interval must be a duration such as "500ms", "5s" or "2m", got "soon"' });
    assert.throws(() => app.every('0ms', { type: 'x' }), { message: 'mfx: app.every() needs an interval of at least 1ms, such as "5m"' });
    assert.throws(() => app.every('1s', { type: '' }), { message: "mfx: app.every() needs a job with a type: app.every('5m', { type: 'cache.refresh' })" });
    assert.throws(() => app.every('1s', { type: 'x' }, { lock: 'redis' as never }), {
      message: 'mfx: app.every() lock must be true, false, or an interval lock such as sqlScheduleLock(db) or redisScheduleLock({ url }) from @mfx/jobs-redis',
    });
    await assert.rejects(app.enqueue({ type: 'x' }), { message: 'mfx: app.enqueue() needs background jobs: call app.jobs({ queue, handlers }) first' });
  });
});
