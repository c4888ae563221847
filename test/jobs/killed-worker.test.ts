// A worker process killed mid-job, for real: `mfx serve --app
// test/support/job-worker-app.ts` serves an app whose worker runs on the SQL
// queue (SQLite file, PostgreSQL) or on redisQueue (the real Redis); a POST
// enqueues a job, the process's handler starts it and holds, and the test
// kills the process with SIGKILL by its PID. A second worker (this process, on
// the same database and queue) must take the job over once the dead
// worker's lease has run out, run it once, and leave it `succeeded` with
// two attempts; the rows the handlers wrote count the runs. A job killed on
// its last allowed run (maxRetry 0) is not run again: it is `dead`.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import { type App, type JobTransition, openPostgres, openSqlite } from '@mfx/runtime';
import { Redis } from 'ioredis';
import { type Backend, sqliteFileBackend } from '../support/backends.js';
import { type CliDatabase, cliSuite, servingUrl } from '../support/cli.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { type QueueKind, REDIS_URL, workerApp } from '../support/job-worker-app.js';
import { request, startServer, type TestServer } from '../support/server.js';
import { eachBackend, postgres } from '../support/suite.js';
import { Recorder } from '../support/wait.js';

const APP = 'test/support/job-worker-app.ts';
/** The killed worker's lease: short, so the take-over comes soon after the kill. */
const LEASE_MS = 400;

/** The backend, opened on a database another process already uses (and migrated), which it does not drop. */
function sameDatabase(backend: Backend, url: string): Backend {
  return {
    name: backend.name,
    skip: false,
    open: async (registry) => ({
      adapter: url.startsWith('sqlite:') ? openSqlite(url.slice('sqlite:'.length), registry) : openPostgres({ writeUrl: url }, registry),
      drop: async () => {},
      url,
    }),
  };
}

/** Where the job's claim ends, as the queue stores it (epoch ms). */
async function leaseEnd(queue: QueueKind, db: CliDatabase, redis: Redis, prefix: string, id: string): Promise<number> {
  if (queue === 'sql') return Number((await db.query('SELECT lease_until FROM mfx_jobs WHERE id = ?', [id]))[0]!.lease_until);
  return Number(await redis.zscore(`${prefix}:running`, id));
}

/** Whether the queue still holds the job in any form (queued, delayed, running). */
async function queued(queue: QueueKind, db: CliDatabase, redis: Redis, prefix: string, id: string): Promise<boolean> {
  if (queue === 'sql') return Number((await db.query('SELECT COUNT(*) AS n FROM mfx_jobs WHERE id = ?', [id]))[0]!.n) > 0;
  if ((await redis.exists(`${prefix}:job:${id}`)) > 0) return true;
  return (await redis.zscore(`${prefix}:running`, id)) !== null || (await redis.zscore(`${prefix}:delayed`, id)) !== null;
}

