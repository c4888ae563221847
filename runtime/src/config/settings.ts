/**
 * The one settings table: every server setting (each key of `ServerConfig`)
 * and every setting of the mfx commands, with its environment variable and
 * command-line flag if any, how their text is read, its default and a doc
 * line. `resolveConfig` takes defaults and checks from it, `loadEnv` and
 * `envToConfig` the variables, the commands their flags and usage text.
 * Adding a setting (a flag such as `--files DIR`) is one row here.
 */
import { ConfigError } from '../errors/api-error.js';
import { resolveLocales } from '../locale/options.js';
import type { KeyProvider } from '../security/encryption/keys.js';
import { diskStorage } from '../files/disk.js';
import type { FilesConfig } from '../files/fields.js';
import { DEFAULT_MULTIPART_LIMIT } from '../http/multipart.js';
import { DEFAULT_DECRYPTION_CACHE_BYTES } from '../security/encryption/plaintext-cache.js';
import type { ServerConfig } from './config.js';
import type { EnvConfig } from './env.js';
import { boolean, duration, host, integer, normalisePrefix, oneOf, type Reader, secret, text } from './readers.js';

export type Command = 'serve' | 'migrate' | 'openapi' | 'diff' | 'rotate-keys' | 'rollups';

/** What the mfx commands read besides the server configuration. */
export interface CommandOptions {
  manifest: string;
  dbWriteUrl: string;
  dbReadUrl?: string;
  app?: string;
  docs: boolean;
  production: boolean;
  /** mfx serve --admin: mount @mfx/admin, gated by the --app module's adminAuth unless adminUnauthenticated. */
  admin: boolean;
  adminUnauthenticated: boolean;
  plan: boolean;
  strict: boolean;
  json: boolean;
  logLevel: LogLevel;
  logFormat: LogFormat;
  watch: boolean;
  /** mfx serve: run the scheduled-transition runner, and how often it sweeps (unset: the app's, else 1m). */
  scheduler: boolean;
  schedulerInterval?: string;
  /** mfx rotate-keys: the key id values are re-encrypted to, the models, where to resume, whether to change nothing. */
  to?: string;
  models?: string[];
  after?: string;
  dryRun: boolean;
}

/** The levels `--log-level` takes, quietest last. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `json`: one JSON object a line (production); `pretty`: one human-readable line (development). */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Where a setting is read from the environment. */
export interface EnvBinding {
  /** The variable; `<PREFIX>_<name>` under a prefix. */
  name: string;
  /**
   * Its field in `loadEnv`'s result, in the variable's own unit: the spec's
   * variables. Absent for the variables only the mfx commands read (the
   * spec fixes the list `loadEnv` reads).
   */
  as?: keyof EnvConfig;
  read: Reader<unknown>;
  /** The setting's value from the variable's (seconds to milliseconds, say). */
  toSetting(value: unknown): unknown;
}

/** Where a setting is read from the command line. */
export interface FlagBinding {
  /** `--name VALUE`, `--name=VALUE`, or `--name` alone for a switch. */
  name: string;
  /** How usage writes the value (`DIR`); absent for a switch. */
  placeholder?: string;
  read?: Reader<unknown>;
  /** What a switch sets. */
  switchTo?: unknown;
}

export interface Setting<T> {
  /** `server`: a `ServerConfig` key, given to createServer; `command`: read by the mfx commands only. */
  scope: 'server' | 'command';
  doc: string;
  /** The mfx commands that read it: from its flag, and from its variable when they read the environment. */
  commands?: readonly Command[];
  /** The value when nothing sets it. */
  default?: T;
  /** Checks (and normalises) a value given in code or filled from the default; throws a ConfigError naming the setting. */
  check?: (value: T, key: string) => T;
  /** The millisecond field of a duration in ResolvedConfig. */
  millis?: 'queryTimeoutMs' | 'shutdownTimeoutMs' | 'healthTimeoutMs';
  env?: EnvBinding;
  flag?: FlagBinding;
}

