// Scheduled sweeps dispatched through the job queue (spec "Record
// lifecycle": "with several replicas ... dispatch sweeps through the job
// queue"): with app.jobs, each interval one replica enqueues a sweep job per
// model (its id names the model and the interval) and whichever worker
// claims it sweeps. One server on both databases, then two replicas on one
// PostgreSQL database sharing a SQL queue; observed through the workers'
// transitions, job_statuses and history rows, never through timing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type App, ConfigError, createServer, type JobTransition, memoryQueue, openPostgres, SWEEP_JOB_TYPE, type SweepReport, silentLogger, sqlQueue, sqlScheduleLock } from '@mfx/runtime';
import { freshSchema } from '../support/backends.js';
import { loadFixture } from '../support/fixtures.js';
import { request } from '../support/server.js';
import { eachBackend, postgres, sqlite, useServer } from '../support/suite.js';
import { Recorder } from '../support/wait.js';
import { sweepDispatcher } from '../../runtime/src/scheduler/dispatch.js';
import { jobsOf } from '../support/jobs-of.js';

const past = (minutes = 5) => new Date(Date.now() - minutes * 60_000).toISOString();
const SCHEDULED_MODELS = ['Board', 'Message', 'Notice', 'Shelf', 'Topic'];
const NO_CHANGE: SweepReport = { softDeleted: 0, hardDeleted: 0, fieldsSet: 0, failed: 0 };

eachBackend('scheduled sweeps through the job queue', (backend) => {
  let app!: App;
  const sweeps = new Recorder<JobTransition>();
  const server = useServer(backend, {
    fixture: 'scheduled',
    setup: (a) => {
      app = a;
      a.scheduler({ interval: '30ms' });
    },
    prepare: async (adapter) => void app.jobs({ queue: sqlQueue(adapter), handlers: {}, pollMs: 10, onTransition: (t) => t.type === SWEEP_JOB_TYPE && sweeps.push(t) }),
  });

  it('each interval enqueues one sweep job per model, a worker runs it, and its status row says what it did', async () => {
    const started = await server.logLine((l) => l.message === 'scheduled transitions runner started');
    assert.equal(started.fields.mode, 'queue');
    const created = await server.request('POST', '/sched_notices', { body: { title: 'through the queue', publishAt: past() } });
    assert.equal(created.status, 201, created.text);
    const done = await sweeps.next((t) => t.status === 'succeeded' && (t.output as SweepReport).fieldsSet > 0);
    assert.match(done.id, /^mfx\.scheduled\.sweep:Notice@30:\d+$/);
    assert.deepEqual(done.output, { ...NO_CHANGE, fieldsSet: 1 });
    assert.equal((await server.request('GET', `/sched_notices/${created.body.data.id}`)).body.data.state, 'live');
    const status = (await server.request('GET', `/job_statuses/${encodeURIComponent(done.id)}`)).body.data;
    assert.deepEqual([status.type, status.status, status.attempts, status.output], [SWEEP_JOB_TYPE, 'succeeded', 1, { ...NO_CHANGE, fieldsSet: 1 }]);
    // Every model with scheduled fields has its own sweeps, and its own lock row.
    for (const model of SCHEDULED_MODELS) await sweeps.next((t) => t.status === 'succeeded' && t.id.startsWith(`${SWEEP_JOB_TYPE}:${model}@30:`));
    const listed = await server.request('GET', `/job_statuses?filter=type:eq:${SWEEP_JOB_TYPE}&limit=200`);
    assert.equal(listed.status, 200);
    assert.ok(listed.body.data.length >= SCHEDULED_MODELS.length);
    const locks = await server.app.db.raw('SELECT name FROM mfx_schedule_locks ORDER BY name');
    assert.deepEqual(
      locks.map((r) => r.name),
      SCHEDULED_MODELS.map((m) => `${SWEEP_JOB_TYPE}:${m}@30`),
    );
  });
});

eachBackend(
  'scheduled sweeps with dispatch: false',
  (backend) => {
    const server = useServer(backend, {
      fixture: 'scheduled',
      setup: (a) => void a.jobs({ queue: memoryQueue(), handlers: {}, statusRoutes: false }).scheduler({ interval: '1h', dispatch: false }),
    });

    it('sweeps in this process as without a queue, and needs no lock table', async () => {
      const started = await server.logLine((l) => l.message === 'scheduled transitions runner started');
      assert.equal(started.fields.mode, 'local');
      assert.deepEqual(await server.app.db.raw("SELECT name FROM sqlite_master WHERE name = 'mfx_schedule_locks'"), []);
    });
  },
  [sqlite],
);

