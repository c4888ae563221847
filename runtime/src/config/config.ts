import type { Adapter } from '../db/adapter.js';
import type { Logger } from '../log/logger.js';
import type { QueryLimits } from '../manifest/types.js';
import type { TraceConfig } from '../pipeline/pipeline.js';
import type { Hook } from '../pipeline/types.js';
import type { LocaleOptions } from '../locale/options.js';
import type { FilesConfig } from '../files/fields.js';
import type { KeyProvider } from '../security/encryption/keys.js';
import type { HttpMiddleware, ProbesConfig, ReadinessCheck } from '../probes/probes.js';
import { type Duration, durationMs } from './readers.js';
import { settingRows } from './settings.js';

export { type Duration, durationMs, normalisePrefix } from './readers.js';

export interface DocumentationConfig {
  /** Serve /openapi.json without running the OpenAPI auth hooks. */
  public?: boolean;
  /**
   * The OpenAPI auth step: hooks that run before the document is generated
   * when `public` is not set (an authenticator, a role gate, ...). A
   * non-public documentation without them is a startup error.
   */
  auth?: Hook[];
  /** `info.title`; defaults to the service name, else `mfx API`. */
  title?: string;
  /** `info.version` (default `1.0.0`). */
  version?: string;
  description?: string;
  /** With `public`: also serve a documentation page at {prefix}/docs (default true); false serves the JSON document only. */
  page?: boolean;
}

/**
 * Server configuration: the spec's Configuration table in camelCase. Each
 * key has its row (default, check, environment variable, flag, doc line) in
 * the settings table (`config/settings.ts`); a key without one does not
 * compile.
 *
 * @example
 * createServer({ port: 8080, pathPrefix: '/api', queryTimeout: '5s', serviceName: 'blog' });
 */
export interface ServerConfig {
  /** Listen port (default 8080; 0 picks a free one). */
  port?: number;
  /** Listen host (default all interfaces). */
  host?: string;
  /** Prefix of every route (default `/api`). */
  pathPrefix?: string;
  /** Publishes /openapi.json when set; unset mounts no spec route. */
  documentation?: DocumentationConfig;
  /** Adds `service` to log lines and an X-Service-Name response header. */
  serviceName?: string;
  /** The database adapter; required before start (or use app.setDB). */
  db?: Adapter;
  disableAutoMigrate?: boolean;
  /** Refuse to start when the schema differs from the models in a way that breaks requests (a column's type, a NOT NULL column no field writes). */
  strictMigrations?: boolean;
  /** Per-request deadline inherited by every DB call; 0 is unlimited. */
  queryTimeout?: Duration;
  queryLimits?: Partial<QueryLimits>;
  /** Asserts that global HTTP middleware protects every route (checked by validateProduction). */
  httpAccessControlled?: boolean;
  /** Router-level middleware that runs before routing and Auth. */
  httpMiddlewares?: HttpMiddleware[];
  /** Graceful shutdown budget (default 30 s). */
  shutdownTimeout?: Duration;
  logger?: Logger;
  /** Where panics are logged (default: the logger). */
  panicLogger?: Logger;
  trace?: TraceConfig;
  /** Makes /health ping the database. */
  healthCheckDB?: boolean;
  readinessChecks?: ReadinessCheck[];
  /** Shared budget for dependency checks (default 3 s). */
  healthTimeout?: Duration;
  probes?: ProbesConfig;
  /** Take the client address from X-Forwarded-For. */
  trustProxyHeaders?: boolean;
  /**
   * Honour `X-Read-Primary: 1`: a read request carrying it reads the primary
   * instead of the replica of `DB_READ_URL` (default true; see
   * docs/deployment.md, "Read-your-writes").
   */
  readPrimaryHeader?: boolean;
  /** Static files served outside the path prefix. */
  staticDir?: string;
  /** JSON body limit in bytes (default 4 MB). */
  bodyLimit?: number;
  /**
   * Secret that signs keyset pagination cursors (HMAC-SHA256). Default: random
   * per process, so cursors do not survive a restart and replicas do not
   * share them; set the same value on every replica to keep them valid.
   */
  cursorSecret?: string;
  /** Install SIGTERM/SIGINT handlers that stop the server gracefully (default true). */
  handleSignals?: boolean;
  /** Locale options of localized fields: supported codes, default, Accept-Language, RTL, default mode, split suffix. */
  locales?: LocaleOptions;
  /** Where the keys of encrypted fields come from (envKeyProvider, staticKeyProvider, or a KMS of your own). */
  keyProvider?: KeyProvider;
  /** File storage for file fields and the `/files` routes, and the multipart upload limit (default 32 MB). */
  files?: FilesConfig;
  /**
   * The most memory, in bytes, kept for recently decrypted values of
   * encrypted fields, by envelope text (default 8 MiB; 0 turns it off: every
   * read decrypts). See docs/encryption.md.
   */
  decryptionCache?: number;
  /** Exports (`GET /<table>/export`) running at once across the server (default 4); one more is 503 EXPORT_BUSY with Retry-After. */
  maxConcurrentExports?: number;
}

/** The configuration with every default filled in. */
export interface ResolvedConfig extends ServerConfig {
  port: number;
  pathPrefix: string;
  queryTimeoutMs: number;
  shutdownTimeoutMs: number;
  healthTimeoutMs: number;
  bodyLimit: number;
  httpMiddlewares: HttpMiddleware[];
  readinessChecks: ReadinessCheck[];
  probes: ProbesConfig;
  handleSignals: boolean;
  maxConcurrentExports: number;
}

/**
 * The configuration with every default of the settings table filled in and
 * every given value checked; durations also in milliseconds.
 *
 * @example
 * resolveConfig({ queryTimeout: '5s' }).queryTimeoutMs; // 5000
 */
export function resolveConfig(config: ServerConfig): ResolvedConfig {
  const resolved: Record<string, unknown> = { ...config };
  for (const [key, setting] of settingRows) {
    if (setting.scope !== 'server') continue;
    let value = resolved[key] ?? setting.default;
    if (value !== undefined && setting.check) value = setting.check(value, key);
    if (value !== undefined) resolved[key] = value;
    if (setting.millis) resolved[setting.millis] = durationMs(value as Duration | undefined, 0, key);
  }
  return resolved as unknown as ResolvedConfig;
}
