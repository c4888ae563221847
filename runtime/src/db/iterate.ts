import { type QueryOptions, type Row, throwIfAborted } from './adapter.js';

/** Options of `Executor.iterate`. */
export interface IterateOptions extends QueryOptions {
  /** Rows fetched per round trip where the database is remote (PostgreSQL cursor); default 500. */
  batchSize?: number;
}

export const DEFAULT_BATCH_SIZE = 500;

/** The batch size asked for, checked: a positive whole number. */
export function batchSizeOf(options: IterateOptions | undefined): number {
  const size = options?.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`mfx: iterate batchSize must be a positive whole number, got ${String(size)}`);
  return size;
}

const transactionEnded = () =>
  new Error('mfx: this transaction has already ended; use the executor it was started with only inside its callback (a streamed response is written after the commit: iterate on ctx.adapter there)');

/**
 * The iterations of one transaction handle. A transaction has one connection:
 * while an iteration is open on it, PostgreSQL queues every other statement
 * behind the cursor (which waits for the caller, who waits for the statement),
 * so any statement in between fails at once instead, on both databases. When
 * the transaction ends, its open iteration is closed before COMMIT or
 * ROLLBACK, and reading on from it fails.
 */
export class TransactionIterations {
  private open: AsyncGenerator<Row> | null = null;
  private ended = false;

  /** Throws when the transaction has ended or an iteration is open on it; called before every statement. */
  assertUsable(): void {
    if (this.ended) throw transactionEnded();
    if (this.open) {
      throw new Error(
        'mfx: an iteration is open on this transaction; finish the loop or break out of it before running another statement in the transaction (its rows and the statement share one connection)',
      );
    }
  }

  /**
   * Rows of `start()`, marked open on the transaction from the first `next()`
   * until the loop ends, breaks or throws.
   */
  async *track(start: () => AsyncGenerator<Row>): AsyncGenerator<Row> {
    this.assertUsable();
    const rows = start();
    this.open = rows;
    try {
      for (;;) {
        const step = await rows.next();
        if (this.ended) throw transactionEnded();
        if (step.done) return;
        yield step.value;
      }
    } finally {
      if (this.open === rows) this.open = null;
      await rows.return(undefined);
    }
  }

  /** Ends the transaction's iterations: closes the open one (its connection is needed for COMMIT). */
  async end(): Promise<void> {
    this.ended = true;
    const open = this.open;
    this.open = null;
    await open?.return(undefined);
  }
}

/**
 * Rows already read, handed out one by one: for a connection that cannot keep
 * a statement open while others use it. The array is dropped as it is read.
 *
 * @example
 * yield* rowsOf(() => connection.all(sql, params));
 */
export async function* rowsOf(read: () => Promise<Row[]>, options?: IterateOptions): AsyncGenerator<Row> {
  batchSizeOf(options);
  throwIfAborted(options?.signal);
  const rows = await read();
  for (let i = 0; i < rows.length; i++) {
    throwIfAborted(options?.signal);
    const row = rows[i];
    rows[i] = undefined as never;
    yield row;
  }
}
