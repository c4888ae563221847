/**
 * The in-process bus (spec "Events", adapters: an in-process bus for tests
 * and single-process apps). Each subscription has its own bounded queue and
 * one worker that hands queued events to the shared delivery rules in
 * order; publishing only enqueues, so it never waits for a handler.
 */
import { ConfigError } from '../errors/api-error.js';
import { defaultLogger, type Logger } from '../log/logger.js';
import { deliverNow, positiveWhole, type Subscriber, subscriber } from './delivery.js';
import type { EventBus, MfxEvent, SubscribeOptions, Subscription } from './types.js';

export interface MemoryBusOptions {
  /** Events one subscription may hold waiting for its handler; a publish beyond it drops the event for that subscription (logged). Default 10 000. */
  capacity?: number;
  logger?: Logger;
}

class MemorySubscription implements Subscription {
  private readonly queue: MfxEvent[] = [];
  private head = 0;
  private running: Promise<void> | null = null;
  closed = false;

  constructor(
    readonly sub: Subscriber,
    private readonly bus: MemoryBus,
    private readonly capacity: number,
    private readonly log: Logger,
    private readonly detach: (s: MemorySubscription) => void,
  ) {}

  get name(): string {
    return this.sub.name;
  }

  offer(event: MfxEvent): void {
    if (this.closed || !this.sub.matches(event.type)) return;
    if (this.queue.length - this.head >= this.capacity) {
      this.log.warn({ subscription: this.sub.name, eventId: event.id, type: event.type, capacity: this.capacity }, 'event dropped: the subscription queue is full');
      return;
    }
    this.queue.push(event);
    this.running ??= this.drain();
  }

  private async drain(): Promise<void> {
    // Starts on a later turn: the publisher (a request) goes on at once.
    await Promise.resolve();
    while (this.head < this.queue.length) {
      const event = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      // A handler that answers now costs no promise (deliverNow); one that returns a promise is waited for.
      const outcome = deliverNow(event, this.sub, this.bus, this.log);
      if (outcome instanceof Promise) await outcome;
    }
    this.queue.length = 0;
    this.head = 0;
    this.running = null;
  }

  get busy(): boolean {
    return this.running !== null;
  }

  /** Resolves once every queued event has been handled. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.detach(this);
    await this.idle();
  }
}

/** See `memoryBus()`. */
export class MemoryBus implements EventBus {
  readonly kind = 'memory';
  private readonly subs = new Map<string, MemorySubscription>();
  private readonly capacity: number;
  private readonly log: Logger;
  private closed = false;

  constructor(options: MemoryBusOptions = {}) {
    this.capacity = positiveWhole('memoryBus()', 'capacity', options.capacity ?? 10_000);
    this.log = options.logger ?? defaultLogger('mfx-events');
  }

  async publish(events: readonly MfxEvent[]): Promise<void> {
    if (this.closed) throw new ConfigError('the memory bus is closed');
    for (const event of events) for (const sub of this.subs.values()) sub.offer(event);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new ConfigError('the memory bus is closed');
    const sub = subscriber(options);
    if (this.subs.has(sub.name)) throw new ConfigError(`memoryBus: a subscription named ${sub.name} already exists`);
    const subscription = new MemorySubscription(sub, this, this.capacity, this.log, (s) => {
      if (this.subs.get(s.name) === s) this.subs.delete(s.name);
    });
    this.subs.set(sub.name, subscription);
    return subscription;
  }

  /** Resolves once every subscription has handled what was published so far (dead letters they publish included). */
  async idle(): Promise<void> {
    for (let settled = false; !settled; ) {
      settled = true;
      for (const sub of [...this.subs.values()]) {
        await sub.idle();
      }
      for (const sub of this.subs.values()) if (sub.busy) settled = false;
    }
  }

  /** Drains every queue (handlers finish, dead letters still reach open subscriptions), then refuses further publishes. */
  async close(): Promise<void> {
    await this.idle();
    this.closed = true;
    await Promise.all([...this.subs.values()].map((s) => s.close()));
  }
}

/**
 * An in-process bus: one bounded queue per subscription, handled in order
 * with the shared retries and dead letters; publish never waits for a
 * handler; close drains every queue.
 *
 * @example
 * const bus = memoryBus();
 * await bus.subscribe({ name: 'mailer', patterns: ['user.created'], handler: (event) => welcome(event.data) });
 * app.use('db', publishEvents(bus), { position: 'after', models: ['User'] });
 */
export function memoryBus(options: MemoryBusOptions = {}): MemoryBus {
  return new MemoryBus(options);
}
