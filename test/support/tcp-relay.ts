// A TCP relay to a broker on this machine whose connections a test can cut:
// a real network failure between a client and a real server.
import { createConnection, createServer, type Socket } from 'node:net';

export interface Relay {
  port: number;
  /** Destroys every connection through the relay; it keeps listening for new ones. */
  cut(): void;
  close(): Promise<void>;
}

export async function relay(targetPort: number, targetHost = '127.0.0.1'): Promise<Relay> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cut: () => sockets.forEach((s) => s.destroy()),
    close: () =>
      new Promise((resolve) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}
