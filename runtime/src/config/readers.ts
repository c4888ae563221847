/**
 * How settings are read from text (environment variables and command-line
 * flags) and checked when given in code. A reader throws an Error whose
 * message completes "<where the text came from> ...", e.g.
 * `must be a whole number from 0 to 65535`; the caller names the variable or
 * flag.
 */
import { ConfigError } from '../errors/api-error.js';

/**
 * Reads one setting from text; throws an Error saying what the text must be.
 * `secret` marks text that messages must not repeat (they show `***`).
 */
export type Reader<T> = ((raw: string) => T) & { secret?: true };

/**
 * The text as a message about it may show it: quoted, or `***` for a secret.
 *
 * @example
 * `flag --port=${shown(reader, raw)} ${error.message}`; // flag --port="eighty" must be ...
 */
export function shown(read: Reader<unknown>, raw: string): string {
  return read.secret ? '***' : `"${raw}"`;
}

/** A duration: milliseconds as a number, or a string such as `250ms`, `5s`, `2m`. */
export type Duration = number | string;

export const text: Reader<string> = (raw) => raw;

/**
 * A whole number in a range.
 *
 * @example
 * integer(0, 65535)('8080'); // 8080
 */
export function integer(min: number, max: number): Reader<number> {
  return (raw) => {
    const value = Number(raw);
    if (!/^\s*\d+\s*$/.test(raw) || value < min || value > max) throw new Error(`must be a whole number from ${min} to ${max}`);
    return value;
  };
}

/**
 * One of a few words, compared without case.
 *
 * @example
 * oneOf(['json', 'pretty'] as const)('Pretty'); // 'pretty'
 */
export function oneOf<T extends string>(words: readonly T[]): Reader<T> {
  return (raw) => {
    const value = raw.trim().toLowerCase();
    if (!(words as readonly string[]).includes(value)) throw new Error(`must be one of ${words.join(', ')}`);
    return value as T;
  };
}

/**
 * A secret of at least `min` characters (a short one is guessable).
 *
 * @example
 * secret(16)(process.env.CURSOR_SECRET!);
 */
export function secret(min: number): Reader<string> {
  const read = (raw: string) => {
    if (raw.length < min) throw new Error(`must be at least ${min} characters; use 32 random bytes, e.g. \`openssl rand -base64 32\``);
    return raw;
  };
  return Object.assign(read, { secret: true as const });
}

/** A host name or address to listen on. */
export const host: Reader<string> = (raw) => {
  const value = raw.trim();
  if (value === '' || /\s/.test(value)) throw new Error('must be a host name or an address such as 127.0.0.1 or ::');
  return value;
};

export const boolean: Reader<boolean> = (raw) => {
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new Error('must be true or false (also 1/0, yes/no, on/off)');
};

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Milliseconds of a Duration; a bad value is an error naming the setting.
 *
 * @example
 * durationMs('5s', 0, 'queryTimeout'); // 5000
 */
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

/**
 * A duration written as text (`500ms`, `30s`, `1m`, `2h`), at least 1ms; kept as written.
 *
 * @example
 * duration('1m'); // '1m'
 */
export const duration: Reader<string> = (raw) => {
  const value = raw.trim();
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value);
  if (!match || Number(match[1]) * units[match[2]] < 1) throw new Error('must be a duration such as 30s, 1m or 2h');
  return value;
};

/**
 * The path prefix as routes use it: a leading slash, no trailing one, `''` for none.
 *
 * @example
 * normalisePrefix('v1/'); // '/v1'
 */
export function normalisePrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}
