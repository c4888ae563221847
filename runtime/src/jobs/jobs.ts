/**
 * What `app.jobs(...)` sets up (DESIGN "Jobs and scheduling"): the worker on
 * its queue, the JobStatus model with its visibility rule, the queue's table
 * for the migration, `enqueue`/`cancel` for the app, and the interval
 * scheduler's timers. The App holds one and starts and stops it with the
 * server.
 */
import type { Adapter, Executor } from '../db/adapter.js';
import { ApiError, ConfigError } from '../errors/api-error.js';
import type { Logger } from '../log/logger.js';
import type { Context } from '../pipeline/context.js';
import type { Hook } from '../pipeline/types.js';
import type { KeyProvider } from '../security/encryption/keys.js';
import type { TableSpec } from '../sql/schema.js';
import { SWEEP_JOB_TYPE } from '../scheduler/dispatch.js';
import { timeOrderedUuid } from '../util/time-ordered-id.js';
import type { ScheduleLock } from './schedule-lock.js';
import { type RetentionOptions, resolveRetention, StatusPruner } from './retention.js';
import { JOB_STATUS_MODEL, StatusSink, transitionOf } from './status.js';
import { JobCancelError, type JobQueue, jobTypeProblem, type NewJob, normaliseJob, type QueuedJob } from './types.js';
import { Worker, type WorkerOptions } from './worker.js';

export interface JobsOptions extends WorkerOptions, RetentionOptions {
  /** Register the JobStatus model and write status rows; default true. */
  statusRoutes?: boolean;
  /** The role that sees every status row; default `admin`. */
  adminRole?: string;
}

/** A queue that declares its tables and takes the app's key provider (the SQL queue). */
interface QueueWithTables extends JobQueue {
  readonly tables?: readonly TableSpec[];
  /** The database a SQL queue's jobs are rows of. */
  database?(): Adapter;
  useKeyProvider?(provider: KeyProvider | undefined): void;
}

export class Jobs {
  readonly worker: Worker;
  /** Deletes finished jobs' status rows past their retention while the worker runs; null without status rows or with `statusRetention: false`. */
  readonly pruner: StatusPruner | null;
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
    const retention = resolveRetention(options);
    this.pruner = this.status && retention ? new StatusPruner(this.status, retention, log) : null;
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
    if (ctx) {
      // In a request a bad type is the code's mistake, not the client's: 500 INVALID_JOB_TYPE, the reason in the log.
      const problem = jobTypeProblem(input?.type);
      if (problem) {
        ctx.log.error({ requestId: ctx.requestId, model: ctx.model?.name, op: ctx.op, type: input?.type }, `a job was enqueued with a bad type, so the request fails: ${problem}`);
        throw new ApiError('INVALID_JOB_TYPE');
      }
    }
    const job: NewJob = {
      ...input,
      actorId: input.actorId !== undefined ? input.actorId : (ctx?.identity?.userId ?? null),
      tenantId: input.tenantId !== undefined ? input.tenantId : (ctx?.identity?.tenantId ?? null),
      traceId: input.traceId ?? ctx?.traceId ?? null,
    };
    // The id is made here so that the status row and the queue agree, and a deferred enqueue can answer at once.
    // Time-ordered, so the job and status rows' primary keys grow at their end (see util/time-ordered-id.ts).
    const queued = normaliseJob(job, timeOrderedUuid);
    const tx = ctx?.tx ?? undefined;
    if (tx && this.queue.transactional) {
      await this.write(queued, tx);
      ctx!.afterCommit(() => this.announce(queued));
    } else if (tx) {
      // The queue cannot join the transaction: the job is enqueued once the write is committed, and never on rollback.
      // A failure then cannot undo the write: the request answers 500 JOB_ENQUEUE_FAILED rather than a success whose
      // job does not exist (docs/decisions.md, "A job a non-transactional queue fails to take after the commit").
      ctx!.afterCommit(async () => {
        try {
          await this.write(queued);
        } catch (error) {
          this.log.error({ err: String(error), jobId: queued.id, type: queued.type, queue: this.queue.kind }, 'enqueueing a job after the commit failed: the write stands, the job was not enqueued');
          throw new ApiError('JOB_ENQUEUE_FAILED');
        }
        this.announce(queued);
      });
    } else {
      await this.write(queued);
      this.announce(queued);
    }
    return queued.id;
  }

  /**
   * Takes interval `slot` of schedule `name` in `lock` and, when this
   * replica took it, enqueues `job`; resolves with the job's id, or null
   * when another replica had the interval. When the lock and a
   * transactional queue keep their rows in one database, both happen in one
   * transaction: a crash or failure between them leaves neither, so the
   * interval stays free for the next tick and is never taken without its
   * job. Otherwise (a Redis lock, a Redis queue) one after the other: a
   * failure between them loses that interval's job (logged).
   *
   * @example
   * await jobs.enqueueOnSlot(lock, 'report.build@300000', slotOf(300000), { type: 'report.build' });
   */
  async enqueueOnSlot(lock: ScheduleLock | null, name: string, slot: number, job: NewJob): Promise<string | null> {
    if (!lock) return this.enqueue(job);
    const db = lock.database?.();
    if (db && this.queue.transactional && this.queue.database?.() === db) {
      const queued = normaliseJob(job, timeOrderedUuid);
      const taken = await db.transaction(async (tx) => {
        if (!(await lock.take(name, slot, tx))) return false;
        await this.write(queued, tx);
        return true;
      });
      if (!taken) return null;
      this.announce(queued);
      return queued.id;
    }
    if (!(await lock.take(name, slot))) return null;
    return this.enqueue(job);
  }

  /** Writes a job's status row, then the job; through `tx` when given (a transactional queue joins it). */
  private async write(queued: QueuedJob, tx?: Executor): Promise<void> {
    if (!this.status) return void (await this.queue.enqueue([queued], tx));
    if (!tx && this.queue.transactional) return this.db().transaction((own) => this.write(queued, own));
    // The status row first: a worker may claim the job the moment it is in the queue, and its `running` must come after.
    await this.status.enqueued(queued, tx);
    try {
      await this.queue.enqueue([queued], tx);
    } catch (error) {
      // Without a transaction to roll it back, the row goes by hand (best effort).
      if (!tx) await this.status.forget(queued.id).catch(() => {});
      throw error;
    }
  }

  /** Once the job is in the queue for good (committed): reported, and the worker asked to claim. */
  private announce(queued: QueuedJob): void {
    this.options.onTransition?.(transitionOf(queued, 'enqueued'));
    this.worker.wake();
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
    const problem = jobTypeProblem(type);
    if (problem) throw new ConfigError(`app.jobs() handlers: ${problem}`);
    if (typeof handler !== 'function') throw new ConfigError(`the handler of job type ${type} must be a function (job, ctx) => ({ url?, output? })`);
  }
  if (options.dlqType !== undefined) {
    const problem = jobTypeProblem(options.dlqType);
    if (problem) throw new ConfigError(`app.jobs() dlqType: ${problem}`);
  }
}

export { JobCancelError };
