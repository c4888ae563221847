/**
 * Handlers that run once per event id (spec "Events", delivery rule 2).
 * Delivery is at-least-once; `dedupe(handler, store)` claims the event's id
 * (per subscription) before running the handler: a duplicate, concurrent or
 * later, is skipped; a handler error releases the claim so a retry or
 * redelivery runs again; a claim outlives a crash mid-handler, so such an
 * event is not run again.
 */
import type { Adapter } from '../db/adapter.js';
import { type Duration, durationMs } from '../config/readers.js';
import { ConfigError } from '../errors/api-error.js';
import type { TableSpec } from '../sql/schema.js';
import type { DeliveryInfo, EventHandler, MfxEvent } from './types.js';

export interface DedupeStore {
  /** Claims `key`; true when this caller got it, false when it was already claimed (and not released or expired). */
  claim(key: string): Promise<boolean>;
  /** Forgets a claim whose handler failed. */
  release(key: string): Promise<void>;
  /** System tables the store needs (declare them with `app.declareTable`). */
  readonly tables?: readonly TableSpec[];
}

/**
 * Wraps a handler so each event id runs once per subscription.
 *
 * @example
 * await bus.subscribe({ name: 'mailer', patterns: ['order.created'], handler: dedupe(sendReceipt, sqlDedupeStore(() => app.db)) });
 */
export function dedupe(handler: EventHandler, store: DedupeStore): (event: MfxEvent, info: DeliveryInfo) => Promise<void> {
  if (typeof handler !== 'function') throw new ConfigError('dedupe(handler, store) needs a handler(event, info)');
  if (!store || typeof store.claim !== 'function' || typeof store.release !== 'function') throw new ConfigError('dedupe(handler, store) needs a store: memoryDedupeStore({ ttl }) or sqlDedupeStore(db)');
  return async (event, info) => {
    const key = `${info.subscription}:${event.id}`;
    if (!(await store.claim(key))) return;
    try {
      await handler(event, info);
    } catch (error) {
      await store.release(key);
      throw error;
    }
  };
}

/** See `memoryDedupeStore()`. */
export class MemoryDedupeStore implements DedupeStore {
  private readonly claims = new Map<string, number>();
  private readonly ttlMs: number;
  private count = 0;

  constructor(options: { ttl?: Duration } = {}) {
    this.ttlMs = durationMs(options.ttl, 3_600_000, 'memoryDedupeStore ttl');
  }

  async claim(key: string): Promise<boolean> {
    const now = Date.now();
    if (++this.count % 1000 === 0) for (const [k, expires] of this.claims) if (expires <= now) this.claims.delete(k);
    const expires = this.claims.get(key);
    if (expires !== undefined && expires > now) return false;
    this.claims.set(key, now + this.ttlMs);
    return true;
  }

  async release(key: string): Promise<void> {
    this.claims.delete(key);
  }

  /** Claims held now (expired ones may linger until the next sweep). */
  get size(): number {
    return this.claims.size;
  }
}

/**
 * Claims in this process's memory, each kept for `ttl` (default '1h'):
 * a duplicate arriving later than that runs again.
 *
 * @example
 * dedupe(handler, memoryDedupeStore({ ttl: '10m' }))
 */
export function memoryDedupeStore(options: { ttl?: Duration } = {}): MemoryDedupeStore {
  return new MemoryDedupeStore(options);
}

/** The table of `sqlDedupeStore`: the claimed key and when (ms since the epoch). */
export function dedupeTable(name = 'event_dedupe'): TableSpec {
  return {
    name,
    columns: [
      { name: 'key', type: 'string', nullable: false, primaryKey: true },
      { name: 'claimed_at', type: 'bigint', nullable: false },
    ],
    indexes: [{ name: `ix_${name}_claimed_at`, columns: ['claimed_at'], unique: false }],
  };
}

export interface SqlDedupeOptions {
  /** Default `event_dedupe`. */
  table?: string;
  /** Claims older than this are pruned (about once a minute, as claims are made); default '168h' (7 days). */
  retention?: Duration;
}

/** See `sqlDedupeStore()`. */
export class SqlDedupeStore implements DedupeStore {
  readonly tables: readonly TableSpec[];
  private readonly table: string;
  private readonly retentionMs: number;
  private lastPrune = 0;

  constructor(
    private readonly database: Adapter | (() => Adapter),
    options: SqlDedupeOptions = {},
  ) {
    this.table = options.table ?? 'event_dedupe';
    this.tables = [dedupeTable(this.table)];
    this.retentionMs = durationMs(options.retention, 168 * 3_600_000, 'sqlDedupeStore retention');
  }

  private get db(): Adapter {
    return typeof this.database === 'function' ? this.database() : this.database;
  }

  private q(identifier: string): string {
    return this.db.dialect.quote(identifier);
  }

  async claim(key: string): Promise<boolean> {
    const now = Date.now();
    if (now - this.lastPrune >= Math.min(60_000, this.retentionMs)) {
      this.lastPrune = now;
      await this.prune(now);
    }
    // One INSERT decides: a concurrent duplicate on any replica conflicts on the key.
    const inserted = await this.db.raw(
      `INSERT INTO ${this.q(this.table)} (${this.q('key')}, ${this.q('claimed_at')}) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING ${this.q('key')}`,
      [key, now],
    );
    return inserted.length > 0;
  }

  async release(key: string): Promise<void> {
    await this.db.raw(`DELETE FROM ${this.q(this.table)} WHERE ${this.q('key')} = ?`, [key]);
  }

  /** Deletes claims older than the retention; resolves with how many. */
  async prune(now = Date.now()): Promise<number> {
    const rows = await this.db.raw(`DELETE FROM ${this.q(this.table)} WHERE ${this.q('claimed_at')} <= ? RETURNING ${this.q('key')}`, [now - this.retentionMs]);
    return rows.length;
  }
}

/**
 * Claims in an SQL table (`event_dedupe`), shared by every replica on the
 * database; declare its table so the migration creates it, and claims older
 * than `retention` (default 7 days) are pruned.
 *
 * @example
 * const store = sqlDedupeStore(() => app.db);
 * for (const table of store.tables) app.declareTable(table);
 */
export function sqlDedupeStore(db: Adapter | (() => Adapter), options: SqlDedupeOptions = {}): SqlDedupeStore {
  return new SqlDedupeStore(db, options);
}
