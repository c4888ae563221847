import { existsSync } from 'node:fs';
import { createServer } from '../app.js';
import { openDatabase } from '../db/open.js';
import { silentLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import { type DriftFinding, findingText, MigrationRefused } from '../migrate/findings.js';
import type { MigrationReport } from '../migrate/migrate.js';
import { commandLine } from './args.js';
import { endOnClosedPipe } from './process.js';

/**
 * `mfx migrate [--manifest DIR] [--db URL] [--plan] [--strict]`: migrate,
 * then print what changed and every drift warning. `--plan` prints the SQL
 * the migration would run and every drift, and runs nothing; `--strict`
 * refuses (exit 1, nothing run) while drift would break requests.
 */
export async function main(argv: string[]): Promise<number> {
  endOnClosedPipe();
  const line = commandLine('migrate', argv);
  if (typeof line === 'number') return line;
  const { options } = line;
  const app = createServer({ logger: silentLogger, handleSignals: false });
  const loaded = loadManifest(options.manifest);
  app.register(loaded);
  for (const warning of loaded.warnings) process.stderr.write(`warning: ${warning}\n`);
  // Planning against a SQLite file that does not exist yet must not create it: an empty database plans the same.
  const missing = options.plan && /^sqlite:(?!:memory:$)/.test(options.dbWriteUrl) && !existsSync(options.dbWriteUrl.slice('sqlite:'.length));
  const adapter = openDatabase(missing ? 'sqlite::memory:' : options.dbWriteUrl, app.registry);
  app.setDB(adapter);
  try {
    await adapter.init(silentLogger);
    if (options.plan) {
      const plan = await app.migrate({ dryRun: true });
      if (missing) process.stdout.write(`-- ${options.dbWriteUrl} does not exist yet: the plan is for an empty database\n`);
      process.stdout.write(planText(plan));
      return options.strict ? refuseOn(plan.findings.filter((f) => f.breaking)) : 0;
    }
    let report: MigrationReport;
    try {
      report = await app.migrate({ strict: options.strict, strictBy: 'mfx migrate --strict' });
    } catch (error) {
      if (error instanceof MigrationRefused) return refuseOn(error.findings);
      throw error;
    }
    for (const table of report.createdTables) process.stdout.write(`created table ${table}\n`);
    for (const renamed of report.renamedColumns) process.stdout.write(`renamed column ${renamed.replace(' → ', ' to ')}\n`);
    for (const column of report.addedColumns) process.stdout.write(`added column ${column}\n`);
    for (const finding of report.findings) process.stdout.write(`drift: ${findingText(finding)}\n`);
    if (report.statements.length === 0) process.stdout.write('schema is up to date\n');
    else process.stdout.write(`ran ${count(report.statements.length, 'statement')}\n`);
    return 0;
  } finally {
    await adapter.close();
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
