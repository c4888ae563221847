import { createServer } from '../app.js';
import { openDatabase } from '../db/open.js';
import { silentLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import { commandLine } from './args.js';
import { endOnClosedPipe } from './process.js';

/** `mfx migrate [--manifest DIR] [--db URL]`: migrate, then print what changed and every drift warning. */
export async function main(argv: string[]): Promise<number> {
  endOnClosedPipe();
  const line = commandLine('migrate', argv);
  if (typeof line === 'number') return line;
  const { options } = line;
  const app = createServer({ logger: silentLogger, handleSignals: false });
  const loaded = loadManifest(options.manifest);
  app.register(loaded);
  for (const warning of loaded.warnings) process.stderr.write(`warning: ${warning}\n`);
  const adapter = openDatabase(options.dbWriteUrl, app.registry);
  app.setDB(adapter);
  try {
    await adapter.init(silentLogger);
    const report = await app.migrate();
    for (const table of report.createdTables) process.stdout.write(`created table ${table}\n`);
    for (const column of report.addedColumns) process.stdout.write(`added column ${column}\n`);
    for (const warning of report.warnings) process.stdout.write(`drift: ${warning}\n`);
    if (!report.createdTables.length && !report.addedColumns.length) process.stdout.write('schema is up to date\n');
    return 0;
  } finally {
    await adapter.close();
  }
}
