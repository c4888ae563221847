/**
 * What `app.jobs(...)` sets up (DESIGN "Jobs and scheduling"): the worker on
 * its queue, the JobStatus model with its visibility rule, the queue's table
 * for the migration, `enqueue`/`cancel` for the app, and the interval
 * scheduler's timers. The App holds one and starts and stops it with the
 * server.
 */
import type { Adapter, Executor } from '../db/adapter.js';
import { ConfigError } from '../errors/api-error.js';
import type { Logger } from '../log/logger.js';
import type { Context } from '../pipeline/context.js';
import type { Hook } from '../pipeline/types.js';
import type { KeyProvider } from '../security/encryption/keys.js';
import type { TableSpec } from '../sql/schema.js';
import { SWEEP_JOB_TYPE } from '../scheduler/dispatch.js';
import { JOB_STATUS_MODEL, StatusSink, transitionOf } from './status.js';
import { JobCancelError, type JobQueue, type NewJob, normaliseJob } from './types.js';
import { Worker, type WorkerOptions } from './worker.js';

export interface JobsOptions extends WorkerOptions {
  /** Register the JobStatus model and write status rows; default true. */
  statusRoutes?: boolean;
  /** The role that sees every status row; default `admin`. */
  adminRole?: string;
}

/** A queue that declares its tables and takes the app's key provider (the SQL queue). */
interface QueueWithTables extends JobQueue {
  readonly tables?: readonly TableSpec[];
  useKeyProvider?(provider: KeyProvider | undefined): void;
}

export class Jobs {
  readonly worker: Worker;
  private readonly status: StatusSink | null;

  constructor(
    readonly options: JobsOptions,
    private readonly db: () => Adapter,
    private readonly log: Logger,
  ) {
    checkOptions(options);
    const statusRoutes = options.statusRoutes ?? true;
    this.status = statusRoutes ? new StatusSink(db) : null;
    this.worker = new Worker(options, this.status, log);
  }

  get queue(): QueueWithTables {
    return this.options.queue;
  }

  get statusRoutes(): boolean {
    return this.status !== null;
  }

  /** The visibility of status rows: an authenticated caller sees their own (`actor_id`), the admin role all, an anonymous request all. */
  visibilityHook(): Hook {
    const adminRole = this.options.adminRole ?? 'admin';
    return (ctx, next) => {
      const who = ctx.identity;
      if (who && who.identityType !== 'anonymous' && !who.roles.includes(adminRole)) {
        // A caller without a user id owns no row.
        ctx.scope.push({ model: JOB_STATUS_MODEL, field: 'actor_id', value: who.userId ?? '' });
      }
      return next();
    };
  }

  /**
   * Enqueues one job. With a request context: actor, tenant and trace id
   * default to the request's; a transactional queue writes the job (and its
   * status row) in the request's transaction; another queue enqueues after
   * the commit.
   */
  async enqueue(input: NewJob, ctx?: Context): Promise<string> {
    const job: NewJob = {
      ...input,
      actorId: input.actorId !== undefined ? input.actorId : (ctx?.identity?.userId ?? null),
      tenantId: input.tenantId !== undefined ? input.tenantId : (ctx?.identity?.tenantId ?? null),
      traceId: input.traceId ?? ctx?.traceId ?? null,
    };
    // The id is made here so that the status row and the queue agree, and a deferred enqueue can answer at once.
    const queued = normaliseJob(job, () => crypto.randomUUID());
    const tx = ctx?.tx ?? undefined;
    const enqueued = transitionOf(queued, 'enqueued');
    // The status row first: a worker may claim the job the moment it is in the queue, and its `running` must come after.
    const write = async (tx?: Executor): Promise<void> => {
      if (!this.status) return void (await this.queue.enqueue([queued], tx));
      if (!tx && this.queue.transactional) return this.db().transaction((own) => write(own));
      await this.status.enqueued(queued, tx);
      try {
        await this.queue.enqueue([queued], tx);
      } catch (error) {
        // Without a transaction to roll it back, the row goes by hand (best effort).
        if (!tx) await this.status.forget(queued.id).catch(() => {});
        throw error;
      }
    };
    const announce = () => {
      this.options.onTransition?.(enqueued);
      this.worker.wake();
    };
    if (tx && this.queue.transactional) {
      await write(tx);
      ctx!.afterCommit(announce);
    } else if (tx) {
      // The queue cannot join the transaction: the job is enqueued once the write is committed, and never on rollback.
      ctx!.afterCommit(async () => {
        try {
          await write();
          announce();
        } catch (error) {
          this.log.error({ err: String(error), jobId: queued.id, type: queued.type }, 'enqueueing a job after the commit failed');
        }
      });
    } else {
      await write();
      announce();
    }
    return queued.id;
  }

  /** Cancels an enqueued job; a running one or an unknown id throws JobCancelError. */
  async cancel(id: string): Promise<void> {
    await this.queue.cancel(id);
    const row = (await this.status?.read(id)) ?? { id, type: '', actorId: null, tenantId: null, attempts: 0 };
    await this.worker.transition({ ...row, status: 'cancelled', completedAt: new Date() });
  }
}

function checkOptions(options: JobsOptions): void {
  if (!options || typeof options !== 'object') throw new ConfigError('app.jobs() needs { queue, handlers }');
  const queue = options.queue as Partial<JobQueue> | undefined;
  if (!queue || typeof queue.claim !== 'function' || typeof queue.enqueue !== 'function') {
    throw new ConfigError('app.jobs() needs a queue: memoryQueue(), sqlQueue(db) or redisQueue(...)');
  }
  if (!options.handlers || typeof options.handlers !== 'object') throw new ConfigError("app.jobs() needs handlers by job type: { 'report.build': async (job, ctx) => ({ url }) }");
  if (Object.hasOwn(options.handlers, SWEEP_JOB_TYPE)) throw new ConfigError(`the job type ${SWEEP_JOB_TYPE} is the runtime's own (scheduled sweeps dispatched through the queue): name your job type otherwise`);
  for (const [type, handler] of Object.entries(options.handlers)) {
    if (typeof handler !== 'function') throw new ConfigError(`the handler of job type ${type} must be a function (job, ctx) => ({ url?, output? })`);
  }
}

export { JobCancelError };
