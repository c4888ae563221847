import { createServer } from '../app.js';
import { offlineAdapter } from '../db/offline.js';
import { silentLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import { commandLine } from './args.js';
import { endOnClosedPipe } from './process.js';
import { appConfig, importAppModule } from './app-module.js';

/**
 * `mfx openapi [--manifest DIR] [--prefix /api] [--app FILE.ts]`
 *
 * Prints the OpenAPI 3.1 document that `mfx serve` with the same flags
 * publishes: the routes are built exactly as the server builds them (with
 * the `--app` hooks, which decide security), over the offline adapter: no
 * database is opened and no driver loaded, so a PostgreSQL-only project
 * prints its document without better-sqlite3.
 */
export async function main(argv: string[]): Promise<number> {
  endOnClosedPipe();
  const line = commandLine('openapi', argv);
  if (typeof line === 'number') return line;
  const { server, options } = line;
  const module = await importAppModule(options.app);
  const base = appConfig(module, server);
  // The document serve publishes: the module's documentation settings, public.
  const app = createServer({ ...base, documentation: { ...base.documentation, public: true }, logger: silentLogger, handleSignals: false });
  app.register(loadManifest(options.manifest), module.overrides);
  const offline = offlineAdapter(app.registry);
  app.setDB(offline);
  // Models declared adapter:NAME are documented alike: the offline adapter stands for every database (the module may set real ones).
  for (const name of new Set(app.registry.all().flatMap((m) => (m.options.adapter ? [m.options.adapter] : [])))) app.setDB(offline, { name });
  await module.default?.(app);
  await app.ready();
  try {
    app.handler();
    process.stdout.write(`${JSON.stringify(app.document(), null, 2)}\n`);
  } finally {
    await app.closeDatabases();
  }
  return 0;
}