type Rows<Config, Scope> = { [K in keyof Config]-?: Setting<NonNullable<Config[K]>> & { scope: Scope } };

/** Binds an environment variable; the reader's type is checked against the EnvConfig field. */
function env<A extends keyof EnvConfig, T = NonNullable<EnvConfig[A]>>(
  name: string,
  as: A,
  read: Reader<NonNullable<EnvConfig[A]>>,
  toSetting: (value: NonNullable<EnvConfig[A]>) => T = (value) => value as unknown as T,
): EnvBinding {
  return { name, as, read, toSetting: toSetting as (value: unknown) => unknown };
}

/** Binds a variable only the mfx commands read (not `loadEnv`: the spec fixes its list); its value is the setting's. */
function commandEnv<T>(name: string, read: Reader<T>): EnvBinding {
  return { name, read, toSetting: (value) => value };
}

/** A flag that takes a value. */
function option<T>(name: string, placeholder: string, read: Reader<T>): FlagBinding {
  return { name, placeholder, read };
}

/** A flag without a value. */
function toggle<T>(name: string, switchTo: T): FlagBinding {
  return { name, switchTo };
}

const PORTS = { min: 0, max: 65535 };
const milliseconds = integer(0, Number.MAX_SAFE_INTEGER);
const copy = <T>(list: T[]) => [...list];

function checkKeyProvider(provider: KeyProvider): KeyProvider {
  if (provider === null || typeof provider !== 'object' || typeof provider.key !== 'function') {
    throw new ConfigError('keyProvider must be an object with key(id) returning a 32-byte key (envKeyProvider(), staticKeyProvider({ keys }), or your own)');
  }
  return provider;
}

function checkFiles(files: FilesConfig): FilesConfig {
  const storage = files?.storage as unknown as Record<string, unknown> | undefined;
  const missing = ['put', 'get', 'delete', 'exists'].filter((m) => typeof storage?.[m] !== 'function');
  if (missing.length > 0) {
    throw new ConfigError(`files.storage must be a FileStorage (diskStorage({ dir }), s3Storage({...}) from @mfx/storage-s3, or your own); it lacks ${missing.join(', ')}`);
  }
  const maxUploadBytes = files.maxUploadBytes ?? DEFAULT_MULTIPART_LIMIT;
  if (!Number.isInteger(maxUploadBytes) || maxUploadBytes < 1) {
    throw new ConfigError(`files.maxUploadBytes must be a positive whole number of bytes, got ${String(files.maxUploadBytes)}`);
  }
  return { storage: files.storage, maxUploadBytes };
}

function checkCacheBytes(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new ConfigError(`decryptionCache must be a whole number of bytes, 0 or more (0 turns the cache off), got ${JSON.stringify(bytes)}`);
  return bytes;
}

function checkPort(port: number): number {
  if (!Number.isInteger(port) || port < PORTS.min || port > PORTS.max) throw new ConfigError(`port must be an integer from ${PORTS.min} to ${PORTS.max}, got ${port}`);
  return port;
}

/**
 * Every setting. Row order is the order of flags in usage text and in
 * "unknown flag" messages.
 */
