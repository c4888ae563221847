/**
 * The transactional outbox (spec "Events", publishing under a transaction):
 * `publish` inserts the events into `mfx_outbox` inside the write's
 * transaction, so they commit or roll back with it; a relay ships committed
 * rows to the broker bus (`relayTo`) in order and marks them shipped. Several
 * relays (replicas) may run on one database: each batch is claimed in a
 * transaction (PostgreSQL `FOR UPDATE SKIP LOCKED`; SQLite's immediate-mode
 * write lock) and a relay that would ship rows behind another relay's claimed
 * ones ships nothing until those are done, so no row is published twice by
 * two relays and the order holds. A relay that dies after the broker took a
 * batch and before marking it ships that batch again (at-least-once).
 */
import type { Adapter, Executor, Row } from '../db/adapter.js';
import { rawNow } from '../db/now.js';
import { type Maybe, then } from '../util/maybe.js';
import { type Duration, durationMs } from '../config/readers.js';
import { ConfigError } from '../errors/api-error.js';
import { defaultLogger, type Logger } from '../log/logger.js';
import type { SqlDialect } from '../sql/dialect.js';
import { constraintName, type TableSpec } from '../sql/schema.js';
import { BoundedCache } from '../util/bounded-cache.js';
import { timeOrderedUuid } from '../util/time-ordered-id.js';
import { positiveWhole } from './delivery.js';
import { isRecordEvent } from './publish.js';
import { type EventBus, type MfxEvent, publishNowMethod, type PublishesNow, type SubscribeOptions, type Subscription } from './types.js';
import { isoNow } from '../util/iso-time.js';

export interface OutboxOptions {
  /** The bus committed events are shipped to (a broker bus, or a memoryBus). */
  relayTo: EventBus;
  /** How often the relay looks for committed rows; default '1s'. A full batch is followed by the next at once, and a batch's worth of events written by this process since the last look brings the next one forward. */
  interval?: Duration;
  /** Rows shipped per transaction; default 100. */
  batch?: number;
  /** How long shipped rows are kept before they are pruned; default '24h'. */
  retention?: Duration;
  /** A row whose payload cannot be decoded is republished under this type (fresh id, `original_id` and `original_type` headers, the undecodable text in `data.payload`); without it the row is only logged. Either way it is marked shipped with its error. */
  dlqType?: string;
  /** The table; default `mfx_outbox`. */
  table?: string;
  logger?: Logger;
}

/**
 * The outbox table: the event id, a sequence that orders rows (a
 * per-process monotonic clock: milliseconds × 1000 plus a counter), the
 * type, the whole event as JSON, when it was written and shipped (ms since
 * the epoch), and why a row could not be shipped.
 *
 * Two partial indexes, of which a write's insert (shipped_at NULL) enters
 * only the first: every index entry is a page each write's commit writes.
 * The rows waiting to ship are indexed by (seq, id), through which the
 * relay finds and marks them; the shipped rows by `shipped_at`, through
 * which the prune finds those past the retention without reading the whole
 * table. A row enters the second index when the relay marks it shipped (in
 * the relay's batch, not in the write) and leaves the first. The event id
 * is not a key: ids are fresh per event, and a hand-built event published
 * twice ships twice, which at-least-once delivery allows (consumers dedupe
 * on the id).
 *
 * A table made before an index was added gets it from the next migration
 * (the planner creates every declared index a table lacks).
 */
export function outboxTable(name = 'mfx_outbox'): TableSpec {
  return {
    name,
    columns: [
      { name: 'id', type: 'string', nullable: false },
      { name: 'seq', type: 'bigint', nullable: false },
      { name: 'type', type: 'string', nullable: false },
      { name: 'payload', type: 'string', nullable: false },
      { name: 'created_at', type: 'bigint', nullable: false },
      { name: 'shipped_at', type: 'bigint', nullable: true },
      { name: 'error', type: 'string', nullable: true },
    ],
    indexes: [
      // Only rows waiting to ship: the index stays as small as the backlog, whatever the retention.
      { name: `ix_${name}_pending`, columns: ['seq', 'id'], unique: false, liveOnly: { column: 'shipped_at', type: 'timestamp' } },
      // Only shipped rows, for the prune (`shipped_at <= ?`): an insert (shipped_at NULL) adds no entry.
      { name: constraintName('ix', name, 'shipped'), columns: ['shipped_at'], unique: false, whereNotNull: 'shipped_at' },
    ],
  };
}

