/**
 * The NUL character (U+0000): no column can hold it. PostgreSQL's text and
 * jsonb refuse it (SQLite would store it), so mfx refuses it on every
 * database: in query parameters (400), in path ids (no row has such an id:
 * 404) and in body values (422 naming the field).
 */

/** How a refusal names the problem, after the thing that carries it. */
export const NUL_REFUSAL = 'contains a NUL character, which no field can hold';

/**
 * Whether text carries a NUL character.
 *
 * @example hasNul('a\0b') // true
 */
export function hasNul(text: string): boolean {
  return text.includes('\0');
}

/** The only way JSON text writes a NUL character is the escape `\u0000` (a raw one is invalid JSON). */
const NUL_ESCAPE = Buffer.from('\\u0000');

/**
 * Whether a raw JSON body may carry a NUL character: one native scan of its
 * bytes, so bodies without one (nearly all) are never walked value by value.
 * A hit can be a false alarm (an escaped backslash before `u0000`); the walk
 * that follows decides.
 *
 * @example mayHoldNul(Buffer.from('{"a":"x\\u0000"}')) // true
 */
export function mayHoldNul(raw: Buffer): boolean {
  return raw.includes(NUL_ESCAPE);
}
