import { ConfigError } from '../errors/api-error.js';
import type { ServerConfig } from './config.js';
import { shown } from './readers.js';
import { type EnvBinding, settingRows } from './settings.js';

/** What the environment can set; everything else is configured in code. */
export interface EnvConfig {
  port?: number;
  dbWriteUrl?: string;
  dbReadUrl?: string;
  queryTimeoutMs?: number;
  shutdownTimeoutS?: number;
  serviceName?: string;
  healthCheckDB?: boolean;
  strictMigrations?: boolean;
}

/** The settings `loadEnv` reads: the spec's variables, those bound to an EnvConfig field. */
const bound = settingRows.flatMap(([key, setting]) => (setting.env?.as ? [{ key, scope: setting.scope, env: setting.env, as: setting.env.as }] : []));

/**
 * The value of one variable of the settings table, in the variable's own
 * unit: undefined when unset or empty, a ConfigError naming the variable
 * when set but unreadable.
 *
 * @example
 * readVariable(settings.port.env, process.env); // 8080 when PORT=8080
 */
export function readVariable(binding: EnvBinding, env: NodeJS.ProcessEnv, prefix = ''): unknown {
  const variable = prefix ? `${prefix}_${binding.name}` : binding.name;
  const raw = env[variable];
  if (raw === undefined || raw === '') return undefined;
  try {
    return binding.read(raw);
  } catch (error) {
    throw new ConfigError(`environment variable ${variable}=${shown(binding.read, raw)} ${(error as Error).message}`);
  }
}

/**
 * Reads exactly the variables bound to an EnvConfig field (the spec's PORT,
 * DB_WRITE_URL, DB_READ_URL, QUERY_TIMEOUT_MS, SHUTDOWN_TIMEOUT_S,
 * SERVICE_NAME and HEALTH_CHECK_DB, and STRICT_MIGRATIONS), each optionally
 * behind `<PREFIX>_`. Unset (or empty)
 * variables stay undefined so defaults apply; a set but unreadable one is an
 * error naming it. The variables only the mfx commands read (HOST,
 * LOG_LEVEL, ...) are not among them.
 *
 * @example
 * const env = loadEnv('BLOG'); // reads BLOG_PORT, BLOG_DB_WRITE_URL, ...
 * createServer({ port: env.port, serviceName: env.serviceName });
 */
export function loadEnv(prefix = '', env: NodeJS.ProcessEnv = process.env): EnvConfig {
  const out: Record<string, unknown> = {};
  for (const { env: binding, as } of bound) {
    const value = readVariable(binding, env, prefix);
    if (value !== undefined) out[as] = value;
  }
  return out as EnvConfig;
}

/**
 * Folds environment values into server settings (seconds and milliseconds
 * become the settings' units).
 *
 * @example
 * createServer({ ...envToConfig(loadEnv()), pathPrefix: '/v1' });
 */
export function envToConfig(env: EnvConfig): Partial<ServerConfig> {
  const out: Record<string, unknown> = {};
  for (const { key, scope, env: binding, as } of bound) {
    const value = env[as];
    if (scope === 'server' && value !== undefined) out[key] = binding.toSetting(value);
  }
  return out as Partial<ServerConfig>;
}
