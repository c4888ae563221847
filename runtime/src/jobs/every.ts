/**
 * The interval scheduler (spec "Job queue": "an interval scheduler enqueues a
 * job every fixed Every duration; it is not durable and uses intervals, not
 * cron expressions"). Each replica keeps its own timers; with `lock`, the
 * replicas share a row per schedule in `mfx_schedule_locks` and only the one
 * that moves it to the current interval enqueues, so one job is enqueued per
 * interval however many replicas run.
 */
import type { Adapter } from '../db/adapter.js';
import type { Logger } from '../log/logger.js';
import type { TableSpec } from '../sql/schema.js';
import type { NewJob } from './types.js';

export const SCHEDULE_LOCK_TABLE = 'mfx_schedule_locks';

export const scheduleLockTable: TableSpec = {
  name: SCHEDULE_LOCK_TABLE,
  columns: [
    { name: 'name', type: 'string', nullable: false, primaryKey: true },
    { name: 'slot', type: 'bigint', nullable: false },
  ],
  indexes: [],
};

export interface EveryOptions {
  /** One replica enqueues per interval, through a row in the app's database (`mfx_schedule_locks`). Default false. */
  lock?: boolean;
  /** Names the schedule's lock row; default the job type and the interval (`report.build@300000`). */
  name?: string;
}

export interface Schedule {
  intervalMs: number;
  job: Pick<NewJob, 'type' | 'payload' | 'maxRetry' | 'groupKey'>;
  options: EveryOptions;
}

/**
 * True when this replica takes interval `slot` of the schedule: the row moved
 * to it here (an insert or an update from an earlier slot), not elsewhere.
 */
export async function takeSlot(db: Adapter, name: string, slot: number): Promise<boolean> {
  const rows = await db.raw(
    `INSERT INTO ${SCHEDULE_LOCK_TABLE} (name, slot) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET slot = excluded.slot WHERE ${SCHEDULE_LOCK_TABLE}.slot < excluded.slot RETURNING name`,
    [name, slot],
  );
  return rows.length > 0;
}

/** Runs the schedules' timers until stopped. */
export class Scheduler {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly schedules: readonly Schedule[],
    private readonly enqueue: (job: NewJob) => Promise<string>,
    private readonly db: () => Adapter,
    private readonly log: Logger,
  ) {}

  start(): void {
    for (const schedule of this.schedules) {
      const name = schedule.options.name ?? `${schedule.job.type}@${schedule.intervalMs}`;
      const fire = async () => {
        try {
          if (schedule.options.lock && !(await takeSlot(this.db(), name, Math.floor(Date.now() / schedule.intervalMs)))) return;
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
