import { ConfigError } from '../errors/api-error.js';

/** What the environment can set; everything else is configured in code. */
export interface EnvConfig {
  port?: number;
  dbWriteUrl?: string;
  dbReadUrl?: string;
  queryTimeoutMs?: number;
  shutdownTimeoutS?: number;
  serviceName?: string;
  healthCheckDB?: boolean;
}

/** The only variables read, and how. */
const variables = {
  PORT: { key: 'port', read: integer(0, 65535) },
  DB_WRITE_URL: { key: 'dbWriteUrl', read: text },
  DB_READ_URL: { key: 'dbReadUrl', read: text },
  QUERY_TIMEOUT_MS: { key: 'queryTimeoutMs', read: integer(0, Number.MAX_SAFE_INTEGER) },
  SHUTDOWN_TIMEOUT_S: { key: 'shutdownTimeoutS', read: integer(0, Number.MAX_SAFE_INTEGER) },
  SERVICE_NAME: { key: 'serviceName', read: text },
  HEALTH_CHECK_DB: { key: 'healthCheckDB', read: boolean },
} as const satisfies Record<string, { key: keyof EnvConfig; read: (raw: string) => unknown }>;

function text(raw: string): string {
  return raw;
}

function integer(min: number, max: number) {
  return (raw: string): number => {
    if (!/^\s*\d+\s*$/.test(raw)) throw new Error(`must be a whole number from ${min} to ${max}`);
    const value = Number(raw);
    if (value < min || value > max) throw new Error(`must be a whole number from ${min} to ${max}`);
    return value;
  };
}

function boolean(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new Error('must be true or false (also 1/0, yes/no, on/off)');
}

/**
 * Reads exactly PORT, DB_WRITE_URL, DB_READ_URL, QUERY_TIMEOUT_MS,
 * SHUTDOWN_TIMEOUT_S, SERVICE_NAME and HEALTH_CHECK_DB, each optionally
 * behind `<PREFIX>_`. Unset (or empty) variables stay undefined so defaults
 * apply; a set but unreadable one is an error naming it.
 *
 * @example
 * const env = loadEnv('BLOG'); // reads BLOG_PORT, BLOG_DB_WRITE_URL, ...
 * createServer({ port: env.port, serviceName: env.serviceName });
 */
export function loadEnv(prefix = '', env: NodeJS.ProcessEnv = process.env): EnvConfig {
  const out: EnvConfig = {};
  for (const [name, { key, read }] of Object.entries(variables)) {
    const variable = prefix ? `${prefix}_${name}` : name;
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    try {
      (out as Record<string, unknown>)[key] = read(raw);
    } catch (error) {
      throw new ConfigError(`environment variable ${variable}="${raw}" ${(error as Error).message}`);
    }
  }
  return out;
}

/** Folds environment values into server settings (durations become milliseconds). */
export function envToConfig(env: EnvConfig): { port?: number; queryTimeout?: number; shutdownTimeout?: number; serviceName?: string; healthCheckDB?: boolean } {
  const out: { port?: number; queryTimeout?: number; shutdownTimeout?: number; serviceName?: string; healthCheckDB?: boolean } = {};
  if (env.port !== undefined) out.port = env.port;
  if (env.queryTimeoutMs !== undefined) out.queryTimeout = env.queryTimeoutMs;
  if (env.shutdownTimeoutS !== undefined) out.shutdownTimeout = env.shutdownTimeoutS * 1000;
  if (env.serviceName !== undefined) out.serviceName = env.serviceName;
  if (env.healthCheckDB !== undefined) out.healthCheckDB = env.healthCheckDB;
  return out;
}
