import type pg from 'pg';
import type Cursor from 'pg-cursor';
import { AbortedError, type Row, throwIfAborted } from './adapter.js';
import { loadDriver } from './drivers.js';
import { type IterateOptions, batchSizeOf } from './iterate.js';
import { cancelBackend, releaseErrorOf } from './pg-cancel.js';

/** A connection held for one iteration, and how to give it back (an error closes it). */
export interface HeldConnection {
  client: pg.PoolClient;
  release(error?: Error): void;
}

/** Takes a connection from a pool for the whole iteration. */
export function fromPool(pool: pg.Pool): () => Promise<HeldConnection> {
  return async () => {
    const client = await pool.connect();
    return { client, release: (error) => client.release(error) };
  };
}

/**
 * Rows of one statement through a server-side cursor (`pg-cursor`), fetched
 * and handed out `batchSize` at a time, so memory stays bounded and the connection is held
 * only by this iteration. The statement runs as one portal: every row comes
 * from the snapshot it started with. The signal cancels a fetch in flight
 * (a CancelRequest; that connection is then closed, not reused) and refuses
 * the next one; ending the loop early closes the portal and gives the
 * connection back.
 *
 * @example
 * for await (const rows of cursorBatches(fromPool(readPool), 'SELECT id FROM posts', [], { types }, { signal })) send(rows);
 */
export async function* cursorBatches(
  connect: () => Promise<HeldConnection>,
  sql: string,
  values: unknown[],
  config: { types: { getTypeParser: (oid: number, format?: 'text' | 'binary') => unknown } },
  options: IterateOptions = {},
): AsyncGenerator<Row[]> {
  const { signal } = options;
  const batchSize = batchSizeOf(options);
  throwIfAborted(signal);
  const { client, release } = await connect();
  let fetching = false;
  let failure: Error | undefined;
  // Only a fetch in flight is cancelled on the server; between fetches the next one is refused.
  const onAbort = () => {
    if (fetching) cancelBackend(client);
  };
  signal?.addEventListener('abort', onAbort);
  const PgCursor = loadDriver('pg-cursor');
  const cursor = client.query(new PgCursor<Row>(sql, values, config as Cursor.CursorQueryConfig));
  try {
    for (;;) {
      throwIfAborted(signal);
      let rows: Row[];
      fetching = true;
      try {
        rows = await cursor.read(batchSize);
      } catch (error) {
        failure = error as Error;
        throw signal?.aborted ? new AbortedError(signal.reason) : error;
      } finally {
        fetching = false;
      }
      if (rows.length > 0) yield rows;
      if (rows.length < batchSize) return;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // After an error pg-cursor has already synced; closing would wait for a ready it never gets.
    if (!failure) await cursor.close().catch((error: Error) => (failure = error));
    release(failure ?? releaseErrorOf(client));
  }
}
