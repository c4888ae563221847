import { connect } from 'node:net';
import type pg from 'pg';

// The protocol's CancelRequest code (1234 << 16 | 5678).
const CANCEL_REQUEST_CODE = 80877102;

interface BackendKey {
  processID: number | null;
  secretKey: number | null;
  host: string;
  port: number;
}

const cancelled = new WeakSet<object>();

const cancelledConnection = new Error('mfx: a cancel was sent on this connection; it is closed rather than reused');

/**
 * What to release a connection with: an error (so the pool closes it) when a
 * CancelRequest was sent for it. The request travels on its own socket and can
 * arrive after the statement it meant has finished, cancelling whatever the
 * connection runs next.
 */
export function releaseErrorOf(client: pg.PoolClient | pg.Client): Error | undefined {
  return cancelled.has(client) ? cancelledConnection : undefined;
}

/**
 * Asks the server to cancel whatever the connection of `client` is running,
 * with the protocol's CancelRequest on a fresh socket. pg's own cancel reads
 * a deprecated property, and the request is 16 bytes, so it is sent here.
 * Best effort: a request that cannot reach the server is dropped.
 */
export function cancelBackend(client: pg.PoolClient | pg.Client): void {
  const key = client as unknown as BackendKey;
  if (key.processID == null || key.secretKey == null) return;
  cancelled.add(client);
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(key.processID, 8);
  packet.writeInt32BE(key.secretKey, 12);
  const socket = key.host?.startsWith('/') ? connect(`${key.host}/.s.PGSQL.${key.port}`) : connect(key.port, key.host);
  socket.setTimeout(5_000, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('connect', () => socket.end(packet));
}
