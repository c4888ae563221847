/**
 * The scheduled-transition runner (DESIGN "Jobs and scheduling", row
 * "Scheduled fields"): every `interval` it sweeps each scheduled field of
 * each model in transactional batches of `batchSize` due rows, applies the
 * transitions (transitions.ts), and once a batch has committed calls the
 * optional hooks `onDelete(model, id)` and `onSetField(model, id, field,
 * value)`. `app.scheduler(options)` configures it and starts it with the
 * server; `app.sweepScheduled()` runs one sweep. With a job queue the
 * interval tick is the dispatcher's (dispatch.ts): it enqueues the sweeps,
 * and the worker that claims one runs it here.
 */
import { randomUUID } from 'node:crypto';
import type { Adapter } from '../db/adapter.js';
import { ConfigError } from '../errors/api-error.js';
import type { Logger } from '../log/logger.js';
import type { JsonValue } from '../manifest/types.js';
import type { WriteCaller, WriteObservers } from '../pipeline/write-observers.js';
import { type Duration, durationMs } from '../config/readers.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { ModelStore } from '../store/model-store.js';
import type { ScheduleLock } from '../jobs/schedule-lock.js';
import { type Applied, applyTransition, dueRows, type Transition } from './transitions.js';
import { isoTime } from '../util/iso-time.js';

export interface SchedulerOptions {
  /** How often the runner sweeps; default `1m`. */
  interval?: Duration;
  /** Due rows per transaction; default 500 (more holds row locks, and SQLite's write lock, for longer: a warning says so). */
  batchSize?: number;
  /** After the commit of a soft or hard delete the runner made; `model` is the model's name. */
  onDelete?: (model: string, id: string) => unknown;
  /** After the commit of a set-field transition: the field set (JSON name) and its new value. */
  onSetField?: (model: string, id: string, field: string, value: JsonValue) => unknown;
  /**
   * With `app.jobs` configured (default true then): each interval one
   * replica enqueues a sweep job per model and a worker runs it. False
   * sweeps in this process every interval, as without a queue.
   */
  dispatch?: boolean;
  /** Where replicas take each interval when dispatching; default a row in the app's database (`mfx_schedule_locks`). */
  lock?: ScheduleLock;
}

/** What one sweep did. */
export interface SweepReport {
  softDeleted: number;
  hardDeleted: number;
  fieldsSet: number;
  /** Rows whose transition failed (logged with the error); they stay due and are tried again next sweep. */
  failed: number;
}

export const DEFAULT_SCHEDULER_INTERVAL_MS = 60_000;
export const DEFAULT_SCHEDULER_BATCH = 500;

/** What the runner needs of the app, resolved when the app is sealed. */
export interface SchedulerDeps {
  /** The database a model is served from (its adapter:NAME, or the default one). */
  dbOf(model: ModelMeta): Adapter;
  store(model: string): ModelStore;
  observers: WriteObservers;
  transitions: readonly Transition[];
  log: Logger;
}

