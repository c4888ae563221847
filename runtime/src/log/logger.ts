import { pino } from 'pino';
import { prettyDestination } from './pretty.js';

/** The logging surface mfx uses; pino loggers satisfy it as they are. */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

export interface LogOptions {
  /** The quietest lines written (default `info`); `silent` writes none. */
  level?: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** `json` (default): one JSON object a line; `pretty`: one readable line (see log/pretty.ts). */
  format?: 'json' | 'pretty';
  /** Called once when stdout's reader has gone (EPIPE); the lines after it are dropped. */
  onClosed?: () => void;
}

/**
 * One JSON object a line on stdout (or a readable line with `format:
 * 'pretty'`), with the service name when one is set. Lines are buffered and
 * written asynchronously (a synchronous write per request line costs more
 * than the request itself), at the latest every 250 ms; `flush()` and
 * process exit write what is left.
 *
 * @example
 * const logger = defaultLogger(undefined, { level: 'warn', format: 'pretty' });
 */
export function defaultLogger(serviceName?: string, options: LogOptions = {}): Logger & { flush(): void } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024 });
  // pino drops the lines after an EPIPE itself; this only tells the caller.
  const onClosed = options.onClosed;
  if (onClosed) destination.on('error', (error: NodeJS.ErrnoException) => error.code === 'EPIPE' && onClosed());
  // A quiet server still shows its lines within a quarter second.
  setInterval(() => destination.flush(), 250).unref();
  process.once('exit', () => destination.flushSync());
  const settings = { base: serviceName ? { service: serviceName } : {}, level: options.level ?? 'info' };
  const logger = options.format === 'pretty' ? pino(settings, prettyDestination(destination)) : pino(settings, destination);
  return Object.assign(logger, { flush: () => destination.flushSync() });
}

/** Writes buffered lines now, when the logger buffers (pino does). */
export function flushLogger(logger: Logger): void {
  try {
    (logger as Partial<{ flush(): void }>).flush?.();
  } catch {
    // A logger that cannot flush (closed stream) must not break shutdown.
  }
}

/** Adds the `service` attribute to every line of a caller-supplied logger. */
export function withService(logger: Logger, serviceName: string | undefined): Logger {
  if (!serviceName) return logger;
  const add = (fields: object) => ({ service: serviceName, ...fields });
  return {
    debug: (f, m) => logger.debug(add(f), m),
    info: (f, m) => logger.info(add(f), m),
    warn: (f, m) => logger.warn(add(f), m),
    error: (f, m) => logger.error(add(f), m),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
