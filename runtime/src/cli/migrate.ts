import { createServer } from '../app.js';
import { loadEnv } from '../config/env.js';
import { openDatabase } from '../db/open.js';
import { silentLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import { checkFlags, parseArgs, stringFlag } from './args.js';

/** `mfx migrate [--manifest DIR] [--db URL]`: migrate, then print what changed and every drift warning. */
export async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, []);
  checkFlags(args, ['manifest', 'db'], 'migrate');
  const env = loadEnv();
  const app = createServer({ logger: silentLogger, handleSignals: false });
  const loaded = loadManifest(stringFlag(args, 'manifest') ?? '.mfx');
  app.register(loaded);
  for (const warning of loaded.warnings) process.stderr.write(`warning: ${warning}\n`);
  const url = stringFlag(args, 'db') ?? env.dbWriteUrl ?? 'sqlite:./mfx.db';
  const adapter = openDatabase(url, app.registry);
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
