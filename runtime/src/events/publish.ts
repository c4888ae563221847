/**
 * Publishing (spec "Events", DESIGN "Events, webhooks, realtime"):
 * `publishEvents(bus)` at the DB step, position after, turns every
 * successful create, update and delete of the models and operations it is
 * scoped to into one event, rows a delete cascades to or clears included.
 * It follows writes as a write observer, so it sees exactly the rows the
 * write path changed and nothing of a write that failed.
 */
import type { Adapter, Executor } from '../db/adapter.js';
import { ConfigError } from '../errors/api-error.js';
import { fieldRoles } from '../manifest/roles.js';
import type { FieldManifest } from '../manifest/types.js';
import { describeHook, type RegisteredHook } from '../pipeline/hook-meta.js';
import type { Hook } from '../pipeline/types.js';
import type { WriteCaller, WriteChange, WriteOp } from '../pipeline/write-observers.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { TableSpec } from '../sql/schema.js';
import { randomTail, timeOrderedUuid } from '../util/time-ordered-id.js';
import { type EventBus, type MfxEvent, publishNowMethod, type PublishesNow } from './types.js';
import type { Maybe } from '../util/maybe.js';
import { isoNow } from '../util/iso-time.js';

const PAST: Record<WriteOp, string> = { create: 'created', update: 'updated', delete: 'deleted' };

/**
 * The event type of a write: the model's name with its first letter
 * lower-cased, a dot, and `created`, `updated` or `deleted`.
 *
 * @example
 * eventType('BlogPost', 'create') // 'blogPost.created'
 */
export function eventType(model: string, op: WriteOp): string {
  let types = typesOf.get(model);
  if (!types) {
    const prefix = `${model.charAt(0).toLowerCase()}${model.slice(1)}.`;
    typesOf.set(model, (types = { create: `${prefix}${PAST.create}`, update: `${prefix}${PAST.update}`, delete: `${prefix}${PAST.delete}` }));
  }
  return types[op];
}

// The three event types of each model name, made on its first event.
const typesOf = new Map<string, Record<WriteOp, string>>();

/**
 * A row as events carry it: keyed by column name, without hidden, writeonly
 * and encrypted fields and without `_hmac` blind-index columns (only the
 * model's recorded fields are kept). `row` may be keyed by column names (a
 * row read with SQL) or by field names (a record); values are kept as given.
 * Use it for events a custom action builds itself.
 *
 * @example
 * await bus.publish([{ ...event, data: redactRow(app.registry.get('User'), row) }]);
 */
export function redactRow(model: Pick<ModelMeta, 'fields'>, row: Record<string, unknown>): Record<string, unknown> {
  return redactorOf(model.fields, 'row')(row);
}

type Redactor = (row: Record<string, unknown>) => Record<string, unknown>;

/** What a redactor is handed: a row keyed by column name or a record by field name (`row`, redactRow's), or a record only (eventOf's). */
type RedactorInput = 'row' | 'record';

// The redactors of each field list (a registered model's, or a bare manifest's), made once each.
const redactors = { row: new WeakMap<readonly FieldManifest[], Redactor>(), record: new WeakMap<readonly FieldManifest[], Redactor>() };

/**
 * Straight-line code copying the recorded fields by column name (as the
 * record decoders are, store/codec.ts): the events of a model share one
 * object shape, which its stores and the outbox's JSON.stringify keep to,
 * where a loop's computed keys go through V8's slowest property paths. A
 * value is looked up by column name, then by field name (a record), or by
 * field name alone when the input is known to be a record (a write's
 * change); an undefined one is left out, as the event's JSON leaves it out.
 */
