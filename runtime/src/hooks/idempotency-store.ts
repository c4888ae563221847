import type { Adapter } from '../db/adapter.js';
import type { TableSpec } from '../sql/schema.js';

/** A cached 2xx response, replayed for a repeated key. */
export interface StoredResponse {
  status: number;
  /** The JSON body, or the page of an HTML response. */
  body: unknown;
  headers?: Record<string, string>;
  /** `html` for a page; JSON otherwise. Streams are never stored. */
  kind?: 'html';
  /**
   * The answer of a model with encrypted fields: `body` and `headers` as one
   * envelope (`enc:` + base64 of JSON `{ body, headers }`, sealed with the
   * app's keys), so no store holds their plaintext; `body` is then null.
   */
  sealed?: string;
}

/** What claiming a key found. */
export type Claim =
  /** The key is new (or expired): this request runs the pipeline and must `complete` or `release`. */
  | { kind: 'claimed' }
  /** A finished request with the same body: replay its response. */
  | { kind: 'replay'; response: StoredResponse }
  /** The key was used with a different body. */
  | { kind: 'mismatch' }
  /** Another request holds the key and has not finished: wait, then claim again. */
  | { kind: 'pending' };

/**
 * Where the idempotency hook keeps keys. `key` is already scoped to caller,
 * model and operation; `fingerprint` is the body's hash.
 */
export interface IdempotencyStore {
  claim(key: string, fingerprint: string, ttlMs: number): Promise<Claim>;
  complete(key: string, response: StoredResponse, ttlMs: number): Promise<void>;
  /** Forgets a claim whose request did not succeed, so the key can be used again. */
  release(key: string): Promise<void>;
  /** Resolves when a pending key may have changed (finished or released), or after `ms`. */
  wait(key: string, ms: number): Promise<void>;
  /** The system tables the store keeps keys in, created by the migration (the idempotency hook declares them). */
  readonly tables?: readonly TableSpec[];
}

interface MemoryEntry {
  fingerprint: string;
  expiresAt: number;
  response: StoredResponse | null;
  waiters: Array<() => void>;
}

/**
 * The default store: one process's memory. Expired keys are dropped as they
 * are met and by a sweep every `sweepEvery` claims.
 *
 * @example
 * app.use('deserialize', idempotency({ store: new MemoryIdempotencyStore() }), { position: 'after', ops: ['create'] });
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, MemoryEntry>();
  private claims = 0;

  constructor(private readonly sweepEvery = 1000) {}

  private sweep(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now && entry.response) this.entries.delete(key);
  }

  async claim(key: string, fingerprint: string, ttlMs: number): Promise<Claim> {
    const now = Date.now();
    if (++this.claims % this.sweepEvery === 0) this.sweep(now);
    const entry = this.entries.get(key);
    if (entry && (entry.expiresAt > now || !entry.response)) {
      if (entry.fingerprint !== fingerprint) return { kind: 'mismatch' };
      return entry.response ? { kind: 'replay', response: entry.response } : { kind: 'pending' };
    }
    this.entries.set(key, { fingerprint, expiresAt: now + ttlMs, response: null, waiters: [] });
    return { kind: 'claimed' };
  }

  async complete(key: string, response: StoredResponse, ttlMs: number): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.response = response;
    entry.expiresAt = Date.now() + ttlMs;
    this.wake(entry);
  }

  async release(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.wake(entry);
  }

  private wake(entry: MemoryEntry): void {
    const waiters = entry.waiters.splice(0);
    for (const wake of waiters) wake();
  }

  wait(key: string, ms: number): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry || entry.response) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      entry.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/**
 * The table of `SqlIdempotencyStore`: the key (already hashed), the body's
 * fingerprint, when the key expires (ms since the epoch) and the stored
 * response (JSON text; null while the first request runs).
 *
 * @example
 * idempotencyTable('mfx_idempotency').columns.map((c) => c.name) // ['key', 'fingerprint', 'expires_at', 'response']
 */
export function idempotencyTable(name = 'mfx_idempotency'): TableSpec {
  return {
    name,
    columns: [
      { name: 'key', type: 'string', nullable: false, primaryKey: true },
      { name: 'fingerprint', type: 'string', nullable: false },
      { name: 'expires_at', type: 'bigint', nullable: false },
      { name: 'response', type: 'string', nullable: true },
    ],
    indexes: [],
  };
}

/**
 * A store in an SQL table (`mfx_idempotency`, created by the migration:
 * the idempotency hook declares it), shared by every replica on the same
 * database. A claim is an INSERT that only one replica wins; the others poll
 * until the winner completes or releases. Every statement runs on the
 * primary, also with reads routed to a replica (`DB_READ_URL`). `database` may be a function, for
 * a store built before the database is opened.
 *
 * @example
 * app.use('deserialize', idempotency({ store: new SqlIdempotencyStore(() => app.db) }), { position: 'after', ops: ['create'] });
 */
export class SqlIdempotencyStore implements IdempotencyStore {
  readonly tables: readonly TableSpec[];

  constructor(
    private readonly database: Adapter | (() => Adapter),
    private readonly table = 'mfx_idempotency',
    private readonly pollMs = 25,
  ) {
    this.tables = [idempotencyTable(table)];
  }

  private get adapter(): Adapter {
    return typeof this.database === 'function' ? this.database() : this.database;
  }

  private q(identifier: string): string {
    return this.adapter.dialect.quote(identifier);
  }

  async claim(key: string, fingerprint: string, ttlMs: number): Promise<Claim> {
    const t = this.q(this.table);
    const now = Date.now();
    // An expired, finished key is free again.
    await this.adapter.raw(`DELETE FROM ${t} WHERE ${this.q('key')} = ? AND ${this.q('expires_at')} <= ? AND ${this.q('response')} IS NOT NULL`, [key, now]);
    const inserted = await this.adapter.raw(
      `INSERT INTO ${t} (${this.q('key')}, ${this.q('fingerprint')}, ${this.q('expires_at')}) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING ${this.q('key')}`,
      [key, fingerprint, now + ttlMs],
    );
    if (inserted.length > 0) return { kind: 'claimed' };
    // On the primary: a replica may not have the row yet (or its response), and would make a replay wait or fail.
    const [row] = await this.adapter.raw(`SELECT ${this.q('fingerprint')} AS fingerprint, ${this.q('response')} AS response FROM ${t} WHERE ${this.q('key')} = ?`, [key], {
      readPrimary: true,
    });
    if (!row) return { kind: 'pending' }; // released between our insert and read: try again
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.response === null || row.response === undefined) return { kind: 'pending' };
    return { kind: 'replay', response: JSON.parse(String(row.response)) as StoredResponse };
  }

  async complete(key: string, response: StoredResponse, ttlMs: number): Promise<void> {
    await this.adapter.raw(`UPDATE ${this.q(this.table)} SET ${this.q('response')} = ?, ${this.q('expires_at')} = ? WHERE ${this.q('key')} = ?`, [
      JSON.stringify(response),
      Date.now() + ttlMs,
      key,
    ]);
  }

  async release(key: string): Promise<void> {
    await this.adapter.raw(`DELETE FROM ${this.q(this.table)} WHERE ${this.q('key')} = ? AND ${this.q('response')} IS NULL`, [key]);
  }

  wait(_key: string, ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.min(ms, this.pollMs)));
  }
}
