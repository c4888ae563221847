import type Database from 'better-sqlite3';
import { type Row, throwIfAborted } from './adapter.js';
import { loadDriver } from './drivers.js';
import { batchSizeOf, type IterateOptions } from './iterate.js';

/** Idle snapshot connections kept for the next iteration. */
const KEEP_IDLE = 2;

/**
 * Read-only connections of a SQLite file, one per open iteration.
 *
 * A better-sqlite3 connection runs nothing else while a statement iterates on
 * it, and a paused iteration (a stream waiting for a slow client) would hold
 * the shared reader for as long as it waits. Each iteration therefore gets a
 * connection of its own: its rows come from one WAL snapshot (taken at the
 * first row, held until the loop ends), while other requests read and write
 * on the shared connections. A long iteration keeps the WAL from being
 * checkpointed past its snapshot, so the WAL file grows until it ends.
 */
export class SnapshotReaders {
  private readonly idle: Database.Database[] = [];
  private closed = false;

  constructor(private readonly path: string) {}

  private connect(): Database.Database {
    const Sqlite = loadDriver('better-sqlite3');
    const db = new Sqlite(this.path, { readonly: true });
    db.pragma('busy_timeout = 5000');
    return db;
  }

  /**
   * The rows of a read-only statement, stepped with `.iterate()` on a
   * connection of its own and handed out `batchSize` at a time (stepping is
   * synchronous: a batch costs one await, not one per row); the statement is
   * reset and the connection given back when the loop ends, breaks, throws
   * or the signal aborts.
   *
   * @example
   * for await (const rows of readers.batches('SELECT id FROM posts', [], { signal })) send(rows);
   */
  async *batches(sql: string, values: readonly unknown[], options?: IterateOptions): AsyncGenerator<Row[]> {
    const size = batchSizeOf(options);
    const signal = options?.signal;
    throwIfAborted(signal);
    if (this.closed) throw new Error('mfx: the database is closed');
    const db = this.idle.pop() ?? this.connect();
    try {
      const rows = db.prepare(sql).iterate(values) as IterableIterator<Row>;
      try {
        for (;;) {
          throwIfAborted(signal);
          const batch: Row[] = [];
          let step = rows.next();
          while (!step.done) {
            batch.push(step.value);
            if (batch.length === size) break;
            step = rows.next();
          }
          if (batch.length > 0) yield batch;
          if (step.done) return;
        }
      } finally {
        rows.return?.();
      }
    } finally {
      if (this.closed || this.idle.length >= KEEP_IDLE) db.close();
      else this.idle.push(db);
    }
  }

  /** Closes the idle connections; those of open iterations close when their loop ends. */
  close(): void {
    this.closed = true;
    for (const db of this.idle.splice(0)) db.close();
  }
}
