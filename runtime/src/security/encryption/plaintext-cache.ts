/**
 * A bounded cache of decrypted values, each found by the full envelope text
 * (`enc:...`; looked up by a slot from its last characters, a hit only when
 * the whole text is equal). Opening an AES-GCM envelope with node:crypto costs several
 * microseconds and a native cipher object per value; a list of 20 records
 * with two encrypted fields opens 40. The envelope names its key id and
 * carries a fresh random nonce and its own authentication tag, so its text
 * identifies one value: a hit gives exactly what decrypting it gave, and a
 * tampered envelope is another text, a miss, and fails authentication as
 * before. Only values that decrypted are kept.
 *
 * What it keeps in memory: envelope texts and their plaintexts, for the
 * most recently decrypted values, up to `maxBytes` (estimated as two bytes per
 * character of both, plus a fixed overhead per entry), oldest out first;
 * a value larger than 1/16 of the budget is never kept. `decryptionCache: 0` turns it off.
 */

import { BoundedCache } from '../../util/bounded-cache.js';

/** Bytes an entry is counted beyond its two strings (the Map slot and the string headers). */
const ENTRY_OVERHEAD = 96;

/** One decrypted value: the whole envelope text it came from, compared on every hit. */
interface Entry {
  readonly envelope: string;
  readonly plaintext: string;
}

/**
 * The slot of an envelope: a small integer from its last 8 characters,
 * base64 of its random nonce-derived bytes (ciphertext, else the tag), so
 * envelopes spread over 30 bits. A Map keyed by the whole text hashes every
 * character of each fresh string a row brings (about 80 of them, 20 rows
 * and two fields a list); this reads 8, and a hit still requires the whole
 * text to be equal.
 */
function slotOf(envelope: string): number {
  let hash = 0;
  for (let i = envelope.length > 8 ? envelope.length - 8 : 0; i < envelope.length; i++) hash = (hash * 31 + envelope.charCodeAt(i)) | 0;
  return hash & 0x3fffffff;
}

export class PlaintextCache {
  /** Entries by slot, under the budget rule of every read cache (util/bounded-cache.ts). */
  private readonly entries: BoundedCache<number, Entry>;

  constructor(readonly maxBytes: number) {
    this.entries = new BoundedCache(maxBytes, (_slot, entry) => 2 * (entry.envelope.length + entry.plaintext.length) + ENTRY_OVERHEAD);
  }

  /** The plaintext of an envelope decrypted recently, or undefined (eviction is first in, first out). */
  get(envelope: string): string | undefined {
    const entry = this.entries.get(slotOf(envelope));
    return entry !== undefined && entry.envelope === envelope ? entry.plaintext : undefined;
  }

  /**
   * Keeps what an envelope decrypted to, evicting the oldest entries beyond
   * the budget. A slot another envelope holds is left to it (two envelopes
   * sharing 30 bits are rare): the newcomer is decrypted each time it is read.
   */
  set(envelope: string, plaintext: string): void {
    this.entries.add(slotOf(envelope), { envelope, plaintext });
  }

  /** How many values and (estimated) bytes it holds. */
  get size(): { entries: number; bytes: number } {
    return this.entries.size;
  }
}

/** The default budget: 8 MiB, about 30,000 short values (an e-mail address, a phone number). */
export const DEFAULT_DECRYPTION_CACHE_BYTES = 8 * 1024 * 1024;
