/**
 * Time-ordered UUIDs (RFC 9562 version 7) for the ids the runtime makes of
 * rows it appends to its own tables: events in the outbox and jobs in the SQL
 * queue. A random (version 4) id lands each insert of its primary-key index on
 * a random leaf, so the pages a commit writes to the WAL, and the distinct
 * pages a checkpoint copies back, are scattered over the whole index and fall
 * out of the page cache as it grows; ids made one after another sort one after
 * another, so inserts append to the index's last leaf, as the rowid table's do.
 */
import { randomUUID } from 'node:crypto';

/** Two hex digits of each byte value. */
const HEX: readonly string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * A version 7 UUID: 48 bits of Unix milliseconds, the version digit 7, then
 * 74 random bits (the variant bits between them). Made from a version 4 UUID
 * (node hands those out from a pool of random bytes, cheaper than asking for
 * random bytes per id) whose first 48 bits are replaced by the clock.
 *
 * @example
 * timeOrderedUuid(Date.UTC(2026, 0, 1)) // '019b76da-a800-7xxx-yxxx-xxxxxxxxxxxx', y one of 8, 9, a, b
 */
export function timeOrderedUuid(now: number = Date.now()): string {
  const random = randomUUID();
  // The 48 bits as two 24-bit halves, each a small integer: a double's toString(16) goes through fmod digit by digit.
  const high = Math.floor(now / 0x1000000);
  const low = now - high * 0x1000000;
  // random: xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx; from index 15 on it is the random rest after the version digit.
  return `${HEX[(high >> 16) & 0xff]}${HEX[(high >> 8) & 0xff]}${HEX[high & 0xff]}${HEX[low >> 16]}-${HEX[(low >> 8) & 0xff]}${HEX[low & 0xff]}-7${random.slice(15)}`;
}

/**
 * The last 64 bits of a UUID as 16 hex digits: on a version 4 or 7 UUID they
 * are random but for the two variant bits, which also keep them from being
 * all zero (what a W3C span id must not be). The clock part of a version 7
 * id would give every event of one millisecond the same span id.
 *
 * @example
 * randomTail('019b76da-a800-7123-8456-0123456789ab') // '84560123456789ab'
 */
export function randomTail(uuid: string): string {
  return `${uuid.slice(19, 23)}${uuid.slice(24, 36)}`;
}
