import type { Adapter } from '../db/adapter.js';
import { ConfigError } from '../errors/api-error.js';
import type { Logger } from '../log/logger.js';
import type { QueryLimits } from '../manifest/types.js';
import type { TraceConfig } from '../pipeline/pipeline.js';
import type { Hook } from '../pipeline/types.js';
import type { HttpMiddleware, ProbesConfig, ReadinessCheck } from '../probes/probes.js';

/** A duration: milliseconds as a number, or a string such as `250ms`, `5s`, `2m`. */
export type Duration = number | string;

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
}

/**
 * Server configuration: the spec's Configuration table in camelCase.
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
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a Duration; a bad value is an error naming the setting. */
export function durationMs(value: Duration | undefined, fallback: number, setting: string): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new ConfigError(`${setting} must be a non-negative number of milliseconds, got ${value}`);
    return value;
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(value);
  if (!match) throw new ConfigError(`${setting} must be a duration such as "500ms", "5s" or "2m", got "${value}"`);
  return Number(match[1]) * units[match[2]];
}

export function normalisePrefix(prefix: string | undefined): string {
  if (prefix === undefined) return '/api';
  const trimmed = prefix.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

export function resolveConfig(config: ServerConfig): ResolvedConfig {
  const port = config.port ?? 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`port must be an integer from 0 to 65535, got ${port}`);
  return {
    ...config,
    port,
    pathPrefix: normalisePrefix(config.pathPrefix),
    queryTimeoutMs: durationMs(config.queryTimeout, 0, 'queryTimeout'),
    shutdownTimeoutMs: durationMs(config.shutdownTimeout, 30_000, 'shutdownTimeout'),
    healthTimeoutMs: durationMs(config.healthTimeout, 3_000, 'healthTimeout'),
    bodyLimit: config.bodyLimit ?? 4 * 1024 * 1024,
    httpMiddlewares: [...(config.httpMiddlewares ?? [])],
    readinessChecks: [...(config.readinessChecks ?? [])],
    probes: config.probes ?? {},
    handleSignals: config.handleSignals ?? true,
  };
}
