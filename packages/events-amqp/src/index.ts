/**
 * @mfx/events-amqp: an mfx event bus on an AMQP 0-9-1 broker (RabbitMQ),
 * through amqplib. Events go to a topic exchange with their type as routing
 * key, on a confirm channel (publish resolves on the broker's confirm); a
 * subscription is a durable queue named after it, bound with its patterns,
 * and a message is acknowledged once the shared delivery rules have dealt
 * with it. No reconnect, by design: when the connection drops, every
 * subscription ends and its `onClosed(reason)` is called, and the bus refuses
 * further work, so the app decides (restart, alert) instead of the bus
 * silently losing messages in between. An ephemeral subscription's queue is
 * exclusive to the connection and auto-deleted: it is deleted when the
 * subscription closes and by the broker when the connection goes.
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
import { type Channel, type ChannelModel, type ConfirmChannel, connect, type ConsumeMessage, type Options } from 'amqplib';

export interface AmqpBusOptions {
  /** The broker URL (`amqp://guest:guest@127.0.0.1:5672`). */
  url: string;
  /** The topic exchange events are published to (default `mfx.events`, declared durable when missing). */
  exchange?: string;
  /** Queue names are `<queuePrefix><subscription name>` (default `<exchange>.`). */
  queuePrefix?: string;
  /** Messages a subscription holds unacknowledged at once (channel prefetch; default 16). */
  prefetch?: number;
  /** Extra arguments of each durable subscription queue's declaration (`expires`, `arguments`: a quorum queue, ...); durable is always on. Not applied to ephemeral queues. */
  queueOptions?: Options.AssertQueue;
  /** Where handler failures, dead letters and a dropped connection are logged (default silent). */
  logger?: Logger;
}

/**
 * Connects and returns an event bus on a topic exchange.
 *
 * @example
 * import { amqpBus } from '@mfx/events-amqp';
 * const bus = await amqpBus({ url: 'amqp://guest:guest@127.0.0.1:5672', exchange: 'shop.events' });
 * await bus.subscribe({ name: 'billing', patterns: ['order.*'], handler: bill, onClosed: (err) => process.exit(1) });
 */
export async function amqpBus(options: AmqpBusOptions): Promise<EventBus> {
  if (typeof options?.url !== 'string' || options.url === '') throw new ConfigError('amqpBus() needs { url }: the broker URL (amqp://user:password@host:5672)');
  const exchange = options.exchange ?? 'mfx.events';
  const queuePrefix = options.queuePrefix ?? `${exchange}.`;
  const prefetch = positiveWhole('amqpBus()', 'prefetch', options.prefetch ?? 16);
  const log = options.logger ?? silentLogger;
  const connection: ChannelModel = await connect(options.url);
  let publisher: ConfirmChannel;
  try {
    publisher = await connection.createConfirmChannel();
    await publisher.assertExchange(exchange, 'topic', { durable: true });
  } catch (error) {
    await connection.close().catch(() => {});
    throw error;
  }
  const state = new BrokerBusState(`the amqp bus on exchange "${exchange}"`);

  // Without an 'error' listener a connection error would crash the process; 'close' follows it and tells the rest.
  connection.on('error', (error: Error) => log.error({ exchange, err: error.message }, 'amqp connection error'));
  publisher.on('error', (error: Error) => log.error({ exchange, err: error.message }, 'amqp publish channel error'));
  connection.on('close', (error?: Error) => {
    const reason = error ?? new Error(`the AMQP connection of the bus on exchange "${exchange}" closed`);
    state.lose(reason, () => log.error({ exchange, err: reason.message }, 'amqp connection dropped: the bus does not reconnect; its subscriptions have ended'));
  });

  const bus: EventBus = {
    kind: 'amqp',
    async publish(events) {
      state.assertOpen();
      const confirms: Promise<void>[] = [];
      for (const event of events) {
        confirms.push(
          new Promise<void>((resolve, reject) => {
            publisher.publish(
              exchange,
              event.type,
              Buffer.from(encodeEvent(event)),
              { messageId: event.id, contentType: 'application/json', persistent: true, headers: event.headers, timestamp: Date.parse(event.time) / 1000 | 0 },
              (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(`the broker refused event ${event.id}`)) : resolve()),
            );
          }),
        );
      }
      await Promise.all(confirms);
    },
    async subscribe(subscribeOptions: SubscribeOptions) {
      state.assertOpen();
      const sub = subscriber(subscribeOptions);
      state.assertFree(sub.name);
      const channel = await connection.createChannel();
      channel.on('error', (error: Error) => log.error({ subscription: sub.name, err: error.message }, 'amqp subscription channel error'));
      const queue = `${queuePrefix}${sub.name}`;
      try {
        await channel.prefetch(prefetch);
        // Ephemeral: this connection's own queue, which the broker deletes when the connection goes.
        await channel.assertQueue(queue, sub.ephemeral ? { durable: false, exclusive: true, autoDelete: true } : { ...options.queueOptions, durable: true });
        // AMQP topic patterns: '*' is one word, as in mfx patterns; the job-type wildcard of job.*.<outcome> spans words ('#').
        for (const pattern of subscribeOptions.patterns) await channel.bindQueue(queue, exchange, spansJobType(pattern) ? `job.#${pattern.slice(5)}` : pattern);
      } catch (error) {
        await channel.close().catch(() => {});
        throw error;
      }
      const subscription = new AmqpSubscription(sub, channel, queue, bus, log, () => state.subscriptions.delete(subscription));
      state.subscriptions.add(subscription);
      await subscription.start();
      return subscription;
    },
    async close() {
      if (!(await state.close())) return;
      if (!state.lost) await connection.close().catch(() => {});
    },
  };
  return bus;
}

class AmqpSubscription extends BrokerSubscription {
  private consumerTag: string | null = null;
  /** Messages are handled one after the other, in the order the queue gives them. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    sub: Subscriber,
    private readonly channel: Channel,
    private readonly queue: string,
    bus: EventBus,
    log: Logger,
    forget: () => void,
  ) {
    super(sub, bus, log, 'amqp message', forget);
  }

  async start(): Promise<void> {
    const { consumerTag } = await this.channel.consume(this.queue, (msg) => {
      if (msg) this.chain = this.chain.then(() => this.handle(msg));
    });
    this.consumerTag = consumerTag;
  }

  private async handle(msg: ConsumeMessage): Promise<void> {
    try {
      await this.receive(msg.content.toString('utf8'), { ack: () => this.channel.ack(msg), retry: () => this.channel.nack(msg, false, true) }, { routingKey: msg.fields.routingKey });
    } catch (error) {
      // The channel went with the connection: the broker requeues what was not acknowledged.
      this.log.warn({ subscription: this.name, err: String((error as Error)?.message ?? error) }, 'amqp acknowledgement failed');
    }
  }

  async close(): Promise<void> {
    if (!this.stop()) {
      await this.chain;
      return;
    }
    if (this.consumerTag) await this.channel.cancel(this.consumerTag).catch(() => {});
    await this.chain;
    // Auto-delete would follow the cancel inside the broker; deleting it here means it is gone once close() resolves.
    if (this.sub.ephemeral) await this.channel.deleteQueue(this.queue).catch((error: Error) => this.log.warn({ subscription: this.name, err: error.message }, 'amqp: could not delete the ephemeral queue'));
    await this.channel.close().catch(() => {});
  }
}

