/**
 * The event bus contract (spec "Events", DESIGN "Events, webhooks, realtime").
 * Every bus, in-process, outbox or broker, implements `EventBus`; a broker
 * adapter is one file in its own package that implements `publish`,
 * `subscribe` and `close` and hands each received event to the shared
 * delivery rules (`events/delivery.ts`: pattern match, retries with backoff,
 * dead-letter republish), so those rules are written once.
 */
import type { Executor } from '../db/adapter.js';
import type { Maybe } from '../util/maybe.js';

/** One event. Field names follow DESIGN.md; `recordId` is set on every event, create included. */
export interface MfxEvent {
  /** Fresh per event (a UUID). */
  id: string;
  /** Dotted lower-case name: `<model name, first letter lower-cased>.created|updated|deleted`, `job.<type>.completed`, or an app's own. */
  type: string;
  /** The model's name, or null for an event that is not about a record. */
  model: string | null;
  recordId: string | null;
  /** The written row keyed by column name, hidden, writeonly, encrypted and `_hmac` columns stripped (see `redactRow`). */
  data: Record<string, unknown> | null;
  tenantId: string | null;
  actorId: string | null;
  requestId: string | null;
  /** When the event was made (ISO 8601, UTC). */
  time: string;
  /** Free-form string headers (`traceparent`, and `original_type`/`original_id` on a dead-lettered event). */
  headers: Record<string, string>;
}

/** What a handler receives beside the event. */
export interface DeliveryInfo {
  /** The subscription's name. */
  subscription: string;
  /** 1 on the first try, 2 on the first retry, ... */
  attempt: number;
}

export type EventHandler = (event: MfxEvent, info: DeliveryInfo) => void | Promise<void>;

export interface SubscribeOptions {
  /** Names the subscription: the consumer group, durable consumer or queue name on a broker; unique per bus. */
  name: string;
  /** Dotted type patterns; `*` matches exactly one segment (`post.*`, `*.deleted`). */
  patterns: readonly string[];
  handler: EventHandler;
  /** Tries after the first failure before the event is dead-lettered or dropped; default 3. */
  retries?: number;
  /** When set, an event whose tries are exhausted is republished under this type (fresh id, original headers plus `original_type` and `original_id`). */
  dlqType?: string;
  /** First retry delay in ms, doubled per retry (default 100, capped at 30 s); tests make it small. */
  backoffMs?: number;
  /** Called once when the subscription ends for a reason other than `close()` (a broker connection dropped for good), with that reason. */
  onClosed?: (reason: Error) => void;
  /**
   * The subscription's broker artefact (Redis consumer group, NATS consumer,
   * AMQP queue) lives only as long as the subscription: `close()` removes it,
   * and the broker or the bus removes it after its process died or its
   * connection dropped, so a per-process name (the realtime hub's) leaves
   * nothing behind. Events published while it does not run are not kept for
   * it and there is no redelivery to another process: at most once across a
   * crash. Default false (durable). In-process buses have nothing to remove.
   */
  ephemeral?: boolean;
}

export interface Subscription {
  readonly name: string;
  /** Stops receiving; resolves once handlers running for it have finished. */
  close(): Promise<void>;
}

export interface EventBus {
  /** Names the bus in logs and errors (`memory`, `outbox`, `redis-streams`, `nats`, `amqp`). */
  readonly kind: string;
  /**
   * Publishes in order; resolves when the bus has the events (a broker's
   * confirm, the outbox row written). A bus that writes into the caller's
   * transaction sets `transactional` and takes it as `tx`.
   */
  publish(events: readonly MfxEvent[], tx?: Executor): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Ends every subscription (after running handlers finish) and releases connections. */
  close(): Promise<void>;
  /**
   * True for a bus whose publish joins the write's transaction (the outbox):
   * `publishEvents` then publishes inside the transaction instead of after
   * the commit.
   */
  readonly transactional?: boolean;
}

/**
 * `publish` answered now where the write does (the outbox's insert in a
 * SQLite transaction): `publishEvents` calls it on a transactional bus that
 * has it, so a create and its event need no promise. A symbol, so it is no
 * part of the public EventBus.
 */
export const publishNowMethod = Symbol('mfx.publishNow');

export interface PublishesNow {
  [publishNowMethod](events: readonly MfxEvent[], tx?: Executor): Maybe<void>;
}
