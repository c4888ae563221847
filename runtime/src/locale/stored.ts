/**
 * Reading a localized column's JSON text (SQLite hands it over as text) into
 * the value records hold, through a bounded cache of parsed maps keyed by
 * the whole stored text. `JSON.parse` of the two maps of each row was the
 * largest cost a localized list adds (about 110k of 320k instructions a
 * list of 20, docs/decisions.md); a hit is a Map read (the text hashed
 * natively) and a shallow copy.
 *
 * Why the whole text is the key: equal texts parse to equal values, so a
 * hit answers exactly what parsing would. The decryption cache's slot (a
 * few characters of the tail) does not fit here: locale maps of many rows
 * end alike (`… seit 1995."}`), so their slots would collide.
 *
 * Why a copy: records are handed to hooks, observers and events, which may
 * change a map in place; the kept map is never handed out, each decode gets
 * its own object (same keys, order and values as a parse). Only maps whose
 * values are all primitives are kept, so a shallow copy is a whole copy;
 * anything else (nested values, arrays, a legacy scalar, text that is not
 * JSON) is parsed every time, as before.
 */
import { BoundedCache } from '../util/bounded-cache.js';
import { jsonOrText } from '../util/json-text.js';

/** Bytes of parsed maps kept per process (maps are not secret, unlike decrypted values; one budget for every app). */
export const LOCALE_MAP_CACHE_BYTES = 4 * 1024 * 1024;

/** Bytes an entry is counted beyond its text: the Map slot, the map object and its property slots. */
const ENTRY_OVERHEAD = 128;

/** Parsed stored texts, counted twice (the key, and the map's strings, which hold about as many characters) at two bytes a character. */
const parsed = new BoundedCache<string, Record<string, unknown>>(LOCALE_MAP_CACHE_BYTES, (text) => 4 * text.length + ENTRY_OVERHEAD);

/** Whether a parsed value is an object of primitive values only (what a shallow copy copies whole). */
function isFlatObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null) return false;
  }
  return true;
}

/**
 * The value of a localized column stored as text: its map (a fresh object
 * each call), or the text itself when it is not JSON.
 *
 * @example
 * storedLocalized('{"en":"Hello","de":"Hallo"}'); // { en: 'Hello', de: 'Hallo' }
 * storedLocalized('Hello'); // 'Hello' (a scalar left by older data)
 */
export function storedLocalized(text: string): unknown {
  const kept = parsed.get(text);
  if (kept !== undefined) return { ...kept };
  const value = jsonOrText(text);
  if (isFlatObject(value)) parsed.add(text, { ...value });
  return value;
}

/** How many maps and (estimated) bytes the cache holds (tests). */
export const storedLocalizedCacheSize = (): { entries: number; bytes: number } => parsed.size;
