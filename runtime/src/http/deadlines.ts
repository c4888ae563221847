/** A request with a deadline: the queue links its entries through these fields, so queueing allocates nothing. */
export interface DeadlineEntry {
  /** When the deadline passes, in `performance.now()` time. */
  due: number;
  newer: DeadlineEntry | null;
  older: DeadlineEntry | null;
}

/**
 * The deadlines of a server's requests, on one timer instead of one per
 * request. Every request gets the same budget, so deadlines pass in the
 * order the requests started: a list in that order, the oldest first, and
 * a timer set for the oldest. An entry that ends early is unlinked; the
 * timer is only moved when it fires (to the next oldest), so a steady load
 * costs one timer per budget, not one per request.
 *
 * @example
 * const deadlines = new Deadlines<Exchange>(5000, (exchange) => answer504(exchange));
 * deadlines.add(exchange); // when the request starts
 * deadlines.remove(exchange); // when it ends
 */
export class Deadlines<T extends DeadlineEntry> {
  private oldest: T | null = null;
  private newest: T | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly budgetMs: number,
    private readonly passed: (entry: T) => void,
  ) {}

  /** Starts the entry's budget at `now` (the request's start, which its caller already read). */
  add(entry: T, now = performance.now()): void {
    entry.due = now + this.budgetMs;
    entry.older = this.newest;
    entry.newer = null;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
    if (!this.timer) this.arm(entry.due);
  }

  /** Takes the entry out (it ended, or its deadline passed); an entry not queued is left alone. */
  remove(entry: T): void {
    if (entry.older) entry.older.newer = entry.newer;
    else if (this.oldest === entry) this.oldest = entry.newer as T | null;
    else return;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older as T | null;
    entry.older = entry.newer = null;
  }

  /** The timer for `due`; unref'd: a request in flight keeps the process alive by its connection, not by its deadline. */
  private arm(due: number): void {
    this.timer = setTimeout(this.fire, Math.max(1, Math.ceil(due - performance.now())));
    this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = null;
    const now = performance.now();
    for (let entry = this.oldest; entry && entry.due <= now; entry = this.oldest) {
      this.remove(entry);
      this.passed(entry);
    }
    if (this.oldest) this.arm(this.oldest.due);
  };
}
