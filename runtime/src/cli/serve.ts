import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer, type App } from '../app.js';
import { envToConfig, loadEnv } from '../config/env.js';
import { openDatabase } from '../db/open.js';
import { loadManifest } from '../manifest/load.js';
import type { ModelOverrides } from '../registry/registry.js';
import { checkFlags, parseArgs, stringFlag } from './args.js';

/** What a `--app` module may export. */
export interface AppModule {
  /** Registers hooks, actions and options on the app before it starts. */
  default?: (app: App) => void | Promise<void>;
  /** Model option overrides applied when the manifest is registered. */
  overrides?: Record<string, ModelOverrides>;
}

/**
 * `mfx serve [--manifest DIR] [--db URL] [--port N] [--prefix /api] [--app FILE.ts] [--no-docs]`
 *
 * Flags win over the environment (PORT, DB_WRITE_URL, DB_READ_URL, ...),
 * which wins over the defaults.
 */
export async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, ['no-docs', 'production']);
  checkFlags(args, ['manifest', 'db', 'port', 'prefix', 'app', 'no-docs', 'production'], 'serve');
  const env = loadEnv();
  const rawPort = stringFlag(args, 'port');
  if (rawPort !== undefined && !/^\d+$/.test(rawPort)) throw new Error(`mfx serve: --port must be a number, got "${rawPort}"`);

  const app = createServer({
    ...envToConfig(env),
    ...(rawPort !== undefined ? { port: Number(rawPort) } : {}),
    pathPrefix: stringFlag(args, 'prefix') ?? '/api',
    documentation: args.flags.has('no-docs') ? undefined : { public: true },
  });

  const appFile = stringFlag(args, 'app');
  const module: AppModule = appFile ? await import(pathToFileURL(resolve(appFile)).href) : {};
  app.register(loadManifest(stringFlag(args, 'manifest') ?? '.mfx'), module.overrides);
  await module.default?.(app);

  const url = stringFlag(args, 'db') ?? env.dbWriteUrl ?? 'sqlite:./mfx.db';
  app.setDB(openDatabase(url, app.registry, env.dbReadUrl));
  // Refuses to serve a route that has neither an authenticator nor an explicit public declaration.
  if (args.flags.has('production')) app.validateProduction();
  const { url: listening } = await app.start();
  process.stdout.write(`mfx serving ${listening}\n`);
  return new Promise<number>(() => {});
}