let lastSeq = 0;
/** Strictly increasing within the process, close to the wall clock across processes. */
function nextSeq(): number {
  lastSeq = Math.max(lastSeq + 1, Date.now() * 1000);
  return lastSeq;
}

const MAX_BACKOFF_MS = 30_000;

/**
 * Bytes of events this process wrote and its relay has not shipped yet, kept
 * so the relay hands on the event it wrote instead of parsing the row's JSON
 * again (the largest part of what the relay costs per event: about 35k of the
 * 200k instructions an outbox adds to a create). Only events publishEvents
 * built from a record are kept: their JSON parses back to an equal object
 * (isRecordEvent), so a subscriber gets what a parse of the row would give.
 * A row whose event is not kept (written by another process, a hand-built
 * event, or evicted, oldest first) is parsed as before.
 */
const WRITTEN_EVENTS_BYTES = 4 * 1024 * 1024;
/** Bytes an entry is counted beyond its JSON text: the Map slot and the event's object headers. */
const WRITTEN_EVENT_OVERHEAD = 256;

/** See `outboxBus()`. */
export class OutboxBus implements EventBus, PublishesNow {
  readonly kind = 'outbox';
  readonly transactional = true;
  readonly tables: readonly TableSpec[];
  readonly relayTo: EventBus;
  private readonly table: string;
  private readonly intervalMs: number;
  private readonly batch: number;
  private readonly retentionMs: number;
  private readonly dlqType: string | null;
  private readonly log: Logger;
  private readonly subscriptions = new Set<Subscription>();
  private timer: NodeJS.Timeout | null = null;
  private tick: Promise<void> | null = null;
  private running = false;
  private failures = 0;
  private lastPrune = 0;
  /** Events published through this bus since the relay last looked (see lookNow). */
  private writtenSinceLook = 0;
  /** Events this process wrote to the table, by id, until the relay ships their rows (see WRITTEN_EVENTS_BYTES). */
  private readonly written = new BoundedCache<string, { event: MfxEvent; chars: number }>(WRITTEN_EVENTS_BYTES, (_id, kept) => 2 * kept.chars + WRITTEN_EVENT_OVERHEAD);

  constructor(
    private readonly database: Adapter | (() => Adapter),
    options: OutboxOptions,
  ) {
    if (!options?.relayTo || typeof options.relayTo.publish !== 'function') throw new ConfigError('outboxBus(db, { relayTo }) needs relayTo: the bus committed events are shipped to');
    if (options.relayTo.transactional) throw new ConfigError('outboxBus(): relayTo must be a broker or memory bus, not another outbox');
    this.relayTo = options.relayTo;
    this.table = options.table ?? 'mfx_outbox';
    this.tables = [outboxTable(this.table)];
    this.intervalMs = durationMs(options.interval, 1000, 'outboxBus interval');
    this.batch = positiveWhole('outboxBus()', 'batch', options.batch ?? 100);
    this.retentionMs = durationMs(options.retention, 24 * 3_600_000, 'outboxBus retention');
    this.dlqType = options.dlqType ?? null;
    this.log = options.logger ?? defaultLogger('mfx-outbox');
  }

  /** The database whose `mfx_outbox` table this bus writes: the events of a model on another database cannot join its write's transaction. */
  get db(): Adapter {
    return typeof this.database === 'function' ? this.database() : this.database;
  }

  private q(identifier: string): string {
    return this.db.dialect.quote(identifier);
  }

  /** Inserts the events in `tx` (the write's transaction), or on their own without one. */
  async publish(events: readonly MfxEvent[], tx?: Executor): Promise<void> {
    return this[publishNowMethod](events, tx);
  }

