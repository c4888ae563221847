/**
 * The interval scheduler (spec "Job queue": "an interval scheduler enqueues a
 * job every fixed Every duration; it is not durable and uses intervals, not
 * cron expressions"). Each replica keeps its own timers; with a lock
 * (schedule-lock.ts: a row per schedule in `mfx_schedule_locks`, or a key in
 * Redis) only the replica that moves it to the current interval enqueues, so
 * one job is enqueued per interval however many replicas run.
 */
import type { Logger } from '../log/logger.js';
import type { ScheduleLock } from './schedule-lock.js';
import { DuplicateJobError, type NewJob } from './types.js';

export interface EveryOptions {
  /**
   * One replica enqueues per interval: `true` through a row in the app's
   * database (`mfx_schedule_locks`), or a lock of your own
   * (`redisScheduleLock({ url })` from `@mfx/jobs-redis`). Default false.
   */
  lock?: boolean | ScheduleLock;
  /** Names the schedule's lock; default the job type and the interval (`report.build@300000`). */
  name?: string;
}

export interface Schedule {
  intervalMs: number;
  job: Pick<NewJob, 'type' | 'payload' | 'maxRetry' | 'groupKey'>;
  options: EveryOptions;
}

/** A schedule with its lock resolved (null: every replica enqueues). */
export interface LockedSchedule extends Schedule {
  lock: ScheduleLock | null;
}

/** The name a schedule's lock is kept under. */
export const scheduleName = (schedule: Schedule): string => schedule.options.name ?? `${schedule.job.type}@${schedule.intervalMs}`;

/** The interval `at` falls in: replicas agree on it whenever their ticks come. */
export const slotOf = (intervalMs: number, at = Date.now()): number => Math.floor(at / intervalMs);

/**
 * Takes interval `slot` of schedule `name` in `lock` (none: always) and enqueues `job` when taken; the id, or
 * null when another replica had the interval. Jobs.enqueueOnSlot: one transaction when lock and queue share a database.
 */
export type EnqueueOnSlot = (lock: ScheduleLock | null, name: string, slot: number, job: NewJob) => Promise<string | null>;

/**
 * The job of one interval of a schedule. With a lock its id is `<name>:<slot>`: the queue refuses a second
 * job for an interval (DuplicateJobError) even if a lock lost its state, and status rows tell the interval.
 */
export function intervalJob(schedule: LockedSchedule, name: string, slot: number): NewJob {
  return schedule.lock ? { ...schedule.job, id: `${name}:${slot}` } : { ...schedule.job };
}

/** Runs the schedules' timers until stopped. */
export class Scheduler {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly schedules: readonly LockedSchedule[],
    private readonly enqueueOnSlot: EnqueueOnSlot,
    private readonly log: Logger,
  ) {}

  start(): void {
    for (const schedule of this.schedules) {
      const timer = setInterval(() => void this.fire(schedule), schedule.intervalMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  /** One tick of a schedule at `now`: the replica that takes the interval enqueues its job. */
  async fire(schedule: LockedSchedule, now = Date.now()): Promise<string | null> {
    const name = scheduleName(schedule);
    const slot = slotOf(schedule.intervalMs, now);
    try {
      return await this.enqueueOnSlot(schedule.lock, name, slot, intervalJob(schedule, name, slot));
    } catch (error) {
      // The same id still queued: another replica enqueued this interval (a lock that lost its state, say).
      if (error instanceof DuplicateJobError) return null;
      this.log.error({ err: String((error as Error)?.message ?? error), schedule: name, slot }, 'the interval scheduler could not enqueue its job');
      return null;
    }
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }
}
