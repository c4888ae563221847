/**
 * The worker (spec "Job status" transitions, "Job events"): claims due jobs
 * from its queue up to `concurrency` at once, runs each type's handler,
 * renews the claim while it runs, and applies the rules every queue shares:
 * success is `succeeded`; a failure with attempts left is `failed` and the
 * job comes back after an exponential backoff; a failure on the last attempt
 * is `dead` (optionally re-routed as a `dlqType` job); a job whose type has
 * no handler here goes back for another worker without spending an attempt.
 * Each transition is written to the status sink and, when terminal,
 * published on the bus.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { EventBus, MfxEvent } from '../events/types.js';
import type { Logger } from '../log/logger.js';
import { type JobState, type JobTransition, type StatusSink, transitionOf } from './status.js';
import type { ClaimedJob, JobQueue, QueuedJob } from './types.js';
import { isoNow } from '../util/iso-time.js';

/** What a handler returns: where the result is, and any output to keep on the status row. */
export interface JobResult {
  url?: string;
  output?: unknown;
}

/** What a handler receives beside the job. */
export interface JobContext {
  /** The trace id of the request that enqueued the job (or a fresh one). */
  traceId: string;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
  /** The app's logger with the job's id, type and trace id. */
  log: Logger;
  /** Aborted when the worker stops and the shutdown budget ran out. */
  signal: AbortSignal;
}

export type JobHandler = (job: QueuedJob, ctx: JobContext) => Promise<JobResult | void> | JobResult | void;

export interface BackoffOptions {
  /** First retry delay in ms; default 1000. Doubled per retry. */
  baseMs?: number;
  /** Longest delay in ms; default 300000 (5 min). */
  capMs?: number;
}

export interface WorkerOptions {
  queue: JobQueue;
  handlers: Record<string, JobHandler>;
  /** Jobs run at once; default the number of available processors. */
  concurrency?: number;
  /** A job that dies is enqueued again under this type, with the dead job and its error as payload. */
  dlqType?: string;
  /** Where `job.<type>.completed` and `job.<type>.failed` are published on terminal transitions. */
  bus?: EventBus;
  backoff?: BackoffOptions;
  /** How long a claim holds without renewal (ms); renewed every third of it while the handler runs. Default 30000. */
  leaseMs?: number;
  /** How often an idle worker asks the queue for due jobs (ms); default 1000. An enqueue through the app wakes it at once. */
  pollMs?: number;
  /** Times a job may come back for want of a handler before it is dead; default 100. */
  maxRequeues?: number;
  /** Called after each transition is written (metrics, tests). */
  onTransition?: (transition: JobTransition) => void;
}

export const DEFAULT_BACKOFF = { baseMs: 1000, capMs: 300_000 } as const;

/**
 * The delay before retry number `retry` (1 for the first): base × 2^(retry−1), capped.
 *
 * @example
 * retryDelay(3, { baseMs: 1000, capMs: 300000 }); // 4000
 */
export function retryDelay(retry: number, backoff: Required<BackoffOptions>): number {
  return Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, retry - 1));
}