  /** publish, without a promise where the executor writes now (a SQLite transaction): publishEvents' path. */
  [publishNowMethod](events: readonly MfxEvent[], tx?: Executor): Maybe<void> {
    if (events.length === 0) return;
    const db = tx ?? this.db;
    const now = Date.now();
    const params: unknown[] = [];
    for (const event of events) params.push(event.id, nextSeq(), event.type, JSON.stringify(event), now);
    return then(rawNow(db, this.insertSql(events.length), params), () => this.wrote(events, params));
  }

  /** The rows of `events` are written (`params` their INSERT's values). */
  private wrote(events: readonly MfxEvent[], params: readonly unknown[]): void {
    // Kept once the rows are written; a row rolled back with its write is never claimed, and its entry ages out.
    events.forEach((event, i) => {
      if (isRecordEvent(event)) this.written.add(event.id, { event, chars: (params[5 * i + 3] as string).length });
    });
    this.writtenSinceLook += events.length;
    if (this.writtenSinceLook >= this.batch) this.lookNow();
  }

  private insertOne: string | null = null;

  /** The INSERT of `count` rows (the one-row statement, the common case, built once). */
  private insertSql(count: number): string {
    if (count === 1 && this.insertOne) return this.insertOne;
    const cols = ['id', 'seq', 'type', 'payload', 'created_at'].map((c) => this.q(c)).join(', ');
    const sql = `INSERT INTO ${this.q(this.table)} (${cols}) VALUES ${Array.from({ length: count }, () => '(?, ?, ?, ?, ?)').join(', ')}`;
    if (count === 1) this.insertOne = sql;
    return sql;
  }

