import type { Adapter, Executor } from '../db/adapter.js';
import type { Logger } from '../log/logger.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { TableSpec } from '../sql/schema.js';
import { type DriftFinding, findingText, MigrationRefused } from './findings.js';
import { type MigrationPlan, planMigration } from './plan.js';

export interface MigrationReport {
  createdTables: string[];
  /** `table.column` of every column added to an existing table. */
  addedColumns: string[];
  /** `table.old → new` of every column renamed (`renamed_from:`). */
  renamedColumns: string[];
  /** The statements run (or, with `dryRun`, that would run), in order. */
  statements: string[];
  /** Differences that migration does not fix (it never drops or alters columns), and notes on what it did: each finding's text. */
  warnings: string[];
  /** The same findings with table, column, fix and whether they break requests. */
  findings: DriftFinding[];
  /** False with `dryRun`: nothing was run. */
  applied: boolean;
}

export interface MigrateOptions {
  /** Plan only: report what would run and every drift, run nothing (`mfx migrate --plan`). */
  dryRun?: boolean;
  /**
   * Refuse with MigrationRefused, running nothing, when drift would break
   * requests (`mfx migrate --strict`, `strictMigrations`).
   */
  strict?: boolean;
  /** With `strict`: also refuse while tables or columns the models need are missing (a server that does not migrate, `disableAutoMigrate`). */
  requireUpToDate?: boolean;
  /** Who asked for strictness, for the refusal's message (`strictMigrations`). */
  strictBy?: string;
}

/**
 * Brings the database up to the registry: creates missing tables and
 * indexes, adds missing columns, renames columns declared `renamed_from:`,
 * never drops or alters anything, and reports every drift it sees as a
 * finding naming the table and column. `systemTables` are the tables
 * features declared (idempotency keys, ...): created like models' tables,
 * columns added, no drift reported.
 *
 * All of it runs in one transaction holding the migration lock: the schema
 * is read once the lock is held, the plan computed from it
 * (`planMigration`), then run. Replicas starting together take turns, and
 * the later ones find nothing left to do. `dryRun` stops after planning;
 * `strict` refuses before running anything when drift would break requests.
 *
 * @example
 * const report = await migrate(app.db, app.registry.all(), app.log);
 * const plan = await migrate(app.db, app.registry.all(), app.log, [], { dryRun: true }); // plan.statements: what would run
 */
export async function migrate(adapter: Adapter, models: readonly ModelMeta[], logger: Logger, systemTables: readonly TableSpec[] = [], options: MigrateOptions = {}): Promise<MigrationReport> {
  const { plan, failures } = await adapter.migrationTransaction(async (tx) => {
    const plan = await planMigration(tx, models, systemTables);
    if (options.strict) {
      const breaking = [...plan.findings.filter((f) => f.breaking), ...(options.requireUpToDate ? pending(plan) : [])];
      if (breaking.length > 0) throw new MigrationRefused(breaking, options.strictBy ?? 'strict migration');
    }
    return { plan, failures: options.dryRun ? [] : await run(tx, plan) };
  });
  const findings = [...plan.findings, ...failures];
  const report: MigrationReport = {
    createdTables: plan.createdTables,
    addedColumns: plan.addedColumns,
    renamedColumns: plan.renamedColumns,
    statements: plan.steps.map((s) => s.sql),
    warnings: findings.map(findingText),
    findings,
    applied: !options.dryRun,
  };
  if (options.dryRun) return report;
  for (const warning of report.warnings) logger.warn({ migration: 'drift' }, warning);
  if (report.createdTables.length || report.addedColumns.length || report.renamedColumns.length) {
    logger.info({ createdTables: report.createdTables, addedColumns: report.addedColumns, renamedColumns: report.renamedColumns }, 'migration applied');
  }
  return report;
}

/** Runs the plan's statements in order; a tolerated failure is rolled back to its savepoint (PostgreSQL's transaction stays usable) and reported. */
async function run(tx: Executor, plan: MigrationPlan): Promise<DriftFinding[]> {
  const failures: DriftFinding[] = [];
  for (const step of plan.steps) {
    if (!step.onFailure) {
      await tx.raw(step.sql);
      continue;
    }
    await tx.raw('SAVEPOINT mfx_validate');
    try {
      await tx.raw(step.sql);
      await tx.raw('RELEASE SAVEPOINT mfx_validate');
    } catch {
      await tx.raw('ROLLBACK TO SAVEPOINT mfx_validate');
      failures.push(step.onFailure);
    }
  }
  return failures;
}

/** What a server that does not migrate would lack: each missing table, column and pending rename breaks the requests that need it. */
function pending(plan: MigrationPlan): DriftFinding[] {
  const fix = 'run `mfx migrate` before starting the server (it does not migrate: disableAutoMigrate), or let it migrate';
  const column = (entry: string, message: string): DriftFinding => {
    const [table, name] = entry.split('.', 2);
    return { table, column: name, message, fix, breaking: true };
  };
  return [
    ...plan.createdTables.map((table): DriftFinding => ({ table, column: null, message: `table ${table} does not exist yet`, fix, breaking: true })),
    ...plan.addedColumns.map((entry) => column(entry, `column ${entry} does not exist yet`)),
    ...plan.renamedColumns.map((entry) => {
      const [old, name] = entry.split(' → ');
      return column(old, `column ${old} is not renamed to ${name} yet`);
    }),
  ];
}
