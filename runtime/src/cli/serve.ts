import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createServer, type App } from '../app.js';
import type { ServerConfig } from '../config/config.js';
import type { Adapter } from '../db/adapter.js';
import { openDatabase, shownDatabaseUrl } from '../db/open.js';
import { defaultLogger } from '../log/logger.js';
import { envKeyProvider, hasKeyVariables } from '../security/encryption/keys.js';
import { type LoadedManifest, loadManifest } from '../manifest/load.js';
import type { Registry } from '../registry/registry.js';
import { commandLine } from './args.js';
import { endOnClosedPipe } from './process.js';
import { reloadOnChange, sharedDatabase } from './reload.js';
import { type AppModule, appConfig, importAppModule } from './app-module.js';
import { ConfigError } from '../errors/api-error.js';

/**
 * `mfx serve [--manifest DIR] [--db URL] [--port N] [--host ADDR] [--log-level LEVEL] [--log-format json|pretty] [--cursor-secret SECRET] [--watch] [--no-scheduler] ...`
 *
 * Flags win over the environment (PORT, DB_WRITE_URL, HOST, LOG_LEVEL, ...),
 * which wins over the defaults; all of them come from the settings table.
 * Prints the listening URL and the database; with `--watch`, serves each new
 * manifest on the same port (see reload.ts).
 */
export async function main(argv: string[]): Promise<number> {
  // Until the server starts, a reader that went away (`mfx serve --help | head -1`) just ends the command.
  let onClosedPipe: () => void = () => process.exit(0);
  endOnClosedPipe(() => onClosedPipe());
  const line = commandLine('serve', argv);
  if (typeof line === 'number') return line;
  const { server, options } = line;

  let app: App | null = null;
  let startup: Promise<unknown> | null = null;
  // A reader of the output that went away (`mfx serve | head -1`) stops the server as SIGTERM would, quietly
  // (once it has started: a start cut short would leave its migration half way).
  let ending = false;
  const endQuietly = () => {
    if (ending) return;
    ending = true;
    void Promise.resolve(startup)
      .catch(() => {})
      .then(() => app?.stop())
      .finally(() => process.exit(0));
  };
  const logger = defaultLogger(undefined, { level: options.logLevel, format: options.logFormat, onClosed: endQuietly });
  onClosedPipe = () => {
    logger.outputClosed();
    endQuietly();
  };
  const module = await importAppModule(options.app);
  const base = appConfig(module, server);
  const config: ServerConfig = {
    ...base,
    logger,
    // The apps of a --watch session share one secret, so a cursor stays valid across reloads.
    cursorSecret: base.cursorSecret ?? (options.watch ? randomBytes(32).toString('base64url') : undefined),
    // MFX_KEY_* variables, like any variable, win over the module's keyProvider.
    keyProvider: hasKeyVariables(process.env) ? envKeyProvider() : base.keyProvider,
    // --no-docs wins; otherwise the module's documentation settings, else the public document.
    documentation: options.docs ? (base.documentation ?? { public: true }) : undefined,
  };

  /** An app for a manifest: models, the --app module's hooks, the database, the production check. */
  const assemble = async (loaded: LoadedManifest, database: (registry: Registry) => Adapter): Promise<App> => {
    const next = createServer(config);
    next.register(loaded, module.overrides);
    next.setDB(database(next.registry));
    await module.default?.(next);
    if (options.admin) await mountAdmin(next, module, options.adminUnauthenticated);
    // The scheduled-transition runner: on unless --no-scheduler; --scheduler-interval wins over the module's interval.
    next.scheduler(options.scheduler ? (options.schedulerInterval ? { interval: options.schedulerInterval } : {}) : false);
    // Refuses to serve a route that has neither an authenticator nor an explicit public declaration.
    if (options.production) next.validateProduction();
    return next;
  };

  // Refused before anything opens: a panel without a gate needs the explicit development flag.
  if (options.admin && !(module.adminAuth?.length || options.adminUnauthenticated)) {
    throw new ConfigError(
      'mfx serve --admin needs a gate: export const adminAuth = [bearer({ secret }), requireRole(\'admin\')] (or any Auth-step hooks) from the --app module, or pass --admin-unauthenticated for local development only',
    );
  }
  const first = loadManifest(options.manifest);
  const started = await assemble(first, (registry) => openDatabase(options.dbWriteUrl, registry, options.dbReadUrl));
  app = started;
  startup = started.start();
  let listening: string;
  try {
    ({ url: listening } = (await startup) as { url: string });
  } catch (error) {
    // A refused start (strictMigrations, say) leaves no pool open to keep the process alive.
    await started.closeDatabases();
    throw error;
  }
  const database = [shownDatabaseUrl(options.dbWriteUrl), ...(options.dbReadUrl ? [`reads ${shownDatabaseUrl(options.dbReadUrl)}`] : [])].join(', ');
  process.stdout.write(`mfx serving ${listening} (database ${database})\n`);
  if (options.watch) {
    reloadOnChange(started, options.manifest, first, (loaded) => assemble(loaded, (registry) => sharedDatabase(started.db, registry)));
    started.log.info({ manifest: resolve(options.manifest) }, 'watching the manifest for changes');
  }
  return new Promise<number>(() => {});
}

/** The admin panel package, loaded only for --admin (an optional peer: the runtime does not depend on it). */
const ADMIN_PACKAGE = '@mfx/admin';

/** Mounts the admin panel on an app of mfx serve --admin, gated by the module's adminAuth. */
async function mountAdmin(app: App, module: AppModule, unauthenticated: boolean): Promise<void> {
  let loaded: { admin: (options: { auth?: AppModule['adminAuth']; allowUnauthenticated?: boolean }) => (app: App) => void | Promise<void> };
  try {
    loaded = (await import(ADMIN_PACKAGE)) as typeof loaded;
  } catch (error) {
    throw new ConfigError(`mfx serve --admin needs the admin panel package: npm install @mfx/admin (${(error as Error).message})`);
  }
  await app.plugin(loaded.admin({ auth: module.adminAuth, allowUnauthenticated: unauthenticated && !module.adminAuth?.length }));
}
