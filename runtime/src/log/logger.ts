import { pino } from 'pino';
import { LineWriter } from './line-writer.js';
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
 * 'pretty'`), with the service name when one is set. Lines are batched and
 * written asynchronously (see LineWriter: at 16 KiB, or 100 ms after the
 * first line of a batch); `flush()` and process exit write what is left,
 * `settle()` without blocking.
 *
 * @example
 * const logger = defaultLogger(undefined, { level: 'warn', format: 'pretty' });
 */
export function defaultLogger(serviceName?: string, options: LogOptions = {}): Logger & { flush(): void; settle(): Promise<void>; outputClosed(): void } {
  // Once stdout's reader has gone, lines are dropped: the writer closes on EPIPE, or when another writer of stdout saw it first.
  const destination = new LineWriter(1, { onClosed: options.onClosed });
  const flush = () => destination.flushSync();
  const settle = () => destination.settle();
  const outputClosed = () => destination.close();
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
  // The message's JSON, kept for the next line: the access log writes the same message on every line.
  let message = '';
  let messageJson = '""';
  // The time's text, kept for the lines of the same millisecond (a 13-digit number is printed as a double).
  let time = 0;
  let timeText = '0';
  const writeInfo: InfoMembersWriter = (members, text) => {
    if (logger.levelVal > INFO) return;
    if (text !== message) messageJson = JSON.stringify((message = text));
    const now = Date.now();
    if (now !== time) timeText = String((time = now));
    stream.write(`{"level":${INFO},"time":${timeText}${base},${members},"msg":${messageJson}}\n`);
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
