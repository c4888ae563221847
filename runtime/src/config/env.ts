import { ConfigError } from '../errors/api-error.js';
import type { ServerConfig } from './config.js';
import { settingRows } from './settings.js';

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

/** The settings the environment can set, from the settings table. */
const bound = settingRows.flatMap(([key, setting]) => (setting.env ? [{ key, scope: setting.scope, env: setting.env }] : []));

/**
 * Reads exactly the variables of the settings table (PORT, DB_WRITE_URL,
 * DB_READ_URL, QUERY_TIMEOUT_MS, SHUTDOWN_TIMEOUT_S, SERVICE_NAME,
 * HEALTH_CHECK_DB and STRICT_MIGRATIONS), each optionally behind `<PREFIX>_`. Unset (or empty)
 * variables stay undefined so defaults apply; a set but unreadable one is an
 * error naming it.
 *
 * @example
 * const env = loadEnv('BLOG'); // reads BLOG_PORT, BLOG_DB_WRITE_URL, ...
 * createServer({ port: env.port, serviceName: env.serviceName });
 */
export function loadEnv(prefix = '', env: NodeJS.ProcessEnv = process.env): EnvConfig {
  const out: Record<string, unknown> = {};
  for (const { env: binding } of bound) {
    const variable = prefix ? `${prefix}_${binding.name}` : binding.name;
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    try {
      out[binding.as] = binding.read(raw);
    } catch (error) {
      throw new ConfigError(`environment variable ${variable}="${raw}" ${(error as Error).message}`);
    }
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
  for (const { key, scope, env: binding } of bound) {
    const value = env[binding.as];
    if (scope === 'server' && value !== undefined) out[key] = binding.toSetting(value);
  }
  return out as Partial<ServerConfig>;
}
