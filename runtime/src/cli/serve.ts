import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer, type App } from '../app.js';
import { openDatabase } from '../db/open.js';
import { loadManifest } from '../manifest/load.js';
import type { ModelOverrides } from '../registry/registry.js';
import { readCommandLine, usage } from './args.js';

/** What a `--app` module may export. */
export interface AppModule {
  /** Registers hooks, actions and options on the app before it starts. */
  default?: (app: App) => void | Promise<void>;
  /** Model option overrides applied when the manifest is registered. */
  overrides?: Record<string, ModelOverrides>;
}

/**
 * `mfx serve [--manifest DIR] [--db URL] [--port N] [--prefix /api] [--app FILE.ts] [--no-docs] [--production]`
 *
 * Flags win over the environment (PORT, DB_WRITE_URL, DB_READ_URL, ...),
 * which wins over the defaults; all of them come from the settings table.
 */
export async function main(argv: string[]): Promise<number> {
  const { server, options, help } = readCommandLine('serve', argv);
  if (help) {
    process.stdout.write(usage('serve'));
    return 0;
  }
  const app = createServer({ ...server, documentation: options.docs ? { public: true } : undefined });

  const module: AppModule = options.app ? await import(pathToFileURL(resolve(options.app)).href) : {};
  app.register(loadManifest(options.manifest), module.overrides);
  await module.default?.(app);

  const adapter = openDatabase(options.dbWriteUrl, app.registry, options.dbReadUrl);
  app.setDB(adapter);
  // Refuses to serve a route that has neither an authenticator nor an explicit public declaration.
  if (options.production) app.validateProduction();
  let listening: string;
  try {
    ({ url: listening } = await app.start());
  } catch (error) {
    // A refused start (strictMigrations, say) leaves no pool open to keep the process alive.
    await adapter.close();
    throw error;
  }
  process.stdout.write(`mfx serving ${listening}\n`);
  return new Promise<number>(() => {});
}