describe('the sweep job type', () => {
  it('is the runtime own: app.jobs refuses a handler for it', () => {
    const app = createServer({ logger: silentLogger, handleSignals: false });
    assert.throws(
      () => app.jobs({ queue: memoryQueue(), handlers: { [SWEEP_JOB_TYPE]: async () => ({}) } }),
      new ConfigError(`the job type ${SWEEP_JOB_TYPE} is the runtime's own (scheduled sweeps dispatched through the queue): name your job type otherwise`),
    );
  });
});

describe('scheduled sweeps through the job queue, two replicas on one PostgreSQL database', { skip: postgres.skip }, () => {
  interface Replica {
    name: string;
    app: App;
    url: string;
  }

  /** A replica: its own server and connection pool on the shared schema, the SQL queue in it, the runner dispatching every 40 ms. */
  async function replica(name: string, schemaUrl: string, seen: { applied: Recorder<{ replica: string; id: string }>; jobs: Recorder<{ replica: string; t: JobTransition }> }): Promise<Replica> {
    const app = createServer({ port: 0, host: '127.0.0.1', logger: silentLogger, handleSignals: false });
    app.register(await loadFixture('scheduled'));
    const adapter = openPostgres({ writeUrl: schemaUrl }, app.registry);
    app.setDB(adapter);
    app.scheduler({ interval: '40ms', batchSize: 2, onSetField: (_model, id) => seen.applied.push({ replica: name, id }) });
    app.jobs({ queue: sqlQueue(adapter), handlers: {}, pollMs: 10, onTransition: (t) => t.type === SWEEP_JOB_TYPE && seen.jobs.push({ replica: name, t }) });
    const { port } = await app.start();
    return { name, app, url: `http://127.0.0.1:${port}${app.config.pathPrefix}` };
  }

  it('each due row transitions once, and each interval of each model is swept on one replica', { timeout: 120_000 }, async () => {
    const { url: schemaUrl, drop } = await freshSchema();
    const seen = { applied: new Recorder<{ replica: string; id: string }>(), jobs: new Recorder<{ replica: string; t: JobTransition }>() };
    const replicas: Replica[] = [];
    try {
      // One after the other: the second finds the first's migration done.
      replicas.push(await replica('a', schemaUrl, seen));
      replicas.push(await replica('b', schemaUrl, seen));
      const ids: string[] = [];
      for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) {
        const target = replicas[n % 2]!;
        const created = await request(`${target.url}/sched_notices`, 'POST', { body: { title: `due ${n}`, publishAt: past(n) } });
        assert.equal(created.status, 201, created.text);
        ids.push(created.body.data.id);
      }
      for (const id of ids) await seen.applied.next((a) => a.id === id);
      // Sweeps of both replicas' enqueueing ran; the stop waits for those under way.
      for (const r of replicas) await r.app.stop();

      for (const id of ids) assert.equal(seen.applied.seen.filter((a) => a.id === id).length, 1, `${id} transitioned once`);
      const db = openPostgres({ writeUrl: schemaUrl }, replicas[0]!.app.registry);
      try {
        for (const id of ids) {
          const history = await db.raw('SELECT operation, actor_id FROM notice_history WHERE record_id = ? ORDER BY version', [id]);
          assert.deepEqual(history.map((h) => [h.operation, h.actor_id]), [['create', null], ['update', null]], id);
          assert.equal((await db.raw('SELECT state FROM sched_notices WHERE id = ?', [id]))[0]?.state, 'live');
        }
        // One enqueue and one run per sweep job (model and interval), across both replicas.
        const perJob = new Map<string, { enqueued: string[]; running: string[] }>();
        for (const { replica: who, t } of seen.jobs.seen) {
          const entry = perJob.get(t.id) ?? { enqueued: [], running: [] };
          if (t.status === 'enqueued') entry.enqueued.push(who);
          if (t.status === 'running') entry.running.push(who);
          perJob.set(t.id, entry);
        }
        assert.ok(perJob.size >= SCHEDULED_MODELS.length);
        for (const [id, { enqueued, running }] of perJob) {
          assert.equal(enqueued.length, 1, `${id} enqueued by ${enqueued.join(', ')}`);
          assert.ok(running.length <= 1, `${id} ran on ${running.join(', ')}`);
        }
        // The status rows agree: one row per sweep job, each done or still waiting, and the Notice sweeps set the eight rows between them.
        const rows = await db.raw('SELECT id, status, output FROM job_statuses WHERE type = ?', [SWEEP_JOB_TYPE]);
        assert.deepEqual(rows.map((r) => String(r.id)).sort(), [...perJob.keys()].sort());
        for (const row of rows) assert.ok(['enqueued', 'succeeded'].includes(String(row.status)), JSON.stringify(row));
        const noticeSweeps = rows.filter((r) => String(r.id).startsWith(`${SWEEP_JOB_TYPE}:Notice@40:`) && r.output !== null);
        const fieldsSet = noticeSweeps.reduce((n, r) => n + ((typeof r.output === 'string' ? JSON.parse(r.output) : r.output) as SweepReport).fieldsSet, 0);
        assert.equal(fieldsSet, ids.length);
      } finally {
        await db.close();
      }
    } finally {
      for (const r of replicas) await r.app.stop();
      await drop();
    }
  });

  it("an interval is enqueued once: a replica whose tick comes after another's sweep of that interval finished finds it taken", { timeout: 60_000 }, async () => {
    const { url: schemaUrl, drop } = await freshSchema();
    const jobs = new Recorder<{ replica: string; t: JobTransition }>();
    const apps: App[] = [];
    try {
      for (const name of ['a', 'b']) {
        const app = createServer({ port: 0, host: '127.0.0.1', logger: silentLogger, handleSignals: false });
        app.register(await loadFixture('scheduled'));
        const adapter = openPostgres({ writeUrl: schemaUrl }, app.registry);
        app.setDB(adapter);
        // No interval of its own: the test ticks each replica's dispatcher, on a clock pinned to one interval.
        app.scheduler(false);
        app.jobs({ queue: sqlQueue(adapter), handlers: {}, pollMs: 10, onTransition: (t) => t.type === SWEEP_JOB_TYPE && jobs.push({ replica: name, t }) });
        await app.start();
        apps.push(app);
      }
      const at = Date.now();
      const tick = (app: App, now: number) =>
        sweepDispatcher({ models: ['Notice'], intervalMs: 60_000, lock: sqlScheduleLock(app.db), enqueueOnSlot: (...args) => jobsOf(app).enqueueOnSlot(...args), log: silentLogger, now: () => now })();
      const slot = Math.floor(at / 60_000);
      const [a, b] = apps as [App, App];
      await tick(a, at);
      const done = await jobs.next(({ t }) => t.status === 'succeeded');
      assert.equal(done.t.id, `${SWEEP_JOB_TYPE}:Notice@60000:${slot}`);
      await tick(b, at);
      await tick(a, at);
      assert.deepEqual(jobs.seen.filter(({ t }) => t.status === 'enqueued').map(({ replica, t }) => [replica, t.id]), [['a', done.t.id]]);
      // The next interval is the first asker's, b this time.
      await tick(b, at + 60_000);
      await tick(a, at + 60_000);
      const enqueued = jobs.seen.filter(({ t }) => t.status === 'enqueued').map(({ replica, t }) => [replica, t.id]);
      assert.deepEqual(enqueued, [['a', done.t.id], ['b', `${SWEEP_JOB_TYPE}:Notice@60000:${slot + 1}`]]);
      await jobs.next(({ t }) => t.status === 'succeeded' && t.id.endsWith(`:${slot + 1}`));
    } finally {
      for (const app of apps) await app.stop();
      await drop();
    }
  });

  it('two local sweeps at once on two replicas split the due rows: each row transitions once', { timeout: 60_000 }, async () => {
    const { url: schemaUrl, drop } = await freshSchema();
    const apps: App[] = [];
    try {
      for (const _ of [1, 2]) {
        const app = createServer({ port: 0, host: '127.0.0.1', logger: silentLogger, handleSignals: false });
        app.register(await loadFixture('scheduled'));
        app.setDB(openPostgres({ writeUrl: schemaUrl }, app.registry));
        // Options for sweepScheduled, no interval: the test starts both sweeps.
        app.scheduler({ batchSize: 2 }).scheduler(false);
        await app.start();
        apps.push(app);
      }
      const [a, b] = apps as [App, App];
      const ids: string[] = [];
      for (const n of [1, 2, 3, 4, 5, 6, 7]) {
        const created = await request(`http://127.0.0.1:${a.port}${a.config.pathPrefix}/sched_notices`, 'POST', { body: { title: `raced ${n}`, publishAt: past(n) } });
        assert.equal(created.status, 201, created.text);
        ids.push(created.body.data.id);
      }
      const reports = await Promise.all([a.sweepScheduled(), b.sweepScheduled()]);
      assert.equal(reports[0].fieldsSet + reports[1].fieldsSet, ids.length, JSON.stringify(reports));
      for (const id of ids) {
        assert.equal((await a.db.raw('SELECT state FROM sched_notices WHERE id = ?', [id]))[0]?.state, 'live');
        assert.deepEqual((await a.db.raw('SELECT operation FROM notice_history WHERE record_id = ? ORDER BY version', [id])).map((h) => h.operation), ['create', 'update'], id);
      }
    } finally {
      for (const app of apps) await app.stop();
      await drop();
    }
  });
});
