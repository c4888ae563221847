/**
 * The client an adapter package talks to its server through (the ioredis
 * client of @mfx/redis, @mfx/jobs-redis and @mfx/events-redis): either the
 * caller's, which stays theirs to close, or one the adapter opens from a
 * URL and therefore closes itself. One rule for all of them, here because
 * every adapter package already depends on @mfx/runtime; typed by the few
 * methods it calls, so the runtime never imports a driver and apps without
 * Redis never install one.
 */

/** What ownership needs of a client (an ioredis `Redis` has all of it). */
export interface ClosableClient {
  on(event: 'error', listener: (error: Error) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

export interface OwnedClient<C> {
  client: C;
  /** Whether the adapter opened the client (and so closes it). */
  owned: boolean;
  /** Quits a client the adapter opened, leaves the caller's open. */
  close(): Promise<void>;
}

/**
 * The caller's client when given, else one `open()` makes, owned: made quiet
 * (see `quietClient`) and quit by `close()`, or dropped when quit fails (the
 * server is away, and quit would only wait for it).
 *
 * @example
 * const { client, close } = ownedClient(options.client, () => new Redis(options.url!, { maxRetriesPerRequest: 1 }));
 */
export function ownedClient<C extends ClosableClient>(given: C | undefined, open: () => C): OwnedClient<C> {
  if (given) return { client: given, owned: false, close: async () => {} };
  const client = quietClient(open());
  return {
    client,
    owned: true,
    close: () =>
      client.quit().then(
        () => {},
        () => client.disconnect(),
      ),
  };
}

/**
 * A client whose connection errors are left to its commands: ioredis
 * reports a lost or refused connection as an `error` event besides failing
 * the commands waiting on it (which is where the adapter handles it), and
 * prints each event nobody listens to.
 *
 * @example
 * const reader = quietClient(client.duplicate());
 */
export function quietClient<C extends ClosableClient>(client: C): C {
  client.on('error', () => {});
  return client;
}
