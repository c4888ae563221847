/**
 * @mfx/events-redis: an mfx event bus on Redis Streams. Every event is one
 * stream entry; a subscription is a consumer group named after it, so each
 * subscription sees every event once across the replicas that share its
 * name, and an entry is acknowledged (XACK) once the shared delivery rules
 * have dealt with it. Entries a crashed consumer read but never acknowledged
 * are taken over by a live one (XAUTOCLAIM) once they have been idle for
 * `claimIdleMs`. An ephemeral subscription's group is destroyed when it
 * closes; while it runs it keeps a heartbeat key alive, and every ephemeral
 * subscription on the stream destroys the groups of those whose heartbeat
 * expired (their process died), so a crash leaves a group for a bounded time.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import {
  BrokerBusState,
  BrokerSubscription,
  clientFromOptions,
  encodeEvent,
  type EventBus,
  type Logger,
  positiveWhole,
  quietClient,
  silentLogger,
  type SubscribeOptions,
  type Subscriber,
  subscriber,
} from '@mfx/runtime';
import { Redis, type RedisOptions } from 'ioredis';

export interface RedisStreamBusOptions {
  /** An ioredis client you own (you close it); the bus duplicates it for its blocking reads. Or */
  redis?: Redis;
  /** a Redis URL, for clients the bus opens and closes itself. */
  url?: string;
  /** The stream key (default `mfx:events`). */
  stream?: string;
  /** Trims the stream to about this many entries on publish (XADD MAXLEN ~); default: no trimming. */
  maxLen?: number;
  /** How long an entry stays unacknowledged by a consumer before another one takes it over, in ms (default 60 000). */
  claimIdleMs?: number;
  /** Entries read per XREADGROUP / XAUTOCLAIM call (default 16). */
  batch?: number;
  /** How long one blocking read waits, in ms, before it looks for entries to reclaim again (default 5 000). */
  blockMs?: number;
  /** How long after its process died an ephemeral subscription's group is destroyed, in ms (default 60 000): its heartbeat key's lifetime, renewed every third of it. */
  ephemeralExpiryMs?: number;
  /** This process's consumer name inside each group (default `<host>-<pid>-<random>`). */
  consumer?: string;
  /** Where handler failures, dead letters and undecodable entries are logged (default silent). */
  logger?: Logger;
  /** Extra ioredis options for clients opened from `url`. */
  redisOptions?: RedisOptions;
}

type Entry = [id: string, fields: string[]];

/**
 * An event bus on a Redis stream.
 *
 * @example
 * import { redisStreamBus } from '@mfx/events-redis';
 * const bus = redisStreamBus({ url: 'redis://127.0.0.1:6379', stream: 'shop:events' });
 * app.use('db', publishEvents(bus), { position: 'after' });
 * await bus.subscribe({ name: 'mailer', patterns: ['order.created'], handler: sendReceipt });
 */
export function redisStreamBus(options: RedisStreamBusOptions): EventBus {
  const stream = options.stream ?? 'mfx:events';
  const positive = (value: number, name: string): number => positiveWhole('redisStreamBus()', name, value);
  const claimIdleMs = positive(options.claimIdleMs ?? 60_000, 'claimIdleMs');
  const batch = positive(options.batch ?? 16, 'batch');
  const blockMs = positive(options.blockMs ?? 5_000, 'blockMs');
  const ephemeralExpiryMs = positive(options.ephemeralExpiryMs ?? 60_000, 'ephemeralExpiryMs');
  if (options.maxLen !== undefined) positive(options.maxLen, 'maxLen');
  const consumer = options.consumer ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const log = options.logger ?? silentLogger;
  const connection = clientFromOptions('redisStreamBus()', options, (url) => new Redis(url, { maxRetriesPerRequest: 1, ...options.redisOptions }), { key: 'redis' });
  const client = connection.client;
  const state = new BrokerBusState(`the redis-streams bus on "${stream}"`);
  // A client whose retryStrategy gives up (answers null) ends once its connection is lost: the bus can no longer
  // work, and says so as the buses that never reconnect do. ioredis ends a client that reconnects only when it is
  // closed, which the bus and its subscriptions do after they stopped, so the bus hears nothing then.
  const gaveUp = (): void => {
    const reason = new Error(`a Redis connection of the bus on "${stream}" closed and its client does not reconnect (its retryStrategy gave up)`);
    state.lose(reason, () => log.error({ stream, err: reason.message }, 'redis connection closed for good: its subscriptions have ended'));
  };
  client.on('end', gaveUp);
  // A subscription's own connection (its blocking reads hold it), with the bus client's options; the subscription closes it.
  const open = (): Redis => quietClient(client.duplicate());

  const bus: EventBus = {
    kind: 'redis-streams',
    async publish(events) {
      state.assertOpen();
      if (events.length === 0) return;
      const trim = options.maxLen === undefined ? [] : ['MAXLEN', '~', String(options.maxLen)];
      const pipeline = client.pipeline();
      for (const event of events) pipeline.xadd(stream, ...(trim as []), '*', 'e', encodeEvent(event));
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([error]) => error);
      if (failed) throw failed[0];
    },
    async subscribe(subscribeOptions: SubscribeOptions) {
      state.assertOpen();
      const sub = subscriber(subscribeOptions);
      state.assertFree(sub.name);
      const ephemeral = sub.ephemeral ? new EphemeralGroups(client, stream, ephemeralExpiryMs, log) : null;
      // Registered before the group exists, so no sweep can take the new group for a dead one.
      await ephemeral?.beat(sub.name);
      await createGroup(client, stream, sub.name, '$');
      const subscription = new RedisSubscription(sub, open(), client, bus, { stream, consumer, batch, blockMs, claimIdleMs, log, gaveUp }, ephemeral, () => state.subscriptions.delete(subscription));
      state.subscriptions.add(subscription);
      subscription.start();
      return subscription;
    },
    async close() {
      if (!(await state.close())) return;
      client.off('end', gaveUp);
      await connection.close();
    },
  };
  return bus;
}

