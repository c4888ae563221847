/**
 * The `--app FILE` module of `mfx serve`, `openapi`, `migrate` and `rollups`
 * (and the app those one-shot commands build from it): its default
 * export sets the app up, `config` configures the server under the command
 * line, `overrides` adjusts model options (DESIGN.md, "Configuration from an
 * `--app` module").
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type App, createServer } from '../app.js';
import type { ServerConfig } from '../config/config.js';
import { ConfigError } from '../errors/api-error.js';
import { silentLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import type { Hook } from '../pipeline/types.js';
import type { ModelOverrides } from '../registry/registry.js';

/** What a `--app` module may export. */
export interface AppModule {
  /** Registers hooks, actions, plugins and options on the app: after the models are registered and the database is set, before start. */
  default?: (app: App) => void | Promise<void>;
  /** Server configuration under the command's flags and environment, which win over it (see appConfig). */
  config?: Partial<ServerConfig>;
  /** Model option overrides applied when the manifest is registered. */
  overrides?: Record<string, ModelOverrides>;
  /** The admin panel's gate under `mfx serve --admin`: Auth-step hooks, such as `[bearer({ secret }), requireRole('admin')]`. */
  adminAuth?: Hook[];
}

/** Settings the command owns: a module that sets one is told which flag or variable to use instead. */
const OWNED_BY_THE_COMMAND: Partial<Record<keyof ServerConfig, string>> = {
  db: 'the database comes from --db (or DB_WRITE_URL, DB_READ_URL)',
  logger: 'the command writes the log itself: use --log-level and --log-format (or LOG_LEVEL, LOG_FORMAT)',
  handleSignals: 'mfx serve always stops gracefully on SIGTERM and SIGINT',
};

/** Imports the `--app` module (none: an empty module). */
export async function importAppModule(file: string | undefined): Promise<AppModule> {
  if (!file) return {};
  const module = (await import(pathToFileURL(resolve(file)).href)) as AppModule;
  if (module.default !== undefined && typeof module.default !== 'function') {
    throw new ConfigError(`${file}: the default export must be a function (app) => void | Promise<void>, got ${typeof module.default}`);
  }
  const config: unknown = module.config;
  if (config !== undefined && (config === null || typeof config !== 'object' || Array.isArray(config))) {
    throw new ConfigError(`${file}: \`export const config\` must be an object of server settings (Partial<ServerConfig>), got ${Array.isArray(config) ? 'an array' : config === null ? 'null' : typeof config}`);
  }
  for (const key of Object.keys(module.config ?? {}) as (keyof ServerConfig)[]) {
    const why = OWNED_BY_THE_COMMAND[key];
    if (why) throw new ConfigError(`${file}: \`config.${key}\` cannot be set from an --app module: ${why}`);
  }
  return module;
}

/**
 * The server settings of a command: the module's `config`, under what the
 * command line and the environment set (`fromCommand` holds only the
 * settings given there, so a default never hides the module's value).
 *
 * @example
 * appConfig({ config: { port: 3000, pathPrefix: '/v1' } }, { port: 8080 }); // { port: 8080, pathPrefix: '/v1' }
 */
export function appConfig(module: AppModule, fromCommand: Partial<ServerConfig>): Partial<ServerConfig> {
  return { ...module.config, ...fromCommand };
}

/**
 * The app of a one-shot command (migrate, rollups, rotate-keys): the
 * module's `config` under `fromCommand`, silent (the command reports on
 * stderr itself) and without signal handlers (it handles Ctrl-C itself),
 * with the manifest in `dir` registered under the module's `overrides` and
 * the manifest's warnings written to stderr.
 *
 * @example
 * const app = commandApp(await importAppModule(options.app), options.manifest);
 */
export function commandApp(module: AppModule, dir: string | undefined, fromCommand: Partial<ServerConfig> = {}): App {
  const app = createServer({ ...appConfig(module, fromCommand), logger: silentLogger, handleSignals: false });
  const loaded = loadManifest(dir);
  app.register(loaded, module.overrides);
  for (const warning of loaded.warnings) process.stderr.write(`warning: ${warning}\n`);
  return app;
}