eachBackend(
  'a worker process killed mid-job',
  (backend) => {
    const cli = cliSuite(backend);
    let manifest: string;
    before(async () => {
      manifest = await fixtureManifestDir('blog');
    });
    for (const queue of ['sql', 'redis'] as const) {
      it(`${queue} queue: a job is taken over after the dead worker's lease and finishes once (2 attempts); one killed on its last run is dead`, { timeout: 90_000 }, async () => {
        const db = await cli.database();
        const prefix = `mfx:test:jobs:${randomBytes(6).toString('hex')}`;
        const redis = new Redis(REDIS_URL);
        const worker = cli.start(['serve', '--manifest', manifest, '--db', db.url, '--app', APP, '--port', '0', '--no-scheduler'], {
          env: { MFX_QUEUE: queue, MFX_REDIS_PREFIX: prefix, MFX_LEASE_MS: String(LEASE_MS) },
        });
        const pid = worker.child.pid!;
        let survivor: TestServer | undefined;
        try {
          const url = await servingUrl(worker);
          const enqueue = async (name: string) => {
            const posted = await request(`${url}/tags`, 'POST', { body: { name } });
            assert.equal(posted.status, 201, posted.text);
            const id = posted.headers.get('x-job-id')!;
            assert.equal(id, `tag-${name}`);
            await worker.line(new RegExp(`^started ${id} 1$`));
            const held = await request(`${url}/job_statuses/${id}`, 'GET');
            assert.deepEqual([held.body.data.status, held.body.data.attempts], ['running', 1]);
            return id;
          };
          const retried = await enqueue(`killed-${queue}`);
          const last = await enqueue(`last-${queue}`);

          process.kill(pid, 'SIGKILL');
          assert.equal((await worker.exited).signal, 'SIGKILL');
          // Read once the process is gone: no renewal moves it any more.
          const leaseEnds = new Map<string, number>();
          for (const id of [retried, last]) leaseEnds.set(id, await leaseEnd(queue, db, redis, prefix, id));
          assert.ok([...leaseEnds.values()].every((end) => end > 0), 'the dead worker’s claims are still in the queue');

          const seen = new Recorder<{ transition: JobTransition; at: number }>();
          let app: App;
          survivor = await startServer(sameDatabase(backend, db.url), {
            setup: (a) => void (app = a),
            prepare: async (adapter) =>
              workerApp(app, adapter, { queue, redisPrefix: prefix, leaseMs: 30_000, hold: false, onTransition: (transition) => seen.push({ transition, at: Date.now() }) }),
          });
          await Promise.all([
            seen.next((s) => s.transition.id === retried && s.transition.status === 'succeeded'),
            seen.next((s) => s.transition.id === last && ['succeeded', 'dead'].includes(s.transition.status)),
          ]);
          const of = (id: string) => seen.seen.filter((s) => s.transition.id === id);
          assert.deepEqual(
            of(retried).map((s) => [s.transition.status, s.transition.attempts]),
            [
              ['running', 2],
              ['succeeded', 2],
            ],
          );
          for (const id of [retried, last]) {
            const [first] = of(id);
            assert.ok(first!.at >= leaseEnds.get(id)!, `${id} taken over at ${first!.at}, not before the dead worker's lease ended at ${leaseEnds.get(id)}`);
          }
          assert.deepEqual(
            of(last).map((s) => [s.transition.status, s.transition.attempts]),
            [['dead', 1]],
            'not run again: its one run was spent',
          );

          const done = await survivor.request('GET', `/job_statuses/${retried}`);
          assert.equal(done.status, 200);
          assert.deepEqual([done.body.data.status, done.body.data.attempts, done.body.data.output], ['succeeded', 2, { attempt: 2, pid: process.pid }]);
          assert.match(done.body.data.completed_at, /^\d{4}-\d\d-\d\dT/);
          const dead = await survivor.request('GET', `/job_statuses/${last}`);
          assert.deepEqual([dead.body.data.status, dead.body.data.attempts, 'error' in dead.body.data], ['dead', 1, false]);
          assert.match(dead.body.data.completed_at, /^\d{4}-\d\d-\d\dT/);
          assert.equal((await db.query('SELECT error FROM job_statuses WHERE id = ?', [last]))[0]!.error, 'its last run (1 of 1) did not finish: the worker running it died or was stopped');

          const runs = async (id: string) => (await db.query('SELECT attempt, pid, step FROM job_runs WHERE job_id = ? ORDER BY attempt, step DESC', [id])).map((r) => [Number(r.attempt), Number(r.pid), r.step]);
          assert.deepEqual(
            await runs(retried),
            [
              [1, pid, 'started'],
              [2, process.pid, 'started'],
              [2, process.pid, 'finished'],
            ],
            'the killed run started and never finished; the second ran to its end, once',
          );
          assert.deepEqual(await runs(last), [[1, pid, 'started']]);
          for (const id of [retried, last]) assert.equal(await queued(queue, db, redis, prefix, id), false, `nothing is left in the queue to run ${id} again`);
        } finally {
          await worker.stop('SIGKILL');
          await survivor?.close();
          const keys = await redis.keys(`${prefix}:*`);
          if (keys.length > 0) await redis.del(...keys);
          await redis.quit();
        }
      });
    }
  },
  [sqliteFileBackend, postgres],
);
