/**
 * The delivery rules every bus shares (spec "Events", delivery 1 and 3):
 * dotted pattern matching, a handler's tries with doubling backoff, and the
 * dead-letter republish of an event whose tries ran out. A bus receives an
 * event its own way (a queue, a stream read, a broker message) and calls
 * `deliver`; it acknowledges the event to its broker once `deliver` settles,
 * whatever the outcome but `stopped`, because the outcome has then been
 * dealt with here. The broker adapters take that step through
 * `BrokerSubscription.receive`, and end the same way (`BrokerBusState`,
 * `BrokerSubscription.ended`) when their connection is gone for good.
 */
import { ConfigError } from '../errors/api-error.js';
import type { Logger } from '../log/logger.js';
import type { Maybe } from '../util/maybe.js';
import { timeOrderedUuid } from '../util/time-ordered-id.js';
import type { EventBus, MfxEvent, SubscribeOptions, Subscription } from './types.js';
import { isoNow } from '../util/iso-time.js';

const SEGMENT = /^[a-z0-9_-]+$|^\*$/i;

/**
 * True for a pattern `job.*.<outcome>`: job events are `job.<type>.<outcome>`
 * and a job type may be dotted (`email.send`), so the `*` after `job` stands
 * for the whole job type, however many segments it has. Adapters that hand
 * patterns to their broker widen such a pattern there (`job.#.completed` on
 * AMQP, `job.>` on NATS) and leave the exact match to `compilePatterns`.
 *
 * @example
 * spansJobType('job.*.completed'); // true
 */
export function spansJobType(pattern: string): boolean {
  return pattern.startsWith('job.*.') && pattern.indexOf('.', 6) === -1;
}

/**
 * Checks the patterns once (at subscribe) and returns the matcher; `*`
 * matches exactly one dotted segment, except in `job.*.<outcome>` where it
 * matches a whole job type (spansJobType).
 */
export function compilePatterns(patterns: readonly string[]): (type: string) => boolean {
  if (!Array.isArray(patterns) || patterns.length === 0) throw new ConfigError('subscribe() needs patterns: at least one dotted type pattern such as "post.*"');
  const compiled = patterns.map((pattern) => {
    const segments = typeof pattern === 'string' ? pattern.split('.') : [];
    if (segments.length === 0 || !segments.every((s) => SEGMENT.test(s))) {
      throw new ConfigError(`"${String(pattern)}" is not an event pattern: write dotted segments of letters, digits, '_' or '-', with '*' for one whole segment (e.g. "post.*", "*.deleted")`);
    }
    return { segments, jobType: spansJobType(pattern) };
  });
  return (type) => {
    const parts = type.split('.');
    return compiled.some(
      ({ segments, jobType }) =>
        (segments.length === parts.length && segments.every((s, i) => s === '*' || s === parts[i])) ||
        // A dotted job type: `job`, then two or more type segments, then the outcome the pattern names (or any, for `*`).
        (jobType && parts.length > 3 && parts[0] === 'job' && (segments[2] === '*' || segments[2] === parts[parts.length - 1])),
    );
  };
}

/** A subscription with its defaults applied and its patterns compiled, made once per subscribe. */
export interface Subscriber {
  name: string;
  matches: (type: string) => boolean;
  handler: SubscribeOptions['handler'];
  retries: number;
  dlqType: string | null;
  backoffMs: number;
  onClosed: ((reason: Error) => void) | null;
  ephemeral: boolean;
}

const MAX_BACKOFF_MS = 30_000;

/** Validates subscribe() options the same way for every bus. */
export function subscriber(options: SubscribeOptions): Subscriber {
  if (!options || typeof options.name !== 'string' || options.name === '') throw new ConfigError('subscribe() needs a name: it names the consumer group or queue');
  if (typeof options.handler !== 'function') throw new ConfigError(`subscribe({ name: '${options.name}' }) needs a handler(event, info)`);
  const retries = options.retries ?? 3;
  if (!Number.isInteger(retries) || retries < 0) throw new ConfigError(`subscribe({ name: '${options.name}' }): retries must be a whole number of 0 or more, not ${String(options.retries)}`);
  const backoffMs = options.backoffMs ?? 100;
  if (!(backoffMs >= 0)) throw new ConfigError(`subscribe({ name: '${options.name}' }): backoffMs must be 0 or more`);
  if (options.dlqType !== undefined) compilePatterns([options.dlqType]);
  if (options.ephemeral !== undefined && typeof options.ephemeral !== 'boolean') throw new ConfigError(`subscribe({ name: '${options.name}' }): ephemeral must be true or false, not ${String(options.ephemeral)}`);
  return {
    name: options.name,
    matches: compilePatterns(options.patterns),
    handler: options.handler,
    retries,
    dlqType: options.dlqType ?? null,
    backoffMs,
    onClosed: options.onClosed ?? null,
    ephemeral: options.ephemeral === true,
  };
}