/** '$': a new group starts with the events published from now on ('0': the whole stream); MKSTREAM creates the stream on first use. An existing group is kept. */
async function createGroup(client: Redis, stream: string, name: string, from: '$' | '0'): Promise<void> {
  try {
    await client.xgroup('CREATE', stream, name, from, 'MKSTREAM');
  } catch (error) {
    if (!String((error as Error).message).startsWith('BUSYGROUP')) throw error;
  }
}

/**
 * The groups of ephemeral subscriptions on one stream: the set
 * `<stream>:ephemeral` names them, and each live one renews its key
 * `<stream>:ephemeral:<name>` (expiring after `expiryMs`, on Redis's clock).
 * A member whose key is gone belongs to a process that died: its group is
 * destroyed by whichever ephemeral subscription sweeps next.
 */
class EphemeralGroups {
  private readonly registry: string;

  constructor(
    private readonly client: Redis,
    private readonly stream: string,
    readonly expiryMs: number,
    private readonly log: Logger,
  ) {
    this.registry = `${stream}:ephemeral`;
  }

  private key(name: string): string {
    return `${this.registry}:${name}`;
  }

  /** Says the subscription `name` is alive for another `expiryMs`. */
  async beat(name: string): Promise<void> {
    await this.client.multi().set(this.key(name), '1', 'PX', this.expiryMs).sadd(this.registry, name).exec();
  }

  /** Destroys the groups of ephemeral subscriptions whose heartbeat expired. */
  async sweep(): Promise<void> {
    for (const name of await this.client.smembers(this.registry)) {
      if (await this.client.exists(this.key(name))) continue;
      // Fails only when the stream itself is gone, and the group with it.
      await this.client.xgroup('DESTROY', this.stream, name).catch(() => 0);
      await this.client.srem(this.registry, name);
      this.log.warn({ stream: this.stream, subscription: name }, 'redis-streams: destroyed the group of an ephemeral subscription whose process is gone');
    }
  }

  /** Removes the subscription's group and heartbeat: it closed. */
  async remove(name: string): Promise<void> {
    await this.client.multi().xgroup('DESTROY', this.stream, name).del(this.key(name)).srem(this.registry, name).exec();
  }
}

interface Settings {
  stream: string;
  consumer: string;
  batch: number;
  blockMs: number;
  claimIdleMs: number;
  log: Logger;
  /** Called when its reader ended while it ran: its client gave up reconnecting. */
  gaveUp: () => void;
}

class RedisSubscription extends BrokerSubscription {
  private loop: Promise<void> = Promise.resolve();
  private lastClaim = 0;

  constructor(
    sub: Subscriber,
    /** Its own connection: XREADGROUP BLOCK holds the connection it runs on. */
    private readonly reader: Redis,
    private readonly client: Redis,
    bus: EventBus,
    private readonly settings: Settings,
    private readonly ephemeral: EphemeralGroups | null,
    forget: () => void,
  ) {
    super(sub, bus, settings.log, 'redis-streams entry', forget);
    // stop() disconnects it: an end after that is the subscription's own doing.
    reader.on('end', () => {
      if (!this.stopping) settings.gaveUp();
    });
  }

  private heartbeat: NodeJS.Timeout | null = null;
  /** The heartbeats, one after the other; close() lets the last finish so it cannot renew the key after the group was removed. */
  private beating: Promise<void> = Promise.resolve();