export class Worker {
  private readonly running = new Map<string, Promise<void>>();
  /** The app's handlers, and the runtime's own (scheduled sweeps) added with `handle`. */
  private readonly handlers: Record<string, JobHandler>;
  private readonly concurrency: number;
  private readonly backoff: Required<BackoffOptions>;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly maxRequeues: number;
  private timer: NodeJS.Timeout | null = null;
  private claiming: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private readonly abort = new AbortController();
  /** Claims held by this worker, released (nack) if the shutdown budget runs out. */
  private readonly held = new Map<string, ClaimedJob>();
  /** The lease renewal timer of each running job. */
  private readonly renewals = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly options: WorkerOptions,
    private readonly status: StatusSink | null,
    private readonly log: Logger,
  ) {
    this.concurrency = options.concurrency ?? availableParallelism();
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new TypeError(`concurrency must be a whole number ≥ 1, got ${String(options.concurrency)}`);
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 1000;
    this.maxRequeues = options.maxRequeues ?? 100;
    this.handlers = { ...options.handlers };
  }

  /** Adds the handler of a job type the runtime enqueues itself (the scheduled sweeps); the app's handlers stay as given. */
  handle(type: string, handler: JobHandler): void {
    this.handlers[type] = handler;
  }

  get queue(): JobQueue {
    return this.options.queue;
  }

  start(): void {
    if (!this.stopped) return;
    // Without a single handler every claim could only be handed back (for another worker), holding the job
    // away from the workers that run it for pollMs and spending its requeues: an enqueue-only app claims nothing.
    if (Object.keys(this.handlers).length === 0) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Asks the queue for due jobs now (an enqueue happened). */
  wake(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.fill();
    }, ms);
  }

  /** Claims as many jobs as there are free slots, and starts them. */
  private fill(): void {
    if (this.stopped || this.claiming) return;
    const free = this.concurrency - this.running.size;
    if (free <= 0) return;
    this.again = false;
    this.claiming = (async () => {
      let jobs: ClaimedJob[] = [];
      try {
        jobs = await this.options.queue.claim({ limit: free, leaseMs: this.leaseMs });
      } catch (error) {
        if (!this.stopped) this.log.error({ err: String(error), queue: this.options.queue.kind }, 'claiming jobs failed; trying again at the next poll');
      }
      for (const job of jobs) this.begin(job);
      this.claiming = null;
      if (this.stopped) return;
      // A full batch may mean more are due; an enqueue meanwhile too.
      if (jobs.length === free || this.again) this.schedule(0);
      else this.schedule(this.pollMs);
    })();
  }

  private begin(job: ClaimedJob): void {
    if (this.stopped) {
      // Claimed as the worker stopped, never started: not an attempt (a job with no retry left would otherwise be dead unrun).
      void this.options.queue.nack(job, { refund: true }).catch(() => {});
      return;
    }
    this.held.set(job.id, job);
    const run = this.run(job)
      .catch((error) => this.log.error({ err: String(error), jobId: job.id, type: job.type }, 'the worker failed to record a job; its claim expires and it runs again'))
      .finally(() => {
        this.held.delete(job.id);
        this.running.delete(job.id);
        if (!this.stopped) this.wake();
      });
    this.running.set(job.id, run);
  }

  private async run(job: ClaimedJob): Promise<void> {
    const { queue } = this.options;
    // The run before this claim was cut (its worker died, or a shutdown released it) and counted: none is left for this one.
    if (job.attempts > job.maxRetry + 1) return this.spent(job);
    const handler = Object.hasOwn(this.handlers, job.type) ? this.handlers[job.type] : undefined;
    if (!handler) return this.unhandled(job);
    const started = new Date();
    await this.transition(transitionOf(job, 'running', { startedAt: started, completedAt: null }));
    const traceId = job.traceId ?? randomUUID().replaceAll('-', '');
    const log = childLog(this.log, { jobId: job.id, type: job.type, traceId });
    const renewal = setInterval(() => {
      queue.renew(job, this.leaseMs).then(
        (ok) => ok || log.warn({}, 'the job lease was lost (it expired and another worker claimed the job)'),
        (error) => log.warn({ err: String(error) }, 'renewing the job lease failed'),
      );
    }, Math.max(10, Math.floor(this.leaseMs / 3)));
    this.renewals.set(job.id, renewal);
    let result: JobResult | void = undefined;
    let failure: unknown = null;
    try {
      result = await handler(job, { traceId, attempt: job.attempts, log, signal: this.abort.signal });
    } catch (error) {
      failure = error ?? new Error('the handler threw without a reason');
    } finally {
      clearInterval(renewal);
      this.renewals.delete(job.id);
    }
    if (failure === null) {
      if (!(await queue.ack(job))) return lost(log);
      await this.transition(
        transitionOf(job, 'succeeded', { resultUrl: result?.url ?? null, output: result?.output ?? null, error: null, completedAt: new Date() }),
      );
      return;
    }
    const message = errorText(failure);
    if (job.attempts <= job.maxRetry) {
      const delayMs = retryDelay(job.attempts, this.backoff);
      log.warn({ err: message, attempt: job.attempts, retryInMs: delayMs }, 'job failed; retrying');
      // The status first: once nacked, another worker may claim the job and write `running`.
      await this.transition(transitionOf(job, 'failed', { error: message }));
      if (!(await queue.nack(job, { delayMs }))) lost(log);
      return;
    }
    log.error({ err: message, attempts: job.attempts }, 'job failed on its last attempt: dead');
    await this.die(job, message);
  }

  /** A job claimed after its last run was cut: dead without running again, so it never runs more than maxRetry + 1 times. */
  private async spent(job: ClaimedJob): Promise<void> {
    const ran = job.attempts - 1;
    const message = `its last run (${ran} of ${job.maxRetry + 1}) did not finish: the worker running it died or was stopped`;
    this.log.error({ jobId: job.id, type: job.type, attempts: ran, maxRetry: job.maxRetry }, `${message}: dead`);
    await this.die({ ...job, attempts: ran }, message);
  }

  /** No handler for the type here: back to the queue for another worker, not an attempt, until requeued too often. */
  private async unhandled(job: ClaimedJob): Promise<void> {
    if (job.requeues + 1 > this.maxRequeues) {
      const message = `no worker has a handler for job type ${job.type} (requeued ${job.requeues} times)`;
      this.log.error({ jobId: job.id, type: job.type, requeues: job.requeues }, `${message}: dead`);
      await this.die({ ...job, attempts: Math.max(0, job.attempts - 1) }, message);
      return;
    }
    this.log.warn({ jobId: job.id, type: job.type, requeues: job.requeues + 1 }, 'no handler for this job type here: requeued for another worker');
    await this.options.queue.nack(job, { refund: true, delayMs: this.pollMs });
  }

  private async die(job: ClaimedJob, message: string): Promise<void> {
    if (!(await this.options.queue.ack(job))) return lost(this.log);
    if (this.options.dlqType) {
      try {
        await this.options.queue.enqueue([
          {
            type: this.options.dlqType,
            payload: { job: { id: job.id, type: job.type, payload: job.payload, attempts: job.attempts }, error: message },
            actorId: job.actorId,
            tenantId: job.tenantId,
            traceId: job.traceId,
          },
        ]);
      } catch (error) {
        this.log.error({ err: String(error), jobId: job.id, dlqType: this.options.dlqType }, 're-routing a dead job to the dead-letter type failed');
      }
    }
    await this.transition(transitionOf(job, 'dead', { error: message, completedAt: new Date() }));
  }

  /** Writes the status row, then reports and publishes; a sink or bus failure is logged, never fatal. */
  async transition(t: JobTransition): Promise<void> {
    try {
      await this.status?.write(t);
    } catch (error) {
      this.log.error({ err: String(error), jobId: t.id, status: t.status }, 'writing the job status failed');
    }
    if (this.options.bus && TERMINAL_EVENTS[t.status]) {
      try {
        await this.options.bus.publish([jobEvent(t, TERMINAL_EVENTS[t.status]!)]);
      } catch (error) {
        this.log.error({ err: String(error), jobId: t.id, status: t.status }, 'publishing the job event failed');
      }
    }
    this.options.onTransition?.(t);
  }

  /**
   * Stops claiming, waits for running handlers up to `budgetMs`, then
   * releases the claims of those still running (they are handed out again
   * at once) and aborts their signal.
   */
  async stop(budgetMs: number): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.claiming;
    let timeout: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.allSettled([...this.running.values()]).then(() => true),
      new Promise<boolean>((resolve) => (timeout = setTimeout(() => resolve(false), budgetMs))),
    ]);
    clearTimeout(timeout);
    if (!finished) {
      this.log.warn({ running: [...this.held.keys()] }, 'shutdown budget passed with jobs running: their claims are released for another worker');
      this.abort.abort();
      for (const renewal of this.renewals.values()) clearInterval(renewal);
      this.renewals.clear();
      await Promise.allSettled([...this.held.values()].map((job) => this.options.queue.nack(job)));
    }
  }
}

