/**
 * The job queue contract (spec "Job queue (background work)", DESIGN "Jobs
 * and scheduling"). Every queue, in-process, SQL or Redis Streams,
 * implements `JobQueue`; the worker (`jobs/worker.ts`) holds the rules that
 * are the same for all of them (retries and backoff, dead jobs, job types
 * without a handler, statuses, events), so a queue only stores, hands out
 * and forgets jobs. One contract suite (test/support/job-queue-contract.ts)
 * runs against every adapter.
 */
import type { Executor } from '../db/adapter.js';

/** What `app.enqueue` and `queue.enqueue` take. */
export interface NewJob {
  /** Selects the handler. */
  type: string;
  payload?: unknown;
  actorId?: string | null;
  tenantId?: string | null;
  /** Retries after the first failed run before the job is dead; default 3. */
  maxRetry?: number;
  /** Not handed out before this time. */
  notBefore?: Date | string | null;
  /** At most one running job per key. */
  groupKey?: string | null;
  traceId?: string | null;
  /** Kept when given (a UUID is made otherwise); enqueueing an id twice is refused. */
  id?: string;
}

/** A job as the queue holds it. */
export interface QueuedJob {
  id: string;
  type: string;
  payload: unknown;
  actorId: string | null;
  tenantId: string | null;
  maxRetry: number;
  notBefore: Date | null;
  groupKey: string | null;
  traceId: string | null;
  /** Handler runs started, this one included once claimed. */
  attempts: number;
  /** Times the job came back because no handler knew its type (those runs are not attempts). */
  requeues: number;
}

/** A job a worker holds: its lease must be renewed, and ended by ack or nack, with this token. */
export interface ClaimedJob extends QueuedJob {
  /** Identifies this claim: once the lease expired and another worker claimed the job, the old token is refused. */
  token: string;
}

export interface ClaimOptions {
  /** At most this many jobs. */
  limit: number;
  /** How long the claim holds without a renewal (ms). */
  leaseMs: number;
}

export interface NackOptions {
  /** Handed out again no earlier than this many ms from now. */
  delayMs?: number;
  /** The run does not count as an attempt (no handler for its type): attempts go back down, requeues up. */
  refund?: boolean;
}

/** Why a cancel was refused: the job runs, or the queue has no such job (never enqueued, or already finished). */
export class JobCancelError extends Error {
  constructor(
    readonly jobId: string,
    readonly reason: 'running' | 'unknown',
  ) {
    super(
      reason === 'running'
        ? `job ${jobId} is running and cannot be cancelled: a running job must finish or fail first`
        : `no enqueued job has id ${jobId} (it was never enqueued, or it has finished)`,
    );
    this.name = 'JobCancelError';
  }
}

/** An id enqueued twice (caller-supplied ids are kept, so they must be unique). */
export class DuplicateJobError extends Error {
  constructor(readonly jobId: string) {
    super(`a job with id ${jobId} is already in the queue; give each job its own id or leave id out`);
    this.name = 'DuplicateJobError';
  }
}

export interface JobQueue {
  /** Names the queue in logs (`memory`, `sql`, `redis`). */
  readonly kind: string;
  /** True when `enqueue` joins a transaction passed as `tx` (the SQL queue): the job commits or rolls back with it. */
  readonly transactional: boolean;
  /** Stores the jobs (in order) and resolves with their ids; a transactional queue writes through `tx` when given. */
  enqueue(jobs: readonly NewJob[], tx?: Executor): Promise<string[]>;
  /**
   * Hands out due jobs (notBefore passed), oldest first, at most one per
   * groupKey and none of a group that has a running job; also jobs whose
   * lease expired (their worker died). Each claim counts an attempt.
   */
  claim(options: ClaimOptions): Promise<ClaimedJob[]>;
  /** Extends a claim's lease; false when the claim is no longer this token's (expired and claimed again, or finished). */
  renew(job: ClaimedJob, leaseMs: number): Promise<boolean>;
  /** The job is finished (done, dead or re-routed): forgotten. False when the claim was no longer this token's. */
  ack(job: ClaimedJob): Promise<boolean>;
  /** Puts a claimed job back to be handed out again after `delayMs`. False when the claim was no longer this token's. */
  nack(job: ClaimedJob, options?: NackOptions): Promise<boolean>;
  /** Removes an enqueued job; a running one throws JobCancelError('running'), an unknown id JobCancelError('unknown'). */
  cancel(id: string): Promise<void>;
  /** Releases what the queue holds (connections, timers); jobs stay stored where the store is durable. */
  close(): Promise<void>;
}

/** A job type's segment: letters, digits, '_' and '-' (as in event patterns: events/delivery.ts). */
const TYPE_SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * What is wrong with a job type, or null when it is one: dotted segments of
 * ASCII letters, digits, '_' or '-' (`email.send`, `report-build`). A job
 * type names the events `job.<type>.completed` and `job.<type>.failed`,
 * which subscribers and brokers match by pattern: an empty segment, a
 * wildcard (`*`, `>`, `#`), whitespace or any other character would make
 * those events unmatchable or match what they should not.
 *
 * @example
 * jobTypeProblem('email.send') // null
 * jobTypeProblem('email..send') // 'the job type "email..send" has an empty segment: ...'
 */
export function jobTypeProblem(type: unknown): string | null {
  if (typeof type !== 'string' || type === '') return 'a job needs a type (a non-empty string that selects its handler)';
  const rule = `a job type is dotted segments of letters, digits, '_' or '-', such as "email.send" (it names the events job.<type>.completed and job.<type>.failed, which subscribers match by pattern)`;
  if (type.split('.').some((segment) => segment === '')) return `the job type ${JSON.stringify(type)} has an empty segment: ${rule}`;
  const bad = [...type].find((c) => c !== '.' && !TYPE_SEGMENT.test(c));
  if (bad !== undefined) return `the job type ${JSON.stringify(type)} has the character ${JSON.stringify(bad)}: ${rule}`;
  return null;
}

/** The dates and defaults every adapter applies alike to a new job; a bad type (jobTypeProblem) is a TypeError. */
export function normaliseJob(job: NewJob, makeId: () => string): QueuedJob {
  const problem = jobTypeProblem(job?.type);
  if (problem) throw new TypeError(problem);
  const maxRetry = job.maxRetry ?? DEFAULT_MAX_RETRY;
  if (!Number.isInteger(maxRetry) || maxRetry < 0) throw new TypeError(`maxRetry of a ${job.type} job must be a whole number ≥ 0, not ${String(job.maxRetry)}`);
  const notBefore = job.notBefore == null ? null : new Date(job.notBefore);
  if (notBefore && Number.isNaN(notBefore.getTime())) throw new TypeError(`notBefore of a ${job.type} job is not a date: ${String(job.notBefore)}`);
  return {
    id: job.id ?? makeId(),
    type: job.type,
    payload: job.payload ?? null,
    actorId: job.actorId ?? null,
    tenantId: job.tenantId ?? null,
    maxRetry,
    notBefore,
    groupKey: job.groupKey ?? null,
    traceId: job.traceId ?? null,
    attempts: 0,
    requeues: 0,
  };
}

export const DEFAULT_MAX_RETRY = 3;
