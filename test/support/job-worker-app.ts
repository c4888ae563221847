// The app of the killed-worker test (test/jobs/killed-worker.test.ts), the
// same in the worker process the test kills (`mfx serve --app` this file:
// the default export) and in the worker that takes over: a Tag create
// enqueues a `work` job in its request (a name starting with `last` allows
// no retry: maxRetry 0), and the handler writes what it did to `job_runs`
// (one row when it starts, one when it finishes), so the test counts side
// effects in the database rather than trusting either worker's word.
import { randomUUID } from 'node:crypto';
import { redisQueue } from '@mfx/jobs-redis';
import { type Adapter, type App, type JobQueue, type JobTransition, sqlQueue, type TableSpec, transaction } from '@mfx/runtime';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export type QueueKind = 'sql' | 'redis';

/** One row per step of a handler run: `started`, then `finished` unless the process died first. */
export const JOB_RUNS: TableSpec = {
  name: 'job_runs',
  columns: [
    { name: 'id', type: 'string', nullable: false, primaryKey: true },
    { name: 'job_id', type: 'string', nullable: false },
    { name: 'attempt', type: 'integer', nullable: false },
    { name: 'pid', type: 'integer', nullable: false },
    { name: 'step', type: 'string', nullable: false },
  ],
  indexes: [],
};

export interface WorkerAppOptions {
  queue: QueueKind;
  /** The Redis key prefix both workers share (redis only). */
  redisPrefix?: string;
  leaseMs: number;
  /** The handler never finishes once started (the worker about to be killed). */
  hold: boolean;
  onStarted?: (jobId: string, attempt: number) => void;
  onTransition?: (transition: JobTransition) => void;
}

export function workerQueue(adapter: Adapter, options: Pick<WorkerAppOptions, 'queue' | 'redisPrefix'>): JobQueue {
  return options.queue === 'sql' ? sqlQueue(adapter) : redisQueue({ url: REDIS_URL, prefix: options.redisPrefix });
}

/** Sets up jobs on `app` (before it starts): the queue, the `work` handler (two at once), and the Tag create that enqueues `tag-<name>`. */
export function workerApp(app: App, adapter: Adapter, options: WorkerAppOptions): void {
  app.declareTable(JOB_RUNS);
  const record = (jobId: string, attempt: number, step: 'started' | 'finished') =>
    adapter.raw('INSERT INTO job_runs (id, job_id, attempt, pid, step) VALUES (?, ?, ?, ?, ?)', [randomUUID(), jobId, attempt, process.pid, step]);
  app.jobs({
    queue: workerQueue(adapter, options),
    concurrency: 2,
    leaseMs: options.leaseMs,
    pollMs: 10,
    handlers: {
      work: async (job, ctx) => {
        await record(job.id, ctx.attempt, 'started');
        options.onStarted?.(job.id, ctx.attempt);
        // Held until SIGKILL ends the process: no finish, no ack, no nack, no more lease renewals.
        if (options.hold) await new Promise<never>(() => {});
        await record(job.id, ctx.attempt, 'finished');
        return { output: { attempt: ctx.attempt, pid: process.pid } };
      },
    },
    onTransition: options.onTransition,
  });
  app.use('service', transaction(), { models: ['Tag'], ops: ['create'] });
  app.use(
    'db',
    async (ctx, next) => {
      await next();
      const name = String(ctx.body?.name);
      ctx.headers['x-job-id'] = await app.enqueue({ type: 'work', id: `tag-${name}`, maxRetry: name.startsWith('last') ? 0 : undefined }, ctx);
    },
    { models: ['Tag'], ops: ['create'], position: 'after' },
  );
}

/**
 * The `--app` module of the worker process the test kills: the queue from
 * MFX_QUEUE (sql or redis, under MFX_REDIS_PREFIX), claims of MFX_LEASE_MS,
 * and handlers that print `started <job id> <attempt>` once their `started`
 * row is written, then hold until the process is killed.
 */
export default function killedWorker(app: App): void {
  workerApp(app, app.db, {
    queue: process.env.MFX_QUEUE as QueueKind,
    redisPrefix: process.env.MFX_REDIS_PREFIX,
    leaseMs: Number(process.env.MFX_LEASE_MS),
    hold: true,
    // Pipes are written synchronously on Linux: the line is out before the test can kill the process.
    onStarted: (jobId, attempt) => process.stdout.write(`started ${jobId} ${attempt}\n`),
  });
}
