/**
 * Retention of job status rows: a row whose job finished (`succeeded`,
 * `dead`, `cancelled`) is deleted once its `completed_at` is older than
 * `statusRetention` (default 7 days; `false` keeps every row). Each replica
 * that runs the worker prunes every `statusPruneInterval` (default 1 min),
 * in DELETEs of at most `statusPruneBatch` rows (default 500) so no
 * statement holds many row locks (or SQLite's write lock) for long. Rows of
 * jobs still queued, running or between retries are never deleted, whatever
 * their age: the DELETE itself re-checks the state (status.ts).
 */
import { type Duration, durationMs } from '../config/readers.js';
import { ConfigError } from '../errors/api-error.js';
import type { Logger } from '../log/logger.js';
import type { StatusSink } from './status.js';

export const DEFAULT_STATUS_RETENTION_MS = 7 * 24 * 60 * 60_000;
export const DEFAULT_STATUS_PRUNE_INTERVAL_MS = 60_000;
export const DEFAULT_STATUS_PRUNE_BATCH = 500;

/** The retention options of `app.jobs(...)`. */
export interface RetentionOptions {
  /** How long a finished job's status row is kept after `completed_at`; default `168h` (7 days). `false` keeps rows forever. */
  statusRetention?: Duration | false;
  /** How often the worker's replica prunes; default `1m`. */
  statusPruneInterval?: Duration;
  /** Rows deleted per statement; default 500. */
  statusPruneBatch?: number;
}

export interface Retention {
  keepMs: number;
  intervalMs: number;
  batch: number;
}

/** The options checked, with their defaults; null when rows are kept forever. A ConfigError names the bad one. */
export function resolveRetention(options: RetentionOptions): Retention | null {
  const batch = options.statusPruneBatch ?? DEFAULT_STATUS_PRUNE_BATCH;
  if (!Number.isSafeInteger(batch) || batch < 1) throw new ConfigError(`app.jobs() statusPruneBatch must be a whole number of at least 1, got ${String(options.statusPruneBatch)}`);
  const intervalMs = durationMs(options.statusPruneInterval, DEFAULT_STATUS_PRUNE_INTERVAL_MS, 'app.jobs() statusPruneInterval');
  if (intervalMs < 1) throw new ConfigError('app.jobs() statusPruneInterval must be at least 1ms');
  if (options.statusRetention === false) return null;
  if ((options.statusRetention as unknown) === true) throw new ConfigError('app.jobs() statusRetention must be a duration such as "168h", or false to keep every row');
  const keepMs = durationMs(options.statusRetention, DEFAULT_STATUS_RETENTION_MS, 'app.jobs() statusRetention');
  return { keepMs, intervalMs, batch };
}

/**
 * Prunes finished jobs' status rows on a timer while the worker runs.
 *
 * @example
 * const pruner = new StatusPruner(sink, resolveRetention({ statusRetention: '24h' })!, log);
 * pruner.start(); ... await pruner.stop();
 */
export class StatusPruner {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly sink: StatusSink,
    readonly retention: Retention,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => void this.prune(), this.retention.intervalMs);
    this.timer.unref();
  }

  /**
   * One pass: batches until one comes back short; resolves with the rows
   * deleted. A pass asked for while another runs is that one (replicas may
   * prune at once: a row is deleted once, by whichever gets it).
   */
  prune(now = Date.now()): Promise<number> {
    this.pass ??= this.batches(new Date(now - this.retention.keepMs)).finally(() => (this.pass = null));
    return this.pass;
  }

  private async batches(before: Date): Promise<number> {
    let pruned = 0;
    let batches = 0;
    try {
      for (;;) {
        const deleted = await this.sink.prune(before, this.retention.batch);
        pruned += deleted;
        batches++;
        if (deleted < this.retention.batch || this.stopped) break;
      }
    } catch (error) {
      this.log.error({ err: String((error as Error)?.message ?? error), pruned }, 'pruning job status rows failed; the next pass tries again');
    }
    if (pruned > 0) this.log.info({ pruned, batches, before: before.toISOString() }, 'pruned the status rows of jobs finished before the retention');
    return pruned;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pass;
  }
}
