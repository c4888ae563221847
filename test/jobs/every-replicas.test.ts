// The interval scheduler with several replicas on one database (SQLite, PostgreSQL): with the SQL
// lock and sqlQueue on the same database, taking an interval and enqueueing its job is one transaction,
// so a replica that fails between the two (a crash) leaves the interval free for the next tick of any
// replica, and an interval is enqueued once however many replicas tick at once. Each replica is a whole
// app (on PostgreSQL with its own connection pool; on SQLite the apps share one adapter, as in
// schedule-lock.test.ts: replicas of one SQLite file are processes, and in one process a connection's
// BEGIN IMMEDIATE would wait synchronously for another's); the test ticks their schedules itself on a
// clock pinned to one interval.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type Adapter, type App, createServer, type JobQueue, type JobTransition, openPostgres, sqlQueue, sqlScheduleLock } from '@mfx/runtime';
import { type LockedSchedule, Scheduler } from '../../runtime/src/jobs/every.js';
import { loadFixture } from '../support/fixtures.js';
import { jobsOf } from '../support/jobs-of.js';
import { memoryLogger } from '../support/server.js';
import { eachBackend } from '../support/suite.js';
import { Recorder } from '../support/wait.js';

const HOUR = 3_600_000;

/** A queue that fails its next enqueue once armed: a replica dying between the lock and the enqueue. */
function crashing(queue: JobQueue) {
  let armed = false;
  return {
    arm: () => void (armed = true),
    queue: {
      ...queue,
      async enqueue(jobs, tx) {
        if (armed) {
          armed = false;
          throw new Error('the replica crashed between taking the interval and enqueueing');
        }
        return queue.enqueue(jobs, tx);
      },
    } as JobQueue,
  };
}

eachBackend(
  'interval scheduler replicas',
  (backend) => {
    it('a failure between the lock and the enqueue leaves the interval to the next tick; concurrent ticks enqueue each interval once', { timeout: 60_000 }, async () => {
      const transitions = new Recorder<{ replica: string; t: JobTransition }>();
      const apps: App[] = [];
      let drop = async () => {};
      const crash = { arm: () => {} };
      const ticks: Array<{ app: App; logger: ReturnType<typeof memoryLogger>; fire: (now: number) => Promise<string | null> }> = [];
      try {
        let url = '';
        let shared: Adapter | null = null;
        for (const name of ['a', 'b', 'c']) {
          const logger = memoryLogger();
          const app = createServer({ port: 0, host: '127.0.0.1', logger, handleSignals: false });
          app.register(await loadFixture('blog'));
          let adapter: Adapter;
          if (!shared) {
            const opened = await backend.open(app.registry);
            ({ adapter, url, drop } = opened);
            shared = adapter;
          } else adapter = backend.name === 'postgres' ? openPostgres({ writeUrl: url }, app.registry) : shared;
          app.setDB(adapter);
          let queue: JobQueue = sqlQueue(adapter);
          if (name === 'a') {
            const wrapped = crashing(queue);
            queue = wrapped.queue;
            crash.arm = wrapped.arm;
          }
          app.jobs({ queue, handlers: { tick: async () => ({ output: { by: name } }) }, pollMs: 10, onTransition: (t) => transitions.push({ replica: name, t }) });
          // Declares the schedule (and its lock table); an hour's timer never fires during the test.
          app.every('1h', { type: 'tick' }, { lock: true });
          await app.start();
          apps.push(app);
          const schedule: LockedSchedule = { intervalMs: HOUR, job: { type: 'tick' }, options: { lock: true }, lock: sqlScheduleLock(app.db) };
          const scheduler = new Scheduler([schedule], (...args) => jobsOf(app).enqueueOnSlot(...args), logger);
          ticks.push({ app, logger, fire: (now) => scheduler.fire(schedule, now) });
        }
        const [a, b, c] = ticks as [(typeof ticks)[0], (typeof ticks)[0], (typeof ticks)[0]];
        const now = Date.now();
        const slot = Math.floor(now / HOUR);
        const idOf = (s: number) => `tick@${HOUR}:${s}`;
        const lockSlot = async () => (await a.app.db.raw('SELECT slot FROM mfx_schedule_locks WHERE name = ?', [`tick@${HOUR}`])).map((r) => Number(r.slot));

        crash.arm();
        assert.equal(await a.fire(now), null);
        const failure = await a.logger.next((l) => l.message === 'the interval scheduler could not enqueue its job');
        assert.deepEqual(failure.fields, { err: 'the replica crashed between taking the interval and enqueueing', schedule: `tick@${HOUR}`, slot });
        assert.deepEqual(await lockSlot(), [], 'the interval was not taken: the lock rolled back with the failed enqueue');
        assert.equal((await a.app.db.raw('SELECT id FROM job_statuses')).length, 0, 'nor a status row');

        assert.equal(await b.fire(now), idOf(slot), 'the next tick of another replica enqueues the interval');
        assert.equal(await c.fire(now), null);
        assert.equal(await a.fire(now), null);
        assert.deepEqual(await lockSlot(), [slot]);
        await transitions.next(({ t }) => t.id === idOf(slot) && t.status === 'succeeded');

        // The next interval, every replica twice at once: one of them takes it.
        const answers = await Promise.all(ticks.flatMap((r) => [r.fire(now + HOUR), r.fire(now + HOUR)]));
        assert.deepEqual(answers.filter((x) => x !== null), [idOf(slot + 1)]);
        await transitions.next(({ t }) => t.id === idOf(slot + 1) && t.status === 'succeeded');
        const enqueued = transitions.seen.filter(({ t }) => t.status === 'enqueued').map(({ t }) => t.id);
        assert.deepEqual(enqueued, [idOf(slot), idOf(slot + 1)], 'one job per interval');
        const rows = await a.app.db.raw('SELECT id, status FROM job_statuses ORDER BY id');
        assert.deepEqual(rows.map((r) => `${r.id} ${r.status}`), [`${idOf(slot)} succeeded`, `${idOf(slot + 1)} succeeded`]);
        for (const r of ticks) assert.deepEqual(r.logger.lines.filter((l) => l.level === 'error').map((l) => [l.message, l.fields.err]), r === a ? [[failure.message, failure.fields.err]] : [], 'no other failure, no duplicate');
      } finally {
        for (const app of apps) await app.stop();
        await drop();
      }
    });
  },
);
