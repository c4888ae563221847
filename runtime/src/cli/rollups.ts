import { openDatabase } from '../db/open.js';
import { silentLogger } from '../log/logger.js';
import { backfillRollups } from '../rollups/backfill.js';
import { commandApp, importAppModule } from './app-module.js';
import { commandLine, synopsis, usage } from './args.js';
import { endOnClosedPipe } from './process.js';
import { progressWriter, stopAfterBatch } from './progress.js';

/**
 * `mfx rollups backfill --manifest DIR --db URL [--app FILE]`: recomputes
 * every rollup column the `--app` module declares (`app.rollup`) on every
 * parent row, parent model by parent model in batches (each one
 * transaction). Prints the report as JSON on stdout, progress (a bar on a
 * terminal) and a summary on stderr. Exit 0 once every parent is recomputed,
 * 1 when the module declares no rollup or one is wrong, 2 on a usage error.
 * Ctrl-C stops after the current batch (exit 1; run it again to finish).
 *
 * @example
 * await main(['backfill', '--manifest', '.mfx', '--db', 'sqlite:./app.db', '--app', 'app.ts']);
 */
export async function main(argv: string[]): Promise<number> {
  endOnClosedPipe();
  if (argv[0] !== 'backfill' && !argv.some((a) => a === '--help' || a === '-h')) {
    const what = argv[0] === undefined ? 'name the subcommand' : `unknown subcommand "${argv[0]}"`;
    process.stderr.write(`mfx rollups: ${what}; usage: mfx rollups ${synopsis('rollups')}\n`);
    return 2;
  }
  const line = commandLine('rollups', argv);
  if (typeof line === 'number') return line;
  const { options } = line;
  const module = await importAppModule(options.app);
  const app = commandApp(module, options.manifest);
  const adapter = openDatabase(options.dbWriteUrl, app.registry);
  app.setDB(adapter);
  const signals = stopAfterBatch(process.stderr);
  try {
    await module.default?.(app);
    await app.ready();
    if (app.rollups().length === 0) {
      process.stderr.write(`mfx rollups: no rollup is declared; declare them with app.rollup({ parent, field, child, via, op }) in the --app module${options.app ? ` (${options.app})` : ''}\n`);
      return 1;
    }
    for (const database of app.databases()) await database.adapter.init(silentLogger);
    const progress = progressWriter(process.stderr);
    const report = await backfillRollups(app, {
      onProgress: (p) => (progress.show(`recomputed ${p.done}/${p.total} rows (${p.model})`, p.total > 0 ? p.done / p.total : 1), !signals.interrupted),
    });
    progress.end();
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const rows = report.models.reduce((sum, m) => sum + m.rows, 0);
    const fields = report.models.reduce((sum, m) => sum + m.fields.length, 0);
    if (!report.complete) {
      process.stderr.write(`stopped after ${rows} rows; run mfx rollups backfill again to finish\n`);
      return 1;
    }
    process.stderr.write(`recomputed ${fields} rollup column${fields === 1 ? '' : 's'} on ${rows} row${rows === 1 ? '' : 's'}\n`);
    return 0;
  } finally {
    signals.release();
    await app.closeDatabases();
  }
}