  /** Subscribes on `relayTo`, where the relay ships events. */
  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const subscription = await this.relayTo.subscribe(options);
    this.subscriptions.add(subscription);
    return {
      name: subscription.name,
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  private statements: { dialect: unknown; sql: RelayStatements } | null = null;

  /** The relay's SQL, quoted once per bus (per dialect). */
  private get sql(): RelayStatements {
    const dialect = this.db.dialect;
    if (this.statements?.dialect === dialect) return this.statements.sql;
    const sql = relayStatements(dialect, this.table);
    this.statements = { dialect, sql };
    return sql;
  }

  /**
   * Ships one batch of committed rows to `relayTo` and marks them shipped,
   * in one transaction; resolves with the rows shipped (0 when there were
   * none, or when another relay holds earlier rows). A failing publish
   * rejects and leaves the rows for the next try.
   */
  async relayOnce(): Promise<number> {
    const sql = this.sql;
    // A look without a transaction first: an idle outbox never takes the write lock (SQLite) or a claim.
    const waiting = await this.db.raw(sql.waiting, [], { readPrimary: true });
    if (waiting.length === 0) return 0;
    return this.db.transaction(async (tx) => {
      const rows = await tx.raw(sql.claim, [this.batch]);
      if (rows.length === 0) return 0;
      if (tx.dialect.name === 'postgres') {
        // Rows before ours are claimed by another relay: shipping ours now would overtake them.
        const first = rows[0]!;
        const earlier = await tx.raw(sql.earlier, [first.seq, first.seq, first.id]);
        if (earlier.length > 0) return 0;
      }
      const events: MfxEvent[] = [];
      const ok: string[] = [];
      const broken: { id: string; seq: unknown; error: string }[] = [];
      // The claim reads keys only: the events this process wrote are in memory, the others' rows are read here.
      const kept = rows.map((row) => this.written.take(String(row.id))?.event);
      const stored = kept.includes(undefined) ? await this.storedRows(tx, rows, kept) : null;
      rows.forEach((row, i) => {
        const id = String(row.id);
        const full = stored?.get(id) ?? row;
        const decoded = kept[i] ?? decode(full);
        if (typeof decoded !== 'string') {
          events.push(decoded);
          ok.push(id);
          return;
        }
        broken.push({ id, seq: row.seq, error: decoded });
        this.log.error({ outboxId: row.id, type: full.type, err: decoded, dlqType: this.dlqType }, this.dlqType ? 'outbox row dead-lettered: it cannot be decoded' : 'outbox row dropped: it cannot be decoded and the outbox has no dlqType');
        if (this.dlqType) events.push(deadRow(full, this.dlqType));
      });
      if (events.length > 0) await this.relayTo.publish(events);
      const now = Date.now();
      for (const b of broken) await tx.raw(sql.broken, [now, b.error, b.seq, b.id]);
      if (ok.length > 0) {
        if (tx.dialect.name === 'postgres') {
          await tx.raw(sql.shipped(ok.length), [now, rows[0]!.seq, rows[rows.length - 1]!.seq, ...ok]);
        } else {
          // SQLite's write lock is held since the claim: the rows still waiting up to the last one claimed are
          // exactly the batch (the broken ones are marked already), found along the pending index by one range.
          const last = rows[rows.length - 1]!;
          await tx.raw(sql.shippedThrough, [now, last.seq, last.seq, last.id]);
        }
      }
      return rows.length;
    });
  }

  /**
   * The type and payload of the claimed rows whose events this process does
   * not hold (written by another replica or before a restart, or evicted),
   * by id, in one statement along the pending index; the claim keeps them locked.
   */
  private async storedRows(tx: Executor, rows: readonly Row[], kept: readonly (MfxEvent | undefined)[]): Promise<Map<string, Row>> {
    const ids = rows.filter((_, i) => kept[i] === undefined).map((row) => String(row.id));
    const found = await tx.raw(this.sql.stored(ids.length), [rows[0]!.seq, rows[rows.length - 1]!.seq, ...ids]);
    return new Map(found.map((row) => [String(row.id), row]));
  }

  /** Deletes rows shipped longer than the retention ago; resolves with how many. */
  async prune(now = Date.now()): Promise<number> {
    const rows = await this.db.raw(this.sql.prune, [now - this.retentionMs]);
    return rows.length;
  }

  /** Starts the relay (the server does, once it listens): a batch now, then every interval. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.tick = this.relay().finally(() => (this.tick = null));
    }, ms);
    this.timer.unref();
  }

  /**
   * Brings the relay's next look forward when this process has written a
   * full batch since the last one, rather than waiting out the interval:
   * under load the relay then ships batch after batch as they fill, so an
   * event waits for about one batch of writes instead of up to an interval
   * of them (kept in memory meanwhile: at 2,000 writes a second, 2,000
   * events outliving young-generation collections). While a batch is being
   * shipped there is no timer: the relay counts the writes when it is done
   * and looks again at once. Never while the relay backs off after failures.
   */
  private lookNow(): void {
    if (this.timer === null || this.failures > 0) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.schedule(0);
  }

  private async relay(): Promise<void> {
    this.writtenSinceLook = 0;
    let next = this.intervalMs;
    try {
      const shipped = await this.relayOnce();
      this.failures = 0;
      const now = Date.now();
      if (now - this.lastPrune >= Math.min(this.retentionMs, 60_000)) {
        this.lastPrune = now;
        await this.prune(now);
      }
      if (shipped === this.batch || this.writtenSinceLook >= this.batch) next = 0;
    } catch (error) {
      this.failures++;
      next = Math.min(Math.max(this.intervalMs, 100) * 2 ** (this.failures - 1), MAX_BACKOFF_MS);
      this.log.warn({ err: String((error as Error)?.message ?? error), failures: this.failures, retryInMs: next }, 'outbox relay failed; retrying');
    }
    this.schedule(next);
  }

  /** Stops the relay after the batch it is shipping (the server does, before closing the database). */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.tick;
  }

  /** Stops the relay and closes the subscriptions made through this bus; `relayTo` stays open for its owner. */
  async close(): Promise<void> {
    await this.stop();
    const subscriptions = [...this.subscriptions];
    this.subscriptions.clear();
    await Promise.all(subscriptions.map((s) => s.close()));
  }
}

/** The relay's statements of one bus (see relayStatements). */
export interface RelayStatements {
  waiting: string;
  /** The next batch's keys, in order (locked on PostgreSQL). */
  claim: string;
  /** The id, type and payload of `n` claimed rows, by id within their range of seq. */
  stored: (count: number) => string;
  earlier: string;
  shipped: (count: number) => string;
  /** SQLite: marks every waiting row up to (seq, id) of the batch's last. */
  shippedThrough: string;
  broken: string;
  prune: string;
}