/** The options checked, with their defaults; a ConfigError names the bad one. */
export function resolveSchedulerOptions(options: SchedulerOptions): Required<Pick<SchedulerOptions, 'batchSize'>> & { intervalMs: number } & SchedulerOptions {
  if (options === null || typeof options !== 'object') throw new ConfigError('app.scheduler takes { interval?, batchSize?, onDelete?, onSetField?, dispatch?, lock? }');
  const intervalMs = durationMs(options.interval, DEFAULT_SCHEDULER_INTERVAL_MS, 'scheduler interval');
  if (intervalMs < 1) throw new ConfigError('scheduler interval must be at least 1ms');
  const batchSize = options.batchSize ?? DEFAULT_SCHEDULER_BATCH;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new ConfigError(`scheduler batchSize must be a whole number of at least 1, got ${String(options.batchSize)}`);
  for (const hook of ['onDelete', 'onSetField'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') throw new ConfigError(`scheduler ${hook} must be a function`);
  }
  if (options.dispatch !== undefined && typeof options.dispatch !== 'boolean') throw new ConfigError('scheduler dispatch must be true or false');
  if (options.lock !== undefined && (options.lock === null || typeof options.lock !== 'object' || typeof options.lock.take !== 'function')) {
    throw new ConfigError('scheduler lock must be an interval lock such as sqlScheduleLock(db) or redisScheduleLock({ url }) from @mfx/jobs-redis');
  }
  return { ...options, intervalMs, batchSize };
}

/**
 * Sweeps due scheduled transitions. Sweeps never overlap: one asked for
 * while another runs starts when it ends.
 *
 * @example
 * const runner = new ScheduledRunner(deps, { interval: '1m' });
 * runner.start(); ... await runner.stop();
 */
export class ScheduledRunner {
  private readonly options: ReturnType<typeof resolveSchedulerOptions>;
  private timer: NodeJS.Timeout | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  /** The dispatcher's tick under way, in dispatch mode. */
  private ticking: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: SchedulerDeps,
    options: SchedulerOptions,
  ) {
    this.options = resolveSchedulerOptions(options);
  }

  /**
   * Sweeps every interval from now on (the first sweep one interval after
   * start); with `dispatch` (dispatch.ts) each interval runs it instead,
   * which enqueues the sweeps for the job queue's workers.
   */
  start(dispatch: (() => Promise<void>) | null = null): void {
    if (this.timer || this.stopped) return;
    if (this.options.batchSize > DEFAULT_SCHEDULER_BATCH) {
      this.deps.log.warn(
        { batchSize: this.options.batchSize },
        `scheduler batchSize above ${DEFAULT_SCHEDULER_BATCH}: each batch holds the locks of its rows (on SQLite the database's write lock) until it commits, so requests that write them wait longer`,
      );
    }
    this.deps.log.info(
      { intervalMs: this.options.intervalMs, mode: dispatch ? 'queue' : 'local', fields: this.deps.transitions.map((t) => `${t.model.name}.${t.field.name}`) },
      'scheduled transitions runner started',
    );
    const failed = (error: unknown) => this.deps.log.error({ err: String((error as Error)?.message ?? error) }, 'scheduled sweep failed');
    this.timer = setInterval(() => {
      if (!dispatch) return void this.sweep().catch(failed);
      // A tick still enqueueing (a slow lock or queue) is not doubled; the shutdown waits for it before the queue closes.
      this.ticking ??= dispatch()
        .catch(failed)
        .finally(() => (this.ticking = null));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the interval and waits for a sweep under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    await this.tail.catch(() => {});
  }

  /** One sweep of every model, or of `model` only (a sweep job), after any sweep under way. */
  sweep(model?: string): Promise<SweepReport> {
    const next = this.tail.catch(() => {}).then(() => this.sweepOnce(model));
    this.tail = next;
    return next;
  }

  private async sweepOnce(model?: string): Promise<SweepReport> {
    const report: SweepReport = { softDeleted: 0, hardDeleted: 0, fieldsSet: 0, failed: 0 };
    const sweepId = `scheduler-${randomUUID()}`;
    const started = Date.now();
    // Transitions in declaration order: a row whose first transition makes the next one due goes through both.
    for (const transition of this.deps.transitions) {
      if (model === undefined || transition.model.name === model) await this.sweepField(transition, sweepId, report);
    }
    if (report.softDeleted + report.hardDeleted + report.fieldsSet + report.failed > 0) {
      this.deps.log.info({ sweepId, ...(model === undefined ? {} : { model }), ...report, ms: Date.now() - started }, 'scheduled transitions applied');
    }
    return report;
  }

  /** Every due row of one scheduled field, batch after batch, until none is left. */
  private async sweepField(transition: Transition, sweepId: string, report: SweepReport): Promise<void> {
    const { observers, log } = this.deps;
    const db = this.deps.dbOf(transition.model);
    const store = this.deps.store(transition.model.name);
    const failed = new Set<string>();
    for (;;) {
      const nowMs = Date.now();
      const now = isoTime(nowMs);
      const committed: Array<{ id: string; applied: Applied }> = [];
      const callbacks = { commit: [] as Array<() => unknown>, rollback: [] as Array<() => unknown> };
      let current: string | null = null;
      let selected = 0;
      const caller: WriteCaller = {
        identity: null,
        requestId: sweepId,
        traceId: sweepId,
        log,
        afterCommit: (fn) => void callbacks.commit.push(fn),
        onRollback: (fn) => void callbacks.rollback.push(fn),
      };
      try {
        await db.transaction(async (tx) => {
          // The batch is read and locked at once; rows an earlier row's cascade changed are read again (`touched`).
          const rows = await dueRows(tx, store, transition, now, this.options.batchSize, failed);
          selected = rows.length;
          const touched = new Set<string>();
          for (const row of rows) {
            const id = String(row.id);
            current = id;
            const before = touched.has(id) ? await store.findById(tx, id, { lock: true, hard: transition.action.action === 'hard-delete' }) : row;
            committed.push({ id, applied: await applyTransition(tx, store, observers, transition, before, nowMs, caller, touched) });
          }
          current = null;
        });
      } catch (error) {
        await runAll(callbacks.rollback, log, sweepId);
        // The batch rolled back; the row that failed is left out of this sweep and the others are tried again.
        if (current === null) throw error;
        failed.add(current);
        report.failed += 1;
        log.error(
          { sweepId, model: transition.model.name, id: current, field: transition.field.name, err: String((error as Error)?.message ?? error) },
          'scheduled transition failed; the row stays due',
        );
        continue;
      }
      await runAll(callbacks.commit, log, sweepId);
      for (const { id, applied } of committed) await this.afterCommit(transition, id, applied, report, sweepId);
      // A short batch was the last one; a batch that changed nothing would select the same rows again.
      if (selected < this.options.batchSize || committed.every((c) => c.applied.kind === 'skipped')) return;
    }
  }

  private async afterCommit(transition: Transition, id: string, applied: Applied, report: SweepReport, sweepId: string): Promise<void> {
    const model = transition.model.name;
    try {
      if (applied.kind === 'deleted') {
        if (applied.hard) report.hardDeleted += 1;
        else report.softDeleted += 1;
        await this.options.onDelete?.(model, id);
      } else if (applied.kind === 'set') {
        report.fieldsSet += 1;
        await this.options.onSetField?.(model, id, applied.field, applied.value);
      }
    } catch (error) {
      this.deps.log.error({ sweepId, model, id, field: transition.field.name, err: String((error as Error)?.message ?? error) }, 'scheduler hook failed');
    }
  }
}

async function runAll(callbacks: ReadonlyArray<() => unknown>, log: Logger, sweepId: string): Promise<void> {
  for (const fn of callbacks) {
    try {
      await fn();
    } catch (error) {
      log.error({ sweepId, err: String((error as Error)?.message ?? error) }, 'a write observer callback failed');
    }
  }
}
