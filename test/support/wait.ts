// What tests wait on instead of the clock: values the code under test
// reports, gates the test opens, and (only where nothing reports an event)
// repeated looks at state such as the database's own activity views.

interface Waiter<T> {
  match: (value: T) => boolean;
  count: number;
  resolve: (values: T[]) => void;
}

/**
 * Values pushed by code under test (log lines, hooks reached, calls made),
 * with promises for the ones a test expects: an event, never a poll.
 *
 * @example
 * const reached = new Recorder<string>();
 * app.use('service', async (ctx, next) => { reached.push(ctx.requestId); await next(); });
 * await reached.next((id) => id === 'req-1');
 */
export class Recorder<T> {
  readonly seen: T[] = [];
  private readonly waiting: Waiter<T>[] = [];

  push(value: T): void {
    this.seen.push(value);
    for (const waiter of [...this.waiting]) {
      const matched = this.seen.filter(waiter.match);
      if (matched.length < waiter.count) continue;
      this.waiting.splice(this.waiting.indexOf(waiter), 1);
      waiter.resolve(matched.slice(0, waiter.count));
    }
  }

  /** The first value (already pushed or still to come) that `match` accepts. */
  async next(match: (value: T) => boolean = () => true): Promise<T> {
    const [first] = await this.count(1, match);
    return first;
  }

  /** The first `count` values `match` accepts, once that many were pushed. */
  count(count: number, match: (value: T) => boolean = () => true): Promise<T[]> {
    const matched = this.seen.filter(match);
    if (matched.length >= count) return Promise.resolve(matched.slice(0, count));
    return new Promise((resolve) => this.waiting.push({ match, count, resolve }));
  }
}

/** A promise the test opens: code under test waits on `opened` until the test calls `open()`. */
export interface Gate {
  opened: Promise<void>;
  open(): void;
}

/**
 * A closed gate, for holding a hook (or a transaction) at a point until the
 * test has seen what it wants to see meanwhile.
 *
 * @example
 * const held = gate();
 * app.use('service', async (_ctx, next) => { await held.opened; await next(); });
 * // ... assert on the server while the request is held ...
 * held.open();
 */
export function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Between two looks at state nothing announces; never decides an outcome. */
const LOOK_PAUSE_MS = 10;

/**
 * Resolves with the first truthy answer of `look`, asking again until there
 * is one. Only for state no event reports (the database's `pg_stat_activity`
 * and `pg_locks`, a peer coming back): what decides the outcome is the
 * answer, never the time; a node:test `timeout` turns a hang into a failure.
 *
 * @example
 * await until(async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'`, [pid])).rowCount);
 */
export async function until<T>(look: () => Promise<T | false | null | undefined | 0>): Promise<T> {
  for (;;) {
    const answer = await look();
    if (answer) return answer;
    await new Promise((resolve) => setTimeout(resolve, LOOK_PAUSE_MS));
  }
}
