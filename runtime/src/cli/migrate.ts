import { existsSync } from 'node:fs';
import type { AppMigrationReport } from '../app.js';
import { openDatabase } from '../db/open.js';
import { silentLogger } from '../log/logger.js';
import { type DriftFinding, findingText, MigrationRefused } from '../migrate/findings.js';
import type { MigrationReport } from '../migrate/migrate.js';
import { commandApp, importAppModule } from './app-module.js';
import { commandLine } from './args.js';
import { endOnClosedPipe } from './process.js';

/**
 * `mfx migrate [--manifest DIR] [--db URL] [--app FILE] [--plan] [--strict]`:
 * migrate, then print what changed and every drift warning. `--plan` prints
 * the SQL the migration would run and every drift, and runs nothing;
 * `--strict` refuses (exit 1, nothing run) while drift would break requests.
 * The `--app` module's default export runs first: the adapters it registers
 * with `app.setDB(adapter, { name })` get the tables of their models
 * (`adapter:NAME`), and the system tables its hooks declare are created.
 */
export async function main(argv: string[]): Promise<number> {
  endOnClosedPipe();
  const line = commandLine('migrate', argv);
  if (typeof line === 'number') return line;
  const { options } = line;
  const module = await importAppModule(options.app);
  const app = commandApp(module, options.manifest);
  // Planning against a SQLite file that does not exist yet must not create it: an empty database plans the same.
  const missing = options.plan && /^sqlite:(?!:memory:$)/.test(options.dbWriteUrl) && !existsSync(options.dbWriteUrl.slice('sqlite:'.length));
  const adapter = openDatabase(missing ? 'sqlite::memory:' : options.dbWriteUrl, app.registry);
  app.setDB(adapter);
  try {
    await module.default?.(app);
    await app.ready();
    for (const database of app.databases()) await database.adapter.init(silentLogger);
    if (options.plan) {
      const plan = await app.migrate({ dryRun: true });
      if (missing) process.stdout.write(`-- ${options.dbWriteUrl} does not exist yet: the plan is for an empty database\n`);
      if (plan.adapters.length === 1) process.stdout.write(planText(plan));
      else for (const { name, report } of plan.adapters) process.stdout.write(`-- adapter ${name}:\n${planText(report)}`);
      return options.strict ? refuseOn(plan.findings.filter((f) => f.breaking)) : 0;
    }
    let report: AppMigrationReport;
    try {
      report = await app.migrate({ strict: options.strict, strictBy: 'mfx migrate --strict' });
    } catch (error) {
      if (error instanceof MigrationRefused) return refuseOn(error.findings);
      throw error;
    }
    // With several databases each line says which one it is about; with one, nothing is added.
    const several = report.adapters.length > 1;
    for (const { name, report: part } of report.adapters) {
      const on = several ? ` (adapter ${name})` : '';
      for (const table of part.createdTables) process.stdout.write(`created table ${table}${on}\n`);
      for (const renamed of part.renamedColumns) process.stdout.write(`renamed column ${renamed.replace(' → ', ' to ')}${on}\n`);
      for (const column of part.addedColumns) process.stdout.write(`added column ${column}${on}\n`);
      for (const finding of part.findings) process.stdout.write(`drift${on}: ${findingText(finding)}\n`);
    }
    if (report.statements.length === 0) process.stdout.write('schema is up to date\n');
    else process.stdout.write(`ran ${count(report.statements.length, 'statement')}${several ? ` on ${report.adapters.length} databases` : ''}\n`);
    return 0;
  } finally {
    await app.closeDatabases();
  }
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * The plan as a SQL script: the statements, each ended by `;`, then every
 * drift as a comment (the ones that break requests say so).
 */
function planText(plan: MigrationReport): string {
  const lines =
    plan.statements.length === 0
      ? ['-- the schema is up to date: the migration would run nothing']
      : [`-- the migration would run ${count(plan.statements.length, 'statement')} in one transaction (nothing was run):`, ...plan.statements.map((s) => `${s};`)];
  for (const finding of plan.findings) lines.push(`-- drift${finding.breaking ? ' (breaks requests)' : ''}: ${findingText(finding)}`);
  return `${lines.join('\n')}\n`;
}

/** Exit 1 naming each finding that breaks requests, or 0 when there is none. */
function refuseOn(findings: readonly DriftFinding[]): number {
  if (findings.length === 0) return 0;
  const lines = findings.map((f) => `  - ${findingText(f)}`);
  process.stderr.write(
    `mfx migrate --strict: refused, nothing was changed: the database differs from the models in ${findings.length === 1 ? 'one way' : `${findings.length} ways`} that would break requests:\n${lines.join('\n')}\n`,
  );
  return 1;
}