function redactorOf(fields: readonly FieldManifest[], input: RedactorInput): Redactor {
  let redact = redactors[input].get(fields);
  if (redact) return redact;
  const lines = fields
    .filter((field) => fieldRoles(field).recorded)
    .map(({ column, name }) => {
      const [c, n] = [JSON.stringify(column), JSON.stringify(name)];
      // A record is read by field name alone: the own-key test per field is only for what may be either.
      const read = input === 'record' ? `row[${n}]` : `(Object.hasOwn(row, ${c}) ? row[${c}] : ${name === column ? 'undefined' : `row[${n}]`})`;
      return `v = ${read}; if (v !== undefined) out[${c}] = v;`;
    });
  redact = new Function(`return function redact(row) { const out = {}; let v; ${lines.join(' ')} return out; }`)() as Redactor;
  redactors[input].set(fields, redact);
  return redact;
}

/**
 * A W3C traceparent for the write's trace: its trace id and a span id made
 * of the event id's random last 16 hex digits (never all zero: the variant
 * bits are there), which costs nothing where `randomBytes` per event would.
 * Not its first digits: those are the clock, shared by every event of a millisecond.
 */
function traceparentOf(traceId: string, eventId: string): string | null {
  return /^[0-9a-f]{32}$/.test(traceId) ? `00-${traceId}-${randomTail(eventId)}-01` : null;
}

/**
 * The event of one changed row: its id (the row's, also for a create), the
 * caller's user, tenant and request, and the row after the write (before it
 * for a delete) redacted by `redactRow`.
 */
export function eventOf(change: Pick<WriteChange, 'model' | 'op' | 'id' | 'before' | 'after' | 'caller'>): MfxEvent {
  const { model, op, caller } = change;
  const row = op === 'delete' ? change.before : change.after;
  // Time-ordered: the outbox's primary key then grows at its end (see util/time-ordered-id.ts).
  const id = timeOrderedUuid();
  const traceparent = traceparentOf(caller.traceId, id);
  const event: MfxEvent = {
    id,
    type: eventType(model.name, op),
    model: model.name,
    recordId: change.id,
    data: row ? redactorOf(model.fields, 'record')(row) : null,
    tenantId: caller.identity?.tenantId ?? null,
    actorId: caller.identity?.userId ?? null,
    requestId: caller.requestId,
    time: isoNow(),
    headers: traceparent ? { traceparent } : {},
  };
  recordEvents.add(event);
  return event;
}

// The events eventOf built: a record's decoded values (strings, numbers, booleans, null, parsed JSON) and strings around them.
const recordEvents = new WeakSet<MfxEvent>();

/**
 * Whether `event` is one eventOf built and holds plain JSON values only, so
 * its JSON text parses back to an equal object: an outbox's relay may then
 * ship the object it wrote instead of parsing the row (events/outbox.ts).
 * A hand-built event (a Date, an undefined member) is parsed from its row.
 */
export function isRecordEvent(event: MfxEvent): boolean {
  return recordEvents.has(event);
}

/** What the AsyncAPI document needs: the models each publishing registration covers. */
export interface PublishedModels {
  models: ModelMeta[];
  ops: readonly WriteOp[];
}

const WRITES: readonly WriteOp[] = ['create', 'update', 'delete'];

/**
 * Publishes an event for each successful create, update and delete. Register
 * it at the DB step, position after, scoped like any hook. On a
 * transactional bus (`outboxBus`) the event is written inside the write's
 * transaction (one is opened when the request has none) and commits or rolls
 * back with it; on any other bus the events of a request are published once
 * its transaction commits, in the order of the writes, and dropped when it
 * rolls back; a publish that fails then is logged (the write stands).
 *
 * @example
 * app.use('db', publishEvents(memoryBus()), { position: 'after', models: ['Post'] });
 */
