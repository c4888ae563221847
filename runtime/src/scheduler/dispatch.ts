/**
 * Scheduled sweeps through the job queue (spec "Record lifecycle": "with
 * several replicas run the runner in one, or dispatch sweeps through the job
 * queue"). With `app.jobs` configured, the runner's interval tick does not
 * sweep: for each model with scheduled fields it takes the current interval
 * in an interval lock (jobs/schedule-lock.ts) and, when this replica took it,
 * enqueues one sweep job with an id made of the model and the interval. The
 * worker that claims the job, on any replica, sweeps that model.
 */
import type { Logger } from '../log/logger.js';
import { type EnqueueOnSlot, intervalJob, type LockedSchedule, scheduleName, slotOf } from '../jobs/every.js';
import type { ScheduleLock } from '../jobs/schedule-lock.js';
import { DuplicateJobError } from '../jobs/types.js';
import type { JobHandler } from '../jobs/worker.js';
import type { SweepReport } from './runner.js';

/** The job type of a scheduled sweep; its payload is `{ model }`. Reserved: an app cannot give it a handler. */
export const SWEEP_JOB_TYPE = 'mfx.scheduled.sweep';

export interface SweepDispatch {
  /** The models with scheduled fields, by name. */
  models: readonly string[];
  intervalMs: number;
  lock: ScheduleLock;
  /** Takes the interval and enqueues (Jobs.enqueueOnSlot: in one transaction when the lock and the queue share a database). */
  enqueueOnSlot: EnqueueOnSlot;
  log: Logger;
  /** The clock the interval is read from; default Date.now (tests pin it to one interval). */
  now?: () => number;
}

/** The schedule of one model's sweeps: its lock name is `mfx.scheduled.sweep:<Model>@<interval ms>`. */
export function sweepSchedule(model: string, intervalMs: number, lock: ScheduleLock): LockedSchedule {
  return { intervalMs, job: { type: SWEEP_JOB_TYPE, payload: { model } }, options: { name: `${SWEEP_JOB_TYPE}:${model}@${intervalMs}` }, lock };
}

/**
 * The tick of the runner in dispatch mode: for each model, the replica that
 * takes the current interval enqueues its sweep, id `<lock name>:<slot>`.
 * The job runs once (`maxRetry: 0`: the next interval sweeps again) and in
 * the model's group, so a sweep that outlasts its interval delays the next
 * rather than overlapping it.
 *
 * @example
 * const tick = sweepDispatcher({ models: ['Post'], intervalMs: 60000, lock, enqueueOnSlot: (...args) => jobs.enqueueOnSlot(...args), log });
 * await tick(); // enqueues mfx.scheduled.sweep:Post@60000:<slot> on one replica
 */
export function sweepDispatcher(dispatch: SweepDispatch): () => Promise<void> {
  const schedules = dispatch.models.map((model) => sweepSchedule(model, dispatch.intervalMs, dispatch.lock));
  return async () => {
    const slot = slotOf(dispatch.intervalMs, (dispatch.now ?? Date.now)());
    for (const schedule of schedules) {
      const name = scheduleName(schedule);
      try {
        await dispatch.enqueueOnSlot(dispatch.lock, name, slot, { ...intervalJob(schedule, name, slot), maxRetry: 0, groupKey: name });
      } catch (error) {
        // The same id still queued: another replica enqueued this interval (a lock that lost its state, say).
        if (error instanceof DuplicateJobError) continue;
        dispatch.log.error({ err: String((error as Error)?.message ?? error), schedule: name, slot }, 'enqueueing a scheduled sweep failed; the next interval sweeps again');
      }
    }
  };
}

/**
 * The handler of sweep jobs: sweeps the model named in the payload and
 * keeps what it did as the job's output (`job_statuses.output`).
 */
export function sweepHandler(sweep: (model: string) => Promise<SweepReport>): JobHandler {
  return async (job) => {
    const model = (job.payload as { model?: unknown } | null)?.model;
    if (typeof model !== 'string') throw new Error(`a ${SWEEP_JOB_TYPE} job needs the payload { model }, got ${JSON.stringify(job.payload)}`);
    return { output: await sweep(model) };
  };
}
