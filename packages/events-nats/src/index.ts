/**
 * @mfx/events-nats: an mfx event bus on NATS JetStream. One bus binds one
 * existing stream and publishes each event to `<prefix>.<type>`; the stream
 * must capture `<prefix>.>` and no other stream may capture any of it, which
 * the bus checks when it opens. A subscription is a durable pull consumer
 * named after it; a message is acknowledged once the shared delivery rules
 * have dealt with it, and one left unacknowledged (a crashed consumer) is
 * redelivered after `ackWaitMs`. An ephemeral subscription is a consumer
 * without a durable name, deleted when it closes and by the server once no
 * client has pulled from it for `ephemeralExpiryMs` (its process died or
 * its connection dropped).
 */
import {
  BrokerBusState,
  BrokerSubscription,
  ConfigError,
  encodeEvent,
  type EventBus,
  type Logger,
  positiveWhole,
  silentLogger,
  spansJobType,
  type SubscribeOptions,
  type Subscriber,
  subscriber,
} from '@mfx/runtime';
import {
  AckPolicy,
  connect,
  type ConnectionOptions,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
  nanos,
} from 'nats';

export interface NatsBusOptions {
  /** Server URLs (`nats://127.0.0.1:4222`), for a connection the bus opens and closes; or */
  servers?: string | string[];
  /** a connection you own (the bus never closes it). */
  connection?: NatsConnection;
  /** The JetStream stream the bus binds; it must exist. */
  stream: string;
  /** Subjects are `<subjectPrefix>.<event type>`; default: the prefix of the stream's only subject when that is `<prefix>.>`. */
  subjectPrefix?: string;
  /** How long a delivered message may stay unacknowledged before JetStream redelivers it, in ms (default 30 000); above your slowest handler. */
  ackWaitMs?: number;
  /** How long the server keeps an ephemeral subscription's consumer once no client pulls from it (its process died, its connection dropped), in ms (default 60 000). */
  ephemeralExpiryMs?: number;
  /** Messages a subscription pulls ahead (default 16). */
  batch?: number;
  /** Where handler failures and dead letters are logged (default silent). */
  logger?: Logger;
  /** Extra connection options for a connection opened from `servers`. */
  connectionOptions?: ConnectionOptions;
}

/**
 * Opens an event bus bound to an existing JetStream stream; rejects when the
 * stream is missing, does not capture the bus's subjects, or another stream
 * captures some of them.
 *
 * @example
 * import { natsBus } from '@mfx/events-nats';
 * // nats stream add EVENTS --subjects 'events.>'
 * const bus = await natsBus({ servers: 'nats://127.0.0.1:4222', stream: 'EVENTS' });
 * await bus.subscribe({ name: 'search-index', patterns: ['post.*'], handler: reindex });
 */
export async function natsBus(options: NatsBusOptions): Promise<EventBus> {
  if (!options?.connection && !options?.servers) throw new ConfigError('natsBus() needs { servers } or { connection }');
  if (typeof options.stream !== 'string' || options.stream === '') throw new ConfigError('natsBus() needs { stream }: the name of an existing JetStream stream');
  const ackWaitMs = positiveWhole('natsBus()', 'ackWaitMs', options.ackWaitMs ?? 30_000);
  const batch = positiveWhole('natsBus()', 'batch', options.batch ?? 16);
  const ephemeralExpiryMs = positiveWhole('natsBus()', 'ephemeralExpiryMs', options.ephemeralExpiryMs ?? 60_000);
  const log = options.logger ?? silentLogger;
  const owned = !options.connection;
  const nc = options.connection ?? (await connect({ ...options.connectionOptions, servers: options.servers! }));
  let prefix: string;
  let jsm: JetStreamManager;
  try {
    jsm = await nc.jetstreamManager();
    prefix = await checkStream(jsm, options.stream, options.subjectPrefix);
  } catch (error) {
    if (owned) await nc.close();
    throw error;
  }
  const js: JetStreamClient = nc.jetstream();
  const stream = options.stream;
  const state = new BrokerBusState(`the nats bus on stream "${stream}"`);

  if (owned) {
    // Closed for good: the client gave up reconnecting (or was told not to).
    void nc.closed().then((error) => {
      const reason = error instanceof Error ? error : new Error(`the NATS connection of the bus on stream "${stream}" closed`);
      state.lose(reason, () => log.error({ stream, err: reason.message }, 'nats connection closed for good: its subscriptions have ended'));
    });
  }

  const bus: EventBus = {
    kind: 'nats',
    async publish(events) {
      state.assertOpen();
      // Sent in order on one connection; each resolves on the stream's acknowledgement. The event id doubles as the
      // message id, so a publish retried within the stream's duplicate window is stored once.
      await Promise.all(events.map((event) => js.publish(`${prefix}.${event.type}`, encodeEvent(event), { msgID: event.id, expect: { streamName: stream } })));
    },
    async subscribe(subscribeOptions: SubscribeOptions) {
      state.assertOpen();
      const sub = subscriber(subscribeOptions);
      const patterns = subscribeOptions.patterns;
      if (!/^[A-Za-z0-9_-]+$/.test(sub.name)) throw new ConfigError(`natsBus: "${sub.name}" cannot name a consumer: use letters, digits, '_' and '-'`);
      state.assertFree(sub.name);
      const config = {
        ack_policy: AckPolicy.Explicit,
        // A new consumer starts with the events published from now on.
        deliver_policy: DeliverPolicy.New,
        ack_wait: nanos(ackWaitMs),
        max_deliver: -1,
        // Servers before 2.10 filter on one subject: one pattern filters on the server, several are matched here.
        // A job-type wildcard (job.*.completed) spans dotted job types, which a NATS `*` (one token) would not: job.> on the server.
        filter_subject: patterns.length !== 1 ? `${prefix}.>` : spansJobType(patterns[0]!) ? `${prefix}.job.>` : `${prefix}.${patterns[0]}`,
      };
      if (sub.ephemeral) {
        // Named but not durable (servers from 2.9): the server deletes it once nothing has pulled from it for the threshold.
        await jsm.consumers.add(stream, { ...config, name: sub.name, inactive_threshold: nanos(ephemeralExpiryMs) });
      } else if (!(await consumerExists(jsm, stream, sub.name))) {
        await jsm.consumers.add(stream, { ...config, durable_name: sub.name });
      }
      const consumer = await js.consumers.get(stream, sub.name);
      const messages = await consumer.consume({ max_messages: batch });
      const remove = sub.ephemeral ? () => jsm.consumers.delete(stream, sub.name).then(() => undefined) : null;
      const subscription = new NatsSubscription(sub, messages, bus, log, remove, () => state.subscriptions.delete(subscription));
      state.subscriptions.add(subscription);
      return subscription;
    },
    async close() {
      if (!(await state.close())) return;
      if (owned && !nc.isClosed()) await nc.drain();
    },
  };
  return bus;
}