/**
 * Checks a bus option that counts something (a batch, a wait in ms): a whole
 * number above 0, or a ConfigError naming the bus and the option. Shared by
 * the runtime's buses and the broker packages so the rule and its message are
 * written once.
 *
 * @example
 * const batch = positiveWhole('natsBus()', 'batch', options.batch ?? 16);
 */
export function positiveWhole(owner: string, name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`${owner}: ${name} must be a whole number above 0, not ${String(value)}`);
  return value;
}

/** The event a dead letter republishes: a fresh id, the original headers plus `original_type` and `original_id`, everything else kept. */
export function deadLetterOf(event: MfxEvent, dlqType: string): MfxEvent {
  return {
    ...event,
    id: timeOrderedUuid(),
    type: dlqType,
    time: isoNow(),
    headers: { ...event.headers, original_type: event.type, original_id: event.id },
  };
}

/** `stopped`: the bus closed between tries; the bus leaves that event unacknowledged so its broker redelivers it. */
export type DeliveryOutcome = 'handled' | 'dead-lettered' | 'dropped' | 'stopped';

/**
 * Runs the subscriber's handler on one event: the first try and up to
 * `retries` more, waiting `backoffMs`, then twice that, ... (capped at 30 s)
 * between them, unless `stopped()` turns true (the bus is closing: the
 * event is then left for redelivery, outcome 'dropped' without a dead
 * letter). When the tries run out the event is republished under the DLQ
 * type through `bus`; a failing dead-letter publish is logged and the event
 * is lost. Never rejects.
 */
export async function deliver(event: MfxEvent, sub: Subscriber, bus: EventBus, log: Logger, stopped: () => boolean = () => false): Promise<DeliveryOutcome> {
  return deliverNow(event, sub, bus, log, stopped);
}

/**
 * `deliver`, answered now when the first try's handler does (a handler that
 * returns no promise, as a counter or an in-process cache does): the buses'
 * own path, without a promise per event.
 */
export function deliverNow(event: MfxEvent, sub: Subscriber, bus: EventBus, log: Logger, stopped: () => boolean = () => false): Maybe<DeliveryOutcome> {
  let handled: unknown;
  try {
    handled = sub.handler(event, { subscription: sub.name, attempt: 1 });
  } catch (error) {
    return tryAgain(event, sub, bus, log, stopped, 1, error);
  }
  // Any thenable is waited for, as `await` would.
  if (typeof (handled as PromiseLike<unknown> | null)?.then !== 'function') return 'handled';
  return Promise.resolve(handled).then(
    (): DeliveryOutcome => 'handled',
    (error: unknown) => tryAgain(event, sub, bus, log, stopped, 1, error),
  );
}