export const settings = {
  manifest: {
    scope: 'command',
    doc: 'the manifest directory written by mfx build',
    default: '.mfx',
    commands: ['serve', 'migrate', 'openapi', 'rotate-keys', 'rollups'],
    flag: option('manifest', 'DIR', text),
  },
  dbWriteUrl: {
    scope: 'command',
    doc: 'database URL: sqlite::memory:, sqlite:PATH or postgres://USER@HOST:PORT/DB',
    default: 'sqlite:./mfx.db',
    commands: ['serve', 'migrate', 'rotate-keys', 'rollups'],
    env: env('DB_WRITE_URL', 'dbWriteUrl', text),
    flag: option('db', 'URL', text),
  },
  dbReadUrl: {
    scope: 'command',
    doc: 'PostgreSQL URL that reads outside transactions go to (a replica)',
    commands: ['serve'],
    env: env('DB_READ_URL', 'dbReadUrl', text),
  },
  port: {
    scope: 'server',
    doc: 'listen port; 0 picks a free one',
    default: 8080,
    check: checkPort,
    commands: ['serve'],
    env: env('PORT', 'port', integer(PORTS.min, PORTS.max)),
    flag: option('port', 'N', integer(PORTS.min, PORTS.max)),
  },
  // mfx serve's listener, logging, cursors and reloading (issue 15).
  host: {
    scope: 'server',
    doc: 'listen address or host name; unset listens on all interfaces',
    commands: ['serve'],
    env: commandEnv('HOST', host),
    flag: option('host', 'ADDR', host),
  },
  logLevel: {
    scope: 'command',
    doc: `the quietest lines logged: ${LOG_LEVELS.join(', ')}`,
    default: 'info',
    commands: ['serve'],
    env: commandEnv('LOG_LEVEL', oneOf(LOG_LEVELS)),
    flag: option('log-level', 'LEVEL', oneOf(LOG_LEVELS)),
  },
  logFormat: {
    scope: 'command',
    doc: 'log lines as json (one object a line) or pretty (readable, for development)',
    default: 'json',
    commands: ['serve'],
    env: commandEnv('LOG_FORMAT', oneOf(LOG_FORMATS)),
    flag: option('log-format', 'json|pretty', oneOf(LOG_FORMATS)),
  },
  cursorSecret: {
    scope: 'server',
    doc: 'secret (16+ characters) that signs keyset cursors, the same on every replica; unset is random per process. Prefer the variable: flags show in ps',
    commands: ['serve'],
    env: commandEnv('CURSOR_SECRET', secret(16)),
    flag: option('cursor-secret', 'SECRET', secret(16)),
  },
  watch: {
    scope: 'command',
    doc: 'reload when the manifest changes: migrate, then serve the new models on the same port',
    default: false,
    commands: ['serve'],
    flag: toggle('watch', true),
  },
  pathPrefix: {
    scope: 'server',
    doc: 'prefix of every route',
    default: '/api',
    check: normalisePrefix,
    commands: ['serve', 'openapi'],
    flag: option('prefix', '/api', text),
  },
  app: {
    scope: 'command',
    doc: 'a module whose default export (app) => void registers hooks, actions and plugins once the database is set, before start; its `export const config` sets server options, which flags and variables override',
    commands: ['serve', 'migrate', 'openapi', 'rollups'],
    flag: option('app', 'FILE.ts', text),
  },
  docs: {
    scope: 'command',
    doc: 'publish GET {prefix}/openapi.json and the documentation page {prefix}/docs without auth (--no-docs: mount neither)',
    default: true,
    commands: ['serve'],
    flag: toggle('no-docs', false),
  },
  production: {
    scope: 'command',
    doc: 'refuse to start while a route has neither an authenticator nor a public declaration',
    default: false,
    commands: ['serve'],
    flag: toggle('production', true),
  },
  admin: {
    scope: 'command',
    doc: 'mount the admin panel (@mfx/admin) at /admin, gated by the --app module\'s `export const adminAuth` (Auth-step hooks)',
    default: false,
    commands: ['serve'],
    flag: toggle('admin', true),
  },
  adminUnauthenticated: {
    scope: 'command',
    doc: 'with --admin: mount the panel without a gate (local development only: anyone who reaches it acts anonymously)',
    default: false,
    commands: ['serve'],
    flag: toggle('admin-unauthenticated', true),
  },
  plan: {
    scope: 'command',
    doc: 'print the SQL the migration would run and every drift, and change nothing',
    default: false,
    commands: ['migrate'],
    flag: toggle('plan', true),
  },
  strict: {
    scope: 'command',
    doc: 'refuse, changing nothing (exit 1), while the database differs from the models in a way that breaks requests: a column of another type, a NOT NULL column no field writes, a NOT NULL column the model declares nullable; each difference is named with the SQL that fixes it. Other drift stays a warning',
    default: false,
    commands: ['migrate'],
    flag: toggle('strict', true),
  },
  // mfx rotate-keys (issue 17): re-encrypting encrypted fields to another key id.
  to: {
    scope: 'command',
    doc: 'the key id every encrypted value is re-encrypted to (required); the key provider (MFX_KEY_* variables) must hold it, the old keys and the index key',
    commands: ['rotate-keys'],
    flag: option('to', 'KEYID', text),
  },
  models: {
    scope: 'command',
    doc: 'rotate only these models (comma-separated names); default every model with encrypted fields',
    commands: ['rotate-keys'],
    flag: option('models', 'A,B', (raw) => raw.split(',').map((name) => name.trim()).filter(Boolean)),
  },
  after: {
    scope: 'command',
    doc: "resume after the lastId an interrupted run printed (Model:id)",
    commands: ['rotate-keys'],
    flag: option('after', 'ID', text),
  },
  dryRun: {
    scope: 'command',
    doc: 'run the preflight (open every envelope, check every blind index) and report what would change; change nothing',
    default: false,
    commands: ['rotate-keys'],
    flag: toggle('dry-run', true),
  },
  json: {
    scope: 'command',
    doc: 'print the changes as JSON: { breaking, changes: [{ area, breaking, subject, change }] }',
    default: false,
    commands: ['diff'],
    flag: toggle('json', true),
  },
  documentation: { scope: 'server', doc: 'publishes /openapi.json when set (public, or guarded by auth hooks), and with public the page /docs (unless page: false); unset mounts no spec route' },
  serviceName: {
    scope: 'server',
    doc: 'adds `service` to log lines and an X-Service-Name response header',
    commands: ['serve'],
    env: env('SERVICE_NAME', 'serviceName', text),
  },
  db: { scope: 'server', doc: 'the database adapter; required before start (or app.setDB)' },
  disableAutoMigrate: { scope: 'server', doc: 'skip the migration on start', default: false },
  strictMigrations: {
    scope: 'server',
    doc: 'refuse to start, changing nothing, while the database differs from the models in a way that breaks requests (a column of another type, a NOT NULL column no field writes, a NOT NULL column the model declares nullable); each difference is named with the SQL that fixes it. Other drift stays a warning. With disableAutoMigrate, missing tables and columns refuse too',
    default: false,
    commands: ['serve'],
    env: env('STRICT_MIGRATIONS', 'strictMigrations', boolean),
    flag: toggle('strict-migrations', true),
  },
  queryTimeout: {
    scope: 'server',
    doc: 'per-request deadline inherited by every database call; 0 is unlimited',
    default: 0,
    millis: 'queryTimeoutMs',
    commands: ['serve'],
    env: env('QUERY_TIMEOUT_MS', 'queryTimeoutMs', milliseconds),
  },
  queryLimits: { scope: 'server', doc: 'caps on query complexity (filters, sorts, includes, ...)' },
  httpAccessControlled: { scope: 'server', doc: 'asserts that global HTTP middleware protects every route (checked by validateProduction)', default: false },
  httpMiddlewares: { scope: 'server', doc: 'router-level middleware that runs before routing and Auth', default: [], check: copy },
  shutdownTimeout: {
    scope: 'server',
    doc: 'graceful shutdown budget',
    default: 30_000,
    millis: 'shutdownTimeoutMs',
    commands: ['serve'],
    env: env('SHUTDOWN_TIMEOUT_S', 'shutdownTimeoutS', milliseconds, (seconds) => seconds * 1000),
  },
  logger: { scope: 'server', doc: 'where log lines go (default JSON lines on stdout)' },
  panicLogger: { scope: 'server', doc: 'where panics are logged (default the logger)' },
  trace: { scope: 'server', doc: 'pipeline trace flags: enabled, steps, timings, aborts, bodies, skips' },
  healthCheckDB: {
    scope: 'server',
    doc: 'makes /health ping the database',
    default: false,
    commands: ['serve'],
    env: env('HEALTH_CHECK_DB', 'healthCheckDB', boolean),
  },
  readinessChecks: { scope: 'server', doc: 'extra readiness dependencies {name, check}', default: [], check: copy },
  healthTimeout: { scope: 'server', doc: 'shared budget for dependency checks', default: 3_000, millis: 'healthTimeoutMs' },
  probes: { scope: 'server', doc: 'probe middleware, per-probe middleware and disabling, publishReadinessChecks', default: {} },
  trustProxyHeaders: { scope: 'server', doc: 'take the client address from X-Forwarded-For', default: false },
  readPrimaryHeader: {
    scope: 'server',
    doc: 'honour X-Read-Primary: 1, which sends a request\'s reads to the primary instead of the read replica (--no-read-primary-header ignores it)',
    default: true,
    commands: ['serve'],
    flag: toggle('no-read-primary-header', false),
  },
  staticDir: { scope: 'server', doc: 'static files served outside the path prefix' },
  bodyLimit: { scope: 'server', doc: 'JSON body limit in bytes', default: 4 * 1024 * 1024 },
  handleSignals: { scope: 'server', doc: 'stop gracefully on SIGTERM and SIGINT', default: true },
  locales: {
    scope: 'server',
    doc: 'localized fields: supported codes (default any), default (en), fromHeader (Accept-Language, default false), rtl codes, defaultMode (split), splitSuffix (_i18n)',
    check: (locales) => (resolveLocales(locales), locales),
  },
  maxConcurrentExports: {
    scope: 'server',
    doc: 'exports (GET /<table>/export) running at once across the server; one more is 503 EXPORT_BUSY with Retry-After',
    default: 4,
    check: (value, key) => {
      if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${key} must be a whole number of at least 1, got ${String(value)}`);
      return value;
    },
    commands: ['serve'],
    env: commandEnv('MAX_CONCURRENT_EXPORTS', integer(1, 10_000)),
    flag: option('max-concurrent-exports', 'N', integer(1, 10_000)),
  },
  keyProvider: {
    scope: 'server',
    doc: 'the keys of encrypted fields by key id: envKeyProvider() (MFX_KEY_<ID> variables; mfx serve uses it when one is set), staticKeyProvider({ keys }), or your own { key(id), indexKeyId }',
    check: checkKeyProvider,
  },
  files: {
    scope: 'server',
    doc: `file storage for file fields and the /files routes: { storage, maxUploadBytes (default ${DEFAULT_MULTIPART_LIMIT} bytes) }; --files DIR stores them on disk in DIR`,
    commands: ['serve', 'openapi'],
    flag: option('files', 'DIR', (raw): FilesConfig => ({ storage: diskStorage({ dir: raw }) })),
    check: checkFiles,
  },
  decryptionCache: {
    scope: 'server',
    doc: 'the most memory, in bytes, kept for recently decrypted values of encrypted fields, keyed by their envelope (plaintexts stay in memory while cached); 0 turns it off and every read decrypts',
    default: DEFAULT_DECRYPTION_CACHE_BYTES,
    check: checkCacheBytes,
    commands: ['serve'],
    flag: option('decryption-cache', 'BYTES', integer(0, Number.MAX_SAFE_INTEGER)),
  },
  // mfx serve's scheduled-transition runner (issue 22).
  scheduler: {
    scope: 'command',
    doc: 'run the scheduled-transition runner, which applies `scheduled` fields whose time has passed (--no-scheduler: this replica does not; run it in one replica, or call app.sweepScheduled() yourself)',
    default: true,
    commands: ['serve'],
    flag: toggle('no-scheduler', false),
  },
  schedulerInterval: {
    scope: 'command',
    doc: "how often the scheduled-transition runner sweeps (default 1m, or the --app module's app.scheduler({ interval }))",
    commands: ['serve'],
    env: commandEnv('SCHEDULER_INTERVAL', duration),
    flag: option('scheduler-interval', 'DURATION', duration),
  },
} satisfies Rows<ServerConfig, 'server'> & Rows<CommandOptions, 'command'>;

export type SettingKey = keyof typeof settings;

/** The rows in table order, with their keys. */
export const settingRows = Object.entries(settings) as [SettingKey, Setting<unknown>][];