export function publishEvents(bus: EventBus): Hook {
  if (!bus || typeof bus.publish !== 'function' || typeof bus.subscribe !== 'function') throw new ConfigError('publishEvents() needs an event bus: memoryBus(), outboxBus(db, { relayTo }) or a broker bus');
  const transactional = bus.transactional === true;
  // Events waiting for their transaction's commit, per request.
  const pending = new WeakMap<WriteCaller, MfxEvent[]>();

  const ship = async (caller: WriteCaller, events: MfxEvent[]) => {
    try {
      await bus.publish(events);
    } catch (error) {
      caller.log.error({ requestId: caller.requestId, bus: bus.kind, events: events.map((e) => e.id), err: String((error as Error)?.message ?? error) }, 'events lost: the publish after commit failed');
    }
  };

  const hook: Hook = (_ctx, next) => next();
  const tables = (bus as { tables?: readonly TableSpec[] }).tables;
  return describeHook(hook, {
    role: 'other',
    label: 'publishEvents()',
    passThrough: true,
    ...(tables ? { tables } : {}),
    setup({ entry, models, observeWrites, onStart, onStop, adapterOf }) {
      if (entry.step !== 'db' || entry.position !== 'after') throw new ConfigError("publishEvents() belongs at the db step, position after: app.use('db', publishEvents(bus), { position: 'after' })");
      if (transactional) refuseForeignModels(bus, models, adapterOf);
      const ops = entry.ops ? WRITES.filter((op) => entry.ops!.has(op)) : WRITES;
      published.set(entry, { models, ops });
      const lifecycle = bus as { start?: () => void; stop?: () => Promise<void> };
      // Stopped again when the app hands over (mfx serve --watch), so one relay runs per process.
      if (typeof lifecycle.start === 'function') onStart(() => lifecycle.start!(), typeof lifecycle.stop === 'function' ? () => lifecycle.stop!() : undefined);
      if (typeof lifecycle.stop === 'function') onStop(() => lifecycle.stop!());
      // An outbox writes its row now in a SQLite transaction: the create and its event then need no promise.
      const publishNow = (bus as Partial<PublishesNow>)[publishNowMethod]?.bind(bus) ?? ((events: MfxEvent[], tx: Executor) => bus.publish(events, tx));
      const observe = (tx: Executor, change: WriteChange): Maybe<void> => {
        if (!entry.matches(change.model.name, change.op)) return;
        const event = eventOf(change);
        if (transactional) return publishNow([event], tx);
        const { caller } = change;
        if (!tx.inTransaction) return ship(caller, [event]);
        const queued = pending.get(caller);
        if (queued) return void queued.push(event);
        const events = [event];
        pending.set(caller, events);
        caller.afterCommit(() => {
          pending.delete(caller);
          return ship(caller, events);
        });
        caller.onRollback(() => void pending.delete(caller));
      };
      const names = models.map((m) => m.name);
      const writes = ops.filter((op) => op !== 'delete');
      // A delete's event carries the row as it was: only deletes ask for the row before the write.
      if (writes.length > 0) observeWrites({ name: 'publishEvents()', ops: writes, needsTransaction: transactional, observe }, names);
      if (ops.includes('delete')) observeWrites({ name: 'publishEvents()', ops: ['delete'], needsBefore: true, needsTransaction: transactional, observe }, names);
    },
  });
}

/** A transactional bus writes into the write's own transaction, so every model it publishes for must live on the bus's database. */
function refuseForeignModels(bus: EventBus, models: readonly ModelMeta[], adapterOf: (model: ModelMeta) => Adapter): void {
  const db = (bus as { db?: Adapter }).db;
  if (!db) return;
  const foreign = models.filter((model) => adapterOf(model) !== db);
  if (foreign.length === 0) return;
  const names = foreign.map((m) => `${m.name}${m.options.adapter ? ` (adapter:${m.options.adapter})` : ''}`).join(', ');
  throw new ConfigError(
    `publishEvents(${bus.kind}) writes each event in its write's transaction, but ${names} ${foreign.length === 1 ? 'is' : 'are'} served from another database than the outbox's: ` +
      `scope this publishEvents to the outbox's models ({ models: [...] }) and publish the others' events through a broker bus or memoryBus() (sent after their commit)`,
  );
}

// Per registration: one publishEvents hook may be registered under several scopes.
const published = new WeakMap<RegisteredHook, PublishedModels>();

/** The models and operations a `publishEvents` registration publishes for, once the app has sealed (null for any other hook). */
export function publishedBy(entry: RegisteredHook): PublishedModels | null {
  return published.get(entry) ?? null;
}