class NatsSubscription extends BrokerSubscription {
  private readonly loop: Promise<void>;

  constructor(
    sub: Subscriber,
    private readonly messages: ConsumerMessages,
    bus: EventBus,
    log: Logger,
    /** Deletes an ephemeral subscription's consumer; null for a durable one. */
    private readonly remove: (() => Promise<void>) | null,
    forget: () => void,
  ) {
    super(sub, bus, log, 'nats message', forget);
    // The messages end with an error when the connection closes under them; ended() has said so already.
    this.loop = this.run().catch((error: unknown) => {
      if (!this.stopping) this.log.error({ subscription: this.name, err: String((error as Error)?.message ?? error) }, 'nats subscription ended');
    });
  }

  private async run(): Promise<void> {
    for await (const msg of this.messages) await this.receive(msg.string(), { ack: () => msg.ack(), retry: () => msg.nak() }, { subject: msg.subject, seq: msg.seq });
  }

  async close(): Promise<void> {
    if (this.stop()) {
      await this.messages.close();
      await this.loop;
      await this.remove?.().catch((error: unknown) => this.log.warn({ subscription: this.name, err: String((error as Error)?.message ?? error) }, 'nats: could not delete the ephemeral consumer; the server deletes it after ephemeralExpiryMs'));
    }
    await this.loop;
  }
}

async function consumerExists(jsm: JetStreamManager, stream: string, name: string): Promise<boolean> {
  return jsm.consumers.info(stream, name).then(
    () => true,
    (error: Error & { api_error?: { err_code?: number } }) => {
      if (error.api_error?.err_code === 10014 || /consumer not found/i.test(error.message)) return false;
      throw error;
    },
  );
}

/** Reads the stream and returns the subject prefix, or rejects with what is wrong. */
async function checkStream(jsm: JetStreamManager, stream: string, subjectPrefix: string | undefined): Promise<string> {
  let subjects: string[];
  try {
    subjects = (await jsm.streams.info(stream)).config.subjects ?? [];
  } catch (error) {
    if (/stream not found/i.test(String((error as Error).message))) {
      throw new ConfigError(`natsBus: the JetStream stream "${stream}" does not exist; create it first (e.g. nats stream add ${stream} --subjects '${subjectPrefix ?? 'events'}.>')`);
    }
    throw error;
  }
  let prefix = subjectPrefix;
  if (prefix === undefined) {
    if (subjects.length !== 1 || !subjects[0]!.endsWith('.>')) {
      throw new ConfigError(`natsBus: set subjectPrefix: the stream "${stream}" captures ${JSON.stringify(subjects)}, not one "<prefix>.>" the events could be published under`);
    }
    prefix = subjects[0]!.slice(0, -2);
  }
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix)) throw new ConfigError(`natsBus: subjectPrefix "${prefix}" must be dotted tokens without wildcards`);
  const space = `${prefix}.>`;
  for await (const other of jsm.streams.list()) {
    if (other.config.name === stream) continue;
    const clash = (other.config.subjects ?? []).find((s) => overlap(s, space));
    if (clash) {
      throw new ConfigError(`natsBus: the stream "${other.config.name}" captures "${clash}", which overlaps the subjects "${space}" of the stream "${stream}" this bus binds; give each stream subjects of its own`);
    }
  }
  if (!subjects.some((s) => covers(s, space))) {
    throw new ConfigError(`natsBus: the stream "${stream}" captures ${JSON.stringify(subjects)}, not every subject under "${space}" the events are published to; add "${space}" to its subjects or set subjectPrefix`);
  }
  return prefix;
}

/** Whether some subject matches both subject filters (`*` one token, `>` one or more at the end). */
function overlap(a: string, b: string): boolean {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; ; i++) {
    const p = x[i];
    const q = y[i];
    if (p === undefined || q === undefined) return p === q;
    if (p === '>' || q === '>') return true;
    if (p !== '*' && q !== '*' && p !== q) return false;
  }
}

/** Whether every subject `inner` matches is matched by `outer`. */
function covers(outer: string, inner: string): boolean {
  const x = outer.split('.');
  const y = inner.split('.');
  for (let i = 0; ; i++) {
    const p = x[i];
    const q = y[i];
    if (p === '>') return q !== undefined;
    if (p === undefined || q === undefined) return p === q;
    if (q === '>' || q === '*') {
      if (p !== '*') return false;
    } else if (p !== '*' && p !== q) return false;
  }
}

