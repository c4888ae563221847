import { pino } from 'pino';
import { prettyDestination } from './pretty.js';

/** The logging surface mfx uses; pino loggers satisfy it as they are. */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

/**
 * Where mfx's own logger takes an info line whose fields are already JSON
 * text (object members, without the braces): the access log, which would
 * otherwise build an object per request for pino to take apart again.
 * Absent on any other logger.
 */
export const infoMembers = Symbol('mfx.infoMembers');
export type InfoMembersWriter = (members: string, message: string) => void;

export interface LogOptions {
  /** The quietest lines written (default `info`); `silent` writes none. */
  level?: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** `json` (default): one JSON object a line; `pretty`: one readable line (see log/pretty.ts). */
  format?: 'json' | 'pretty';
  /** Called once when stdout's reader has gone (EPIPE, or `outputClosed()` from whoever saw it first); the lines after it are dropped. */
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
export function defaultLogger(serviceName?: string, options: LogOptions = {}): Logger & { flush(): void; settle(): Promise<void>; outputClosed(): void } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024 });
  // Once stdout's reader has gone, lines are dropped (pino does that itself after an EPIPE) and never
  // flushed synchronously: sonic-boom's flushSync retries a write that fails with EPIPE forever.
  let closed = false;
  const closedBy = (error: NodeJS.ErrnoException) => {
    if (closed || error.code !== 'EPIPE') return;
    closed = true;
    options.onClosed?.();
  };
  destination.on('error', closedBy);
  // Another writer saw the EPIPE first (process.stdout): pino is told as if its own write had failed,
  // so it drops its lines, and its exit handler does not flush them synchronously either.
  const outputClosed = () => {
    if (!closed) destination.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
  };
  const flush = () => {
    if (!closed) destination.flushSync();
  };
  // Written without blocking; a write that finds the reader gone ends it (flushSync would retry it forever).
  const settle = () => (closed ? Promise.resolve() : new Promise<void>((resolve) => destination.flush(() => resolve())));
  // A quiet server still shows its lines within a quarter second.
  setInterval(() => destination.flush(), 250).unref();
  process.once('exit', flush);
  const logger = lineLogger(serviceName, options.level ?? 'info', options.format === 'pretty' ? prettyDestination(destination) : destination);
  return Object.assign(logger, { flush, settle, outputClosed });
}

/**
 * pino on a stream of JSON lines (with the service name when one is set),
 * with the `infoMembers` writer beside it.
 *
 * @example
 * const logger = lineLogger('blog', 'info', { write: (line) => lines.push(line) });
 */
export function lineLogger(serviceName: string | undefined, level: NonNullable<LogOptions['level']>, stream: { write(line: string): unknown }) {
  const logger = pino({ base: serviceName ? { service: serviceName } : {}, level }, stream);
  // The line pino writes for logger.info(fields, message), member for member: level, time, base, fields, msg.
  const base = serviceName ? `,"service":${JSON.stringify(serviceName)}` : '';
  const writeInfo: InfoMembersWriter = (members, message) => {
    if (logger.levelVal > INFO) return;
    stream.write(`{"level":${INFO},"time":${Date.now()}${base},${members},"msg":${JSON.stringify(message)}}\n`);
  };
  return Object.assign(logger, { [infoMembers]: writeInfo });
}

/** pino's number for the info level. */
const INFO = 30;

/** Writes buffered lines now, when the logger buffers (pino does). */
export function flushLogger(logger: Logger): void {
  try {
    (logger as Partial<{ flush(): void }>).flush?.();
  } catch {
    // A logger that cannot flush (closed stream) must not break shutdown.
  }
}

/**
 * Writes buffered lines before the process ends: without blocking when the
 * logger can (`defaultLogger`'s `settle`), else as flushLogger does.
 *
 * @example
 * await settleLogger(app.log);
 */
export async function settleLogger(logger: Logger): Promise<void> {
  const settling = (logger as Partial<{ settle(): Promise<void> }>).settle;
  if (!settling) return flushLogger(logger);
  try {
    await settling.call(logger);
  } catch {
    // A logger that cannot write any more must not break shutdown.
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
