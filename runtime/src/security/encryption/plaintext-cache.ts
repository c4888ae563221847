/**
 * A bounded cache of decrypted values, keyed by the full envelope text
 * (`enc:...`). Opening an AES-GCM envelope with node:crypto costs several
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

/** Bytes an entry is counted beyond its two strings (the Map slot and the string headers). */
const ENTRY_OVERHEAD = 96;

export class PlaintextCache {
  private readonly entries = new Map<string, string>();
  private bytes = 0;
  private readonly largest: number;

  constructor(readonly maxBytes: number) {
    this.largest = Math.floor(maxBytes / 16);
  }

  /**
   * The plaintext of an envelope decrypted recently, or undefined. A hit
   * does not move the entry: eviction is first in, first out, so a lookup
   * is one Map read (moving it cost more than the rest of the read), and a
   * value still read after its eviction is decrypted once more.
   */
  get(envelope: string): string | undefined {
    return this.entries.get(envelope);
  }

  /** Keeps what an envelope decrypted to, evicting the oldest entries beyond the budget. */
  set(envelope: string, plaintext: string): void {
    const size = 2 * (envelope.length + plaintext.length) + ENTRY_OVERHEAD;
    if (size > this.largest || this.entries.has(envelope)) return;
    this.entries.set(envelope, plaintext);
    this.bytes += size;
    while (this.bytes > this.maxBytes) {
      const [oldest, value] = this.entries.entries().next().value as [string, string];
      this.entries.delete(oldest);
      this.bytes -= 2 * (oldest.length + value.length) + ENTRY_OVERHEAD;
    }
  }

  /** How many values and (estimated) bytes it holds. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

/** The default budget: 8 MiB, about 30,000 short values (an e-mail address, a phone number). */
export const DEFAULT_DECRYPTION_CACHE_BYTES = 8 * 1024 * 1024;