/** The event of a terminal transition: `succeeded` → completed, `dead` → failed (DESIGN: `failed` is only the state between retries). */
const TERMINAL_EVENTS: Partial<Record<JobState, string>> = { succeeded: 'completed', dead: 'failed' };

function jobEvent(t: JobTransition, what: string): MfxEvent {
  return {
    id: randomUUID(),
    type: `job.${t.type}.${what}`,
    model: null,
    recordId: t.id,
    data: {
      id: t.id,
      type: t.type,
      status: t.status,
      attempts: t.attempts,
      // The error stays out, as the status row's hidden `error` column stays out of events.
      ...(t.status === 'succeeded' ? { result_url: t.resultUrl ?? null, output: (t.output ?? null) as never } : {}),
    },
    tenantId: t.tenantId,
    actorId: t.actorId,
    requestId: null,
    time: isoNow(),
    headers: {},
  };
}

function lost(log: Logger): void {
  log.warn({}, 'the job claim was lost before it finished (its lease expired and another worker took it): this run is not recorded');
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
}

function childLog(log: Logger, fields: object): Logger {
  return {
    debug: (f, m) => log.debug({ ...fields, ...f }, m),
    info: (f, m) => log.info({ ...fields, ...f }, m),
    warn: (f, m) => log.warn({ ...fields, ...f }, m),
    error: (f, m) => log.error({ ...fields, ...f }, m),
  };
}