/** After try number `failed` threw `error`: the tries left, waiting the backoff before each, then the dead letter. */
async function tryAgain(event: MfxEvent, sub: Subscriber, bus: EventBus, log: Logger, stopped: () => boolean, failed: number, error: unknown): Promise<DeliveryOutcome> {
  let lastError = error;
  for (let attempt = failed; ; ) {
    log.warn({ subscription: sub.name, eventId: event.id, type: event.type, attempt, err: errorText(lastError) }, 'event handler failed');
    // An error marked final (a webhook's 4xx) would fail the same way again: no more tries.
    if ((lastError as { final?: unknown } | null)?.final === true || attempt > sub.retries) break;
    attempt++;
    await delay(Math.min(sub.backoffMs * 2 ** (attempt - 2), MAX_BACKOFF_MS));
    if (stopped()) return 'stopped';
    try {
      await sub.handler(event, { subscription: sub.name, attempt });
      return 'handled';
    } catch (next) {
      lastError = next;
    }
  }
  if (!sub.dlqType) {
    log.error({ subscription: sub.name, eventId: event.id, type: event.type, err: errorText(lastError) }, 'event dropped: its tries ran out and the subscription has no dlqType');
    return 'dropped';
  }
  const dead = deadLetterOf(event, sub.dlqType);
  try {
    await bus.publish([dead]);
    log.warn({ subscription: sub.name, eventId: event.id, type: event.type, deadLetterId: dead.id, dlqType: sub.dlqType }, 'event dead-lettered');
    return 'dead-lettered';
  } catch (error) {
    log.error({ subscription: sub.name, eventId: event.id, type: event.type, dlqType: sub.dlqType, err: errorText(error) }, 'event lost: the dead-letter publish failed');
    return 'dropped';
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorText(error: unknown): string {
  return String((error as Error)?.message ?? error);
}

/**
 * The event as a broker message's text, and back: one wire form for every
 * broker bus. `decodeEvent` answers null for text that is not an event (no
 * string id or type), which a bus acknowledges and skips.
 */
export function encodeEvent(event: MfxEvent): string {
  return JSON.stringify(event);
}

export function decodeEvent(text: string): MfxEvent | null {
  try {
    const event = JSON.parse(text) as MfxEvent;
    return event && typeof event.id === 'string' && typeof event.type === 'string' ? { ...event, headers: event.headers ?? {} } : null;
  } catch {
    return null;
  }
}

/**
 * What a broker does with one received message once the shared rules have
 * dealt with it, in its own calls.
 */
export interface Settle {
  /** Done with it: the broker forgets it (XACK, ack). */
  ack(): unknown;
  /**
   * The bus is stopping: the message goes back for redelivery (a negative
   * acknowledgement). Absent where a message left unacknowledged is
   * redelivered anyway (a Redis pending entry).
   */
  retry?(): unknown;
}

/**
 * What the subscription of every broker bus (Redis Streams, NATS JetStream,
 * AMQP) shares: the one step a received message takes (`receive`) and how
 * the subscription ends, by `close()` or by its connection going for good
 * (`ended`). An adapter's subscription extends it with its broker's reading,
 * acknowledging and closing.
 *
 * @example
 * class NatsSubscription extends BrokerSubscription {
 *   private async run() {
 *     for await (const msg of messages) await this.receive(msg.string(), { ack: () => msg.ack(), retry: () => msg.nak() }, { subject: msg.subject });
 *   }
 * }
 */
export abstract class BrokerSubscription implements Subscription {
  readonly name: string;
  /** Set once it closes or ends: no message reaches the handler after, and a delivery stops between its tries. */
  protected stopping = false;

  constructor(
    protected readonly sub: Subscriber,
    protected readonly bus: EventBus,
    protected readonly log: Logger,
    /** What a received message is called in the logs (`amqp message`, `redis-streams entry`). */
    private readonly noun: string,
    /** Takes it out of its bus's running subscriptions. */
    private readonly forget: () => void,
  ) {
    this.name = sub.name;
  }

  abstract close(): Promise<void>;

  /** The connection is gone for good: the subscription ends and says why, once; a running handler finishes on its own. */
  ended(reason: Error): void {
    if (this.stop()) this.sub.onClosed?.(reason);
  }

  /** Starts stopping (close() and ended() both begin here); false when it had already. */
  protected stop(): boolean {
    if (this.stopping) return false;
    this.stopping = true;
    this.forget();
    return true;
  }

  /**
   * One received message, `text` its body (null: it has none), through the
   * shared rules: text that is not an event is logged and acknowledged; an
   * event of a type the patterns match is delivered (tries, then the dead
   * letter: `deliver`) and then acknowledged, one they do not match
   * acknowledged unread. While the subscription stops, before the handler
   * or between its tries, the message is handed back instead (`retry`).
   * True when it was acknowledged; an acknowledgement that fails rejects.
   */
  protected async receive(text: string | null, settle: Settle, where: Record<string, unknown>): Promise<boolean> {
    if (this.stopping) return this.handBack(settle);
    const event = text === null ? null : decodeEvent(text);
    if (!event) {
      this.log.error({ subscription: this.name, ...where }, `${this.noun} is not an event; acknowledged and skipped`);
    } else if (this.sub.matches(event.type)) {
      const outcome = await deliver(event, this.sub, this.bus, this.log, () => this.stopping);
      if (outcome === 'stopped') return this.handBack(settle);
    }
    await settle.ack();
    return true;
  }

  private async handBack(settle: Settle): Promise<false> {
    await settle.retry?.();
    return false;
  }
}

/**
 * What a broker bus keeps of its own life, the same for every broker: the
 * subscriptions it runs, whether the app closed it, and why it stopped
 * working when its connection went for good (AMQP, NATS without reconnect,
 * a Redis client that gave up reconnecting). Publish and subscribe call
 * `assertOpen()` first.
 *
 * @example
 * const state = new BrokerBusState(`the amqp bus on exchange "${exchange}"`);
 * connection.on('close', (error) => state.lose(error, () => log.error({ exchange }, 'amqp connection dropped')));
 */
export class BrokerBusState {
  readonly subscriptions = new Set<BrokerSubscription>();
  /** Set by the bus's close(). */
  closed = false;
  /** Why the bus stopped working when its connection went for good; null while it works. */
  lost: Error | null = null;

  /** `label` names the bus in the errors it refuses work with: `the nats bus on stream "EVENTS"`. */
  constructor(private readonly label: string) {}

  /** Throws when the bus refuses work: it was closed, or its connection was lost. */
  assertOpen(): void {
    if (this.closed || this.lost) throw new Error(this.lost && !this.closed ? `${this.label} lost its connection: ${this.lost.message}` : `${this.label} is closed`);
  }

  /** Refuses a second running subscription of one name on the bus. */
  assertFree(name: string): void {
    if ([...this.subscriptions].some((s) => s.name === name)) throw new ConfigError(`a subscription named "${name}" already runs on this bus`);
  }

  /**
   * The connection is gone for good: unless the bus was closed or had ended
   * already, `report()` logs it, every subscription ends (`ended`: its
   * onClosed called once), and the bus refuses work from then on.
   */
  lose(reason: Error, report: () => void): void {
    if (this.closed || this.lost) return;
    this.lost = reason;
    report();
    for (const s of [...this.subscriptions]) s.ended(reason);
  }

  /** Marks the bus closed and closes its subscriptions (each after its running handler); false when it was closed already. */
  async close(): Promise<boolean> {
    if (this.closed) return false;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    return true;
  }
}
