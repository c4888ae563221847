/**
 * The client an adapter package talks to its server through (the ioredis
 * client of @mfx/redis, @mfx/jobs-redis and @mfx/events-redis): either the
 * caller's, which stays theirs to close, or one the adapter opens from a
 * URL and therefore closes itself. One rule for all of them, and one check
 * of the options that choose between the two, here because every adapter
 * package already depends on @mfx/runtime; typed by the few methods it
 * calls, so the runtime never imports a driver and apps without Redis never
 * install one.
 */
import { ConfigError } from '../errors/api-error.js';

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
 * The `{ client } | { url }` options of an adapter package, checked and
 * defaulted by one rule: the caller's client when given (under `key`:
 * `client`, or the name the package gives it), else a client `open(url)`
 * makes from `url`, or from `defaultUrl` for a package that has one, owned
 * as `ownedClient` owns it. Neither, and no default: a ConfigError
 * "`<owner>` needs { `<key>` } or { url }".
 *
 * @example
 * const { client, close } = clientFromOptions('redisStore()', options, (url) => new Redis(url, { maxRetriesPerRequest: 1, ...options.redisOptions }));
 * const connection = clientFromOptions('redisStreamBus()', options, open, { key: 'redis' });
 */
export function clientFromOptions<C extends ClosableClient, K extends string = 'client'>(
  owner: string,
  options: (Partial<Record<NoInfer<K>, C>> & { url?: string }) | undefined,
  open: (url: string) => C,
  how: { key?: K; defaultUrl?: string } = {},
): OwnedClient<C> {
  const key = how.key ?? ('client' as K);
  const given = options?.[key] as C | undefined;
  const url = options?.url || how.defaultUrl;
  if (!given && !url) throw new ConfigError(`${owner} needs { ${key} } or { url }`);
  return ownedClient(given, () => open(url!));
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
