/**
 * Log lines for people (`mfx serve --log-format pretty`): the time, the
 * level, the message and the fields as `key=value`, one line each. An access
 * line reads `GET /api/posts 200 3.1ms`. The JSON lines stay the format for
 * machines; this one is for a terminal during development.
 */

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** What every JSON line carries and a person does not need to read each time. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);
/** Fields an access line shows in its own words. */
const ACCESS = new Set(['method', 'path', 'status', 'durationMs', 'traceId']);

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function clock(time: unknown): string {
  const at = typeof time === 'number' ? new Date(time) : new Date();
  return `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/**
 * One JSON log record as a readable line (with its newline).
 *
 * @example
 * prettyLine({ level: 30, time: Date.now(), msg: 'listening', url: 'http://localhost:8080/api' });
 * // '14:03:07.412 INFO  listening url=http://localhost:8080/api\n'
 */
export function prettyLine(record: Record<string, unknown>): string {
  const level = (LEVELS[record.level as number] ?? String(record.level)).padEnd(5);
  const access = record.msg === 'request' && typeof record.method === 'string';
  const head = access ? `${record.method} ${String(record.path)} ${String(record.status)} ${String(record.durationMs)}ms` : String(record.msg ?? '');
  const fields = Object.entries(record)
    .filter(([key, value]) => !OMITTED.has(key) && value !== undefined && !(access && ACCESS.has(key)))
    .map(([key, value]) => `${key}=${valueText(value)}`);
  // A stack reads best as it was written, under its line.
  const stack = typeof record.err === 'string' && record.err.includes('\n') ? record.err : '';
  const line = [clock(record.time), level, head, ...fields.filter((f) => !stack || !f.startsWith('err='))].join(' ');
  return `${line}${stack ? `\n  ${stack.split('\n').join('\n  ')}` : ''}\n`;
}

/**
 * A destination for pino that writes each line as `prettyLine` reads it.
 *
 * @example
 * pino({}, prettyDestination(pino.destination(1)));
 */
export function prettyDestination<D extends { write(text: string): unknown }>(out: D): { write(line: string): void } {
  return {
    write(line) {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      out.write(prettyLine(record));
    },
  };
}