  start(): void {
    if (this.ephemeral) {
      const ephemeral = this.ephemeral;
      const tick = (): void => {
        // Redis away: the next tick tries again; a group swept meanwhile is made again by the read loop.
        this.beating = this.beating
          .then(() => ephemeral.beat(this.name))
          .then(() => ephemeral.sweep())
          .catch((error: unknown) => this.log.warn({ subscription: this.name, err: String((error as Error)?.message ?? error) }, 'redis-streams: ephemeral heartbeat failed'));
      };
      tick();
      this.heartbeat = setInterval(tick, Math.max(1, Math.floor(ephemeral.expiryMs / 3)));
      this.heartbeat.unref();
    }
    this.loop = this.run().catch((error) => {
      if (this.stopping) return;
      this.log.error({ subscription: this.name, err: String((error as Error)?.message ?? error) }, 'redis-streams subscription ended');
      this.ended(error instanceof Error ? error : new Error(String(error)));
    });
  }

  private async run(): Promise<void> {
    const { stream, consumer, batch, blockMs } = this.settings;
    let failures = 0;
    while (!this.stopping) {
      try {
        await this.reclaim();
        if (this.stopping) return;
        const reply = (await this.reader.xreadgroup('GROUP', this.name, consumer, 'COUNT', batch, 'BLOCK', blockMs, 'STREAMS', stream, '>')) as [string, Entry[]][] | null;
        failures = 0;
        if (!reply) continue;
        for (const [, entries] of reply) await this.handle(entries);
      } catch (error) {
        if (this.stopping) return;
        const message = String((error as Error)?.message ?? error);
        if (message.startsWith('NOGROUP')) {
          if (this.ephemeral) {
            // Swept while this process was silent past its heartbeat: made again for the events from now on, as an ephemeral subscription starts.
            this.log.warn({ subscription: this.name, stream }, 'redis-streams ephemeral group was gone; made again at the end of the stream');
            await this.ephemeral.beat(this.name).catch(() => {});
            await createGroup(this.client, stream, this.name, '$').catch(() => {});
            continue;
          }
          // The stream was deleted (and maybe made again by a publish): the group is made again, reading the new stream from its start.
          this.log.warn({ subscription: this.name, stream }, 'redis-streams group was gone; made again from the start of the stream');
          await createGroup(this.client, stream, this.name, '0').catch(() => {});
          continue;
        }
        // Redis away or restarting: try again, waiting longer each time (at most 30 s); close() ends the wait.
        failures++;
        this.log.warn({ subscription: this.name, stream, err: message, failures }, 'redis-streams read failed; retrying');
        await this.pause(Math.min(100 * 2 ** (failures - 1), 30_000));
      }
    }
  }

  private wake: (() => void) | null = null;

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  /** Takes over entries other consumers of this group left unacknowledged for claimIdleMs (a crash), at most once per that interval. */
  private async reclaim(): Promise<void> {
    const { stream, consumer, batch, claimIdleMs } = this.settings;
    const now = Date.now();
    if (now - this.lastClaim < Math.min(claimIdleMs, this.settings.blockMs)) return;
    this.lastClaim = now;
    let cursor = '0-0';
    do {
      const [next, entries] = (await this.reader.xautoclaim(stream, this.name, consumer, claimIdleMs, cursor, 'COUNT', batch)) as [string, Entry[], string[]?];
      await this.handle(entries.filter((entry) => entry && entry[1]));
      cursor = next;
    } while (cursor !== '0-0' && !this.stopping);
  }

  /** Entries left unacknowledged while it stops stay pending in the group, for redelivery. */
  private async handle(entries: Entry[]): Promise<void> {
    const { stream } = this.settings;
    for (const [id, fields] of entries) {
      if (!(await this.receive(eventText(fields), { ack: () => this.client.xack(stream, this.name, id) }, { entry: id, stream }))) return;
    }
  }

  /** Stops reading: a blocking read in flight returns early once its connection goes; a running handler finishes first. */
  protected override stop(): boolean {
    if (!super.stop()) return false;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.reader.disconnect();
    this.wake?.();
    return true;
  }

  async close(): Promise<void> {
    if (!this.stop()) return this.loop;
    await this.loop;
    await this.beating;
    if (this.ephemeral) {
      // Left behind when Redis is away now: its heartbeat expires and another ephemeral subscription sweeps it.
      await this.ephemeral.remove(this.name).catch((error: unknown) => this.log.warn({ subscription: this.name, err: String((error as Error)?.message ?? error) }, 'redis-streams: could not destroy the ephemeral group'));
    }
  }
}

/** The event's text of a stream entry (its field `e`), or null for an entry without one. */
function eventText(fields: string[]): string | null {
  const at = fields.indexOf('e');
  if (at < 0 || at % 2 !== 0) return null;
  return fields[at + 1]!;
}
