import { type Executor, type QueryOptions, type Row, throwIfAborted } from './adapter.js';

/** Options of `Executor.iterate` and `Executor.iterateBatches`. */
export interface IterateOptions extends QueryOptions {
  /** Rows fetched per round trip where the database is remote (PostgreSQL cursor), and the most rows of a batch of `iterateBatches`; default 500. */
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
  private open: AsyncGenerator<unknown> | null = null;
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
  async *track<T>(start: () => AsyncGenerator<T>): AsyncGenerator<T> {
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

  /** Ends the transaction's iterations: closes the open one (its connection is needed for COMMIT); at once when none is open. */
  end(): void | Promise<void> {
    this.ended = true;
    const open = this.open;
    this.open = null;
    if (open) return open.return(undefined).then(() => undefined);
  }
}

/**
 * The rows of a batch iteration one by one: what `Executor.iterate` is made
 * of on every backend (`iterateBatches` is the primitive), so both read the
 * same statement the same way.
 *
 * @example
 * iterate(sql, params, options) { return rowsOfBatches(this.iterateBatches(sql, params, options)); }
 */
export async function* rowsOfBatches(batches: AsyncIterable<Row[]>): AsyncGenerator<Row> {
  for await (const batch of batches) {
    for (let i = 0; i < batch.length; i++) yield batch[i];
  }
}

/**
 * Rows already read, handed out `batchSize` at a time: for a connection that
 * cannot keep a statement open while others use it. Each batch is dropped
 * from the whole result as it is handed out.
 *
 * @example
 * yield* batchesOfResult(() => connection.all(sql, params), options);
 */
export async function* batchesOfResult(read: () => Promise<Row[]>, options?: IterateOptions): AsyncGenerator<Row[]> {
  const size = batchSizeOf(options);
  throwIfAborted(options?.signal);
  const rows = await read();
  for (let start = 0; start < rows.length; start += size) {
    throwIfAborted(options?.signal);
    const end = Math.min(start + size, rows.length);
    const batch = rows.slice(start, end);
    rows.fill(undefined as never, start, end);
    yield batch;
  }
}

/**
 * The rows of `sql` a batch at a time from any executor: its own
 * `iterateBatches` (every built-in adapter has one), else its `iterate`
 * grouped into arrays of `batchSize` rows (an adapter written before it).
 *
 * @example
 * for await (const rows of rowBatches(ctx.adapter, sql, params, { signal: ctx.cancel, batchSize: 256 })) write(rows);
 */
export function rowBatches(executor: Executor, sql: string, params: readonly unknown[], options?: IterateOptions): AsyncIterable<Row[]> {
  if (executor.iterateBatches) return executor.iterateBatches(sql, params, options);
  return grouped(executor.iterate(sql, params, options), batchSizeOf(options));
}

async function* grouped(rows: AsyncIterable<Row>, size: number): AsyncGenerator<Row[]> {
  let batch: Row[] = [];
  for await (const row of rows) {
    batch.push(row);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