/**
 * The relay's statements on `table` in `dialect`; marking a batch shipped
 * lists its ids (`shipped(n)`, one statement per size, which the adapter's
 * statement cache keeps). Exported for the tests of their query plans.
 *
 * @example
 * relayStatements(db.dialect, 'mfx_outbox').prune // 'DELETE FROM "mfx_outbox" WHERE "shipped_at" IS NOT NULL AND ...'
 */
export function relayStatements(dialect: SqlDialect, table: string): RelayStatements {
  const q = (identifier: string) => dialect.quote(identifier);
  const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
  const t = q(table);
  const [id, seq, type, payload, shipped, error] = ['id', 'seq', 'type', 'payload', 'shipped_at', 'error'].map(q);
  return {
    waiting: `SELECT 1 AS one FROM ${t} WHERE ${shipped} IS NULL LIMIT 1`,
    claim: `SELECT ${id} AS id, ${seq} AS seq FROM ${t} WHERE ${shipped} IS NULL ORDER BY ${seq}, ${id} LIMIT ?${dialect.lockRowsSkipLockedClause}`,
    stored: (n) => `SELECT ${id} AS id, ${type} AS type, ${payload} AS payload FROM ${t} WHERE ${shipped} IS NULL AND ${seq} >= ? AND ${seq} <= ? AND ${id} IN (${marks(n)})`,
    earlier: `SELECT 1 AS one FROM ${t} WHERE ${shipped} IS NULL AND (${seq} < ? OR (${seq} = ? AND ${id} < ?)) LIMIT 1`,
    // The batch's ids within its range of seq: found through the pending index (ids are not indexed).
    shipped: (n) => `UPDATE ${t} SET ${shipped} = ? WHERE ${shipped} IS NULL AND ${seq} >= ? AND ${seq} <= ? AND ${id} IN (${marks(n)})`,
    shippedThrough: `UPDATE ${t} SET ${shipped} = ? WHERE ${shipped} IS NULL AND ${seq} <= ? AND (${seq} < ? OR ${id} <= ?)`,
    broken: `UPDATE ${t} SET ${shipped} = ?, ${error} = ? WHERE ${shipped} IS NULL AND ${seq} = ? AND ${id} = ?`,
    // Along the shipped index: its condition (`shipped_at IS NOT NULL`) is spelled out, as SQLite's planner wants it.
    prune: `DELETE FROM ${t} WHERE ${shipped} IS NOT NULL AND ${shipped} <= ? RETURNING ${id}`,
  };
}

function decode(row: Row): MfxEvent | string {
  try {
    const event = JSON.parse(String(row.payload)) as MfxEvent;
    if (!event || typeof event !== 'object' || typeof event.id !== 'string' || typeof event.type !== 'string') return 'the payload is not an event';
    // Parsed here, so it is this relay's own object: completed in place rather than copied.
    event.headers ??= {};
    return event;
  } catch (error) {
    return `the payload is not JSON: ${(error as Error).message}`;
  }
}

function deadRow(row: Row, dlqType: string): MfxEvent {
  return {
    id: timeOrderedUuid(),
    type: dlqType,
    model: null,
    recordId: null,
    data: { payload: String(row.payload) },
    tenantId: null,
    actorId: null,
    requestId: null,
    time: isoNow(),
    headers: { original_id: String(row.id), original_type: String(row.type) },
  };
}

/**
 * A bus that writes events into the `mfx_outbox` table inside the write's
 * transaction (the table is created by the migration) and a relay that
 * ships committed rows to `relayTo` in order, started and stopped with the
 * server. Subscribe on it or on `relayTo` alike.
 *
 * @example
 * const outbox = outboxBus(() => app.db, { relayTo: natsBus(...), interval: '500ms' });
 * app.use('db', publishEvents(outbox), { position: 'after', models: ['Order'] });
 */
export function outboxBus(db: Adapter | (() => Adapter), options: OutboxOptions): OutboxBus {
  return new OutboxBus(db, options);
}
