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
import type { NewJob } from './types.js';

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

/** Runs the schedules' timers until stopped. */
export class Scheduler {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly schedules: readonly LockedSchedule[],
    private readonly enqueue: (job: NewJob) => Promise<string>,
    private readonly log: Logger,
  ) {}

  start(): void {
    for (const schedule of this.schedules) {
      const name = scheduleName(schedule);
      const fire = async () => {
        try {
          if (schedule.lock && !(await schedule.lock.take(name, slotOf(schedule.intervalMs)))) return;
          await this.enqueue({ ...schedule.job });
        } catch (error) {
          this.log.error({ err: String(error), schedule: name }, 'the interval scheduler could not enqueue its job');
        }
      };
      const timer = setInterval(() => void fire(), schedule.intervalMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }
}
