/**
 * PostgreSQL timestamps as the ISO strings mfx answers with.
 *
 * pg's own parser (postgres-date) runs three regular expressions and builds a
 * Date for every value, which costs more than the rest of a row: a list of 20
 * posts parses 40 timestamps. A timestamptz read in a UTC session with at most
 * millisecond digits, the shape of every timestamp mfx writes, is rewritten as
 * text instead; anything else (another time zone, microseconds, BC, infinity,
 * a timestamp without time zone) goes through pg's parser as before.
 */

/** `2025-01-07 22:39:00+00`, `2025-01-07 22:39:00.12+00`: a UTC timestamptz with 0 to 3 fraction digits. */
const UTC_MILLIS = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,3}))?\+00$/;

/**
 * The ISO string of a timestamp's text (`toISOString()` of what `parse`
 * gives), or the text itself when `parse` gives no valid Date.
 *
 * @example
 * isoTimestamp('2025-01-07 22:39:00.5+00', parse) // '2025-01-07T22:39:00.500Z'
 */
export function isoTimestamp(text: string, parse: (text: string) => unknown): string {
  const utc = UTC_MILLIS.exec(text);
  // Trailing zeros are left out of PostgreSQL's text: `.5` is 500 ms.
  if (utc) return `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(3, '0')}Z`;
  const parsed = parse(text) as Date | number;
  return parsed instanceof Date && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : text;
}
