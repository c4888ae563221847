// Background jobs (DESIGN "Jobs and scheduling"): the queue contract, the in-process and SQL queues, the worker's types and the job status record.
export { DEFAULT_MAX_RETRY, DuplicateJobError, JobCancelError, type ClaimedJob, type ClaimOptions, type JobQueue, type NackOptions, type NewJob, type QueuedJob, jobTypeProblem, normaliseJob } from './types.js';
export { memoryQueue } from './memory-queue.js';
export { ENCRYPTED_PAYLOAD_PREFIX, jobTable, type SqlJobQueue, type SqlQueueOptions, sqlQueue } from './sql-queue.js';
export { type BackoffOptions, DEFAULT_BACKOFF, type JobContext, type JobHandler, type JobResult, retryDelay, type WorkerOptions } from './worker.js';
export type { JobsOptions } from './jobs.js';
export { JOB_STATUS_MODEL, JOB_STATUS_TABLE, type JobState, type JobTransition } from './status.js';
export type { EveryOptions } from './every.js';
export { SCHEDULE_LOCK_TABLE, type ScheduleLock, scheduleLockTable, sqlScheduleLock } from './schedule-lock.js';
export { DEFAULT_STATUS_PRUNE_BATCH, DEFAULT_STATUS_PRUNE_INTERVAL_MS, DEFAULT_STATUS_RETENTION_MS, type RetentionOptions } from './retention.js';
