import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer } from '../app.js';
import { openSqlite } from '../db/sqlite.js';
import { silentLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import { checkFlags, parseArgs, stringFlag } from './args.js';
import type { AppModule } from './serve.js';

/**
 * `mfx openapi [--manifest DIR] [--prefix /api] [--app FILE.ts]`
 *
 * Prints the OpenAPI 3.1 document that `mfx serve` with the same flags
 * publishes: the routes are built exactly as the server builds them (with
 * the `--app` hooks, which decide security), over an in-memory database that
 * is never migrated or written.
 */
export async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, []);
  checkFlags(args, ['manifest', 'prefix', 'app'], 'openapi');
  const app = createServer({
    pathPrefix: stringFlag(args, 'prefix') ?? '/api',
    documentation: { public: true },
    logger: silentLogger,
    handleSignals: false,
  });
  const appFile = stringFlag(args, 'app');
  const module: AppModule = appFile ? await import(pathToFileURL(resolve(appFile)).href) : {};
  app.register(loadManifest(stringFlag(args, 'manifest') ?? '.mfx'), module.overrides);
  await module.default?.(app);
  app.setDB(openSqlite(':memory:', app.registry));
  try {
    app.handler();
    process.stdout.write(`${JSON.stringify(app.document(), null, 2)}\n`);
  } finally {
    await app.db.close();
  }
  return 0;
}
