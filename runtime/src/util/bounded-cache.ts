/**
 * The one rule of the runtime's read caches (decrypted values, parsed
 * locale maps, the events an outbox wrote): a Map bounded by an estimate of the bytes its entries hold,
 * first in first out. A lookup is one Map read: a hit does not move the
 * entry (moving it cost more than the rest of a read), so a value still
 * read after its eviction is worked out once more. An entry larger than
 * 1/16 of the budget is never kept, so one value cannot empty the cache,
 * and a key already held keeps its first value.
 *
 * @example
 * const cache = new BoundedCache<string, number>(1024, (text) => 2 * text.length + 32);
 * cache.add('forty-two', 42);
 * cache.get('forty-two'); // 42
 */
export class BoundedCache<K, V> {
  /** Entries in the order they were kept (oldest first), each with the size it was counted at. */
  private readonly entries = new Map<K, { readonly value: V; readonly size: number }>();
  private bytes = 0;
  private readonly largest: number;

  constructor(
    readonly maxBytes: number,
    /** The estimated bytes of an entry, its key included (called once, when it is added). */
    private readonly sizeOf: (key: K, value: V) => number,
  ) {
    this.largest = Math.floor(maxBytes / 16);
  }

  /** The value kept under `key`, or undefined. */
  get(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Keeps `value` under `key` unless the key is held already or the entry is too large; evicts the oldest beyond the budget. */
  add(key: K, value: V): void {
    const size = this.sizeOf(key, value);
    if (size > this.largest || this.entries.has(key)) return;
    this.entries.set(key, { value, size });
    this.bytes += size;
    while (this.bytes > this.maxBytes) {
      const [oldest, entry] = this.entries.entries().next().value as [K, { size: number }];
      this.entries.delete(oldest);
      this.bytes -= entry.size;
    }
  }

  /** Removes the entry of `key` and hands back its value (undefined when none is kept). */
  take(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.bytes -= entry.size;
    return entry.value;
  }

  /** How many entries and (estimated) bytes it holds. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
