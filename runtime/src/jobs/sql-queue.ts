/**
 * The SQL queue: jobs are rows of a table (`mfx_jobs`, or `mfx_jobs_<lane>`
 * for a lane) in the app's database, so an enqueue inside a request's
 * transaction commits or rolls back with its write. Claims run in one short
 * transaction: `FOR UPDATE SKIP LOCKED` on PostgreSQL (workers skip each
 * other's rows) with a transaction-scoped advisory lock per group key (two
 * workers never start two jobs of one group), BEGIN IMMEDIATE on SQLite (the
 * write lock serialises claims). A claim is a lease: the worker renews it
 * while the handler runs; a job whose lease ran out (its worker died) is
 * handed out again, and the dead worker's token no longer finishes it.
 */
import { randomUUID } from 'node:crypto';
import type { Adapter, Executor, Row } from '../db/adapter.js';
import { ENVELOPE_PREFIX, open as openEnvelope, parseEnvelope, seal } from '../security/encryption/envelope.js';
import type { KeyProvider } from '../security/encryption/keys.js';
import type { TableSpec } from '../sql/schema.js';
import { ConfigError } from '../errors/api-error.js';
import { timeOrderedUuid } from '../util/time-ordered-id.js';
import { type ClaimedJob, type ClaimOptions, DuplicateJobError, JobCancelError, type JobQueue, type NackOptions, type NewJob, normaliseJob, type QueuedJob } from './types.js';

export interface SqlQueueOptions {
  /** Table name; default `mfx_jobs`. */
  table?: string;
  /** A lane is its own table, `<table>_<lane>`: its own workers, no contention with other lanes. */
  lane?: string;
  /**
   * Encrypt payloads at rest (stored as `encq:<envelope>`) with this key id
   * of the key provider: `keyProvider` here, else the app's (`app.jobs` hands it over).
   */
  encryptPayload?: string | { keyId: string; keyProvider?: KeyProvider };
}

/** A JobQueue on SQL, with its table for the migration and the key provider hook app.jobs uses. */
export interface SqlJobQueue extends JobQueue {
  readonly table: string;
  /** The database the jobs are rows of (an interval lock there takes its interval in the enqueue's transaction). */
  database(): Adapter;
  /** The table the migration creates (app.jobs declares it). */
  readonly tables: readonly TableSpec[];
  /** Gives the queue the app's key provider, when encryptPayload names no provider of its own. */
  useKeyProvider(provider: KeyProvider | undefined): void;
}

export const ENCRYPTED_PAYLOAD_PREFIX = 'encq:';
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/** The job table: one row per job not yet finished; times are epoch milliseconds. */
export function jobTable(name: string): TableSpec {
  return {
    name,
    columns: [
      { name: 'id', type: 'string', nullable: false, primaryKey: true },
      { name: 'type', type: 'string', nullable: false },
      { name: 'payload', type: 'string', nullable: true },
      { name: 'actor_id', type: 'string', nullable: true },
      { name: 'tenant_id', type: 'string', nullable: true },
      { name: 'max_retry', type: 'integer', nullable: false },
      { name: 'group_key', type: 'string', nullable: true },
      { name: 'trace_id', type: 'string', nullable: true },
      { name: 'attempts', type: 'integer', nullable: false },
      { name: 'requeues', type: 'integer', nullable: false },
      { name: 'state', type: 'string', nullable: false },
      { name: 'seq', type: 'bigint', nullable: false },
      { name: 'due_at', type: 'bigint', nullable: false },
      { name: 'not_before', type: 'bigint', nullable: true },
      { name: 'token', type: 'string', nullable: true },
      { name: 'lease_until', type: 'bigint', nullable: true },
    ],
    indexes: [
      { name: `idx_${name}_due`, columns: ['state', 'due_at'], unique: false },
      // Only jobs with a group key: the claim asks it for `group_key IN (...)`, and the other jobs (most) then
      // write no entry at enqueue, claim or ack (a database made before kept a full index under this name).
      { name: `idx_${name}_group`, columns: ['group_key', 'state'], unique: false, whereNotNull: 'group_key' },
    ],
  };
}

/**
 * A job queue in a table of `db` (created by the migration once `app.jobs`
 * declares it). Pass the request's transaction to enqueue with a write.
 *
 * @example
 * const queue = sqlQueue(app.db, { lane: 'reports', encryptPayload: 'jobs' });
 * app.jobs({ queue, handlers: { 'report.build': build } });
 * await app.enqueue({ type: 'report.build', payload: { month: '2026-05' } }, ctx); // commits with ctx's transaction
 */
export function sqlQueue(db: Adapter, options: SqlQueueOptions = {}): SqlJobQueue {
  const base = options.table ?? 'mfx_jobs';
  const table = options.lane ? `${base}_${options.lane}` : base;
  if (!TABLE_NAME.test(table)) throw new ConfigError(`the job table name ${JSON.stringify(table)} (table and lane) must be lower-case letters, digits and underscores, starting with a letter, at most 48 characters`);
  const encryption = typeof options.encryptPayload === 'string' ? { keyId: options.encryptPayload } : options.encryptPayload;
  let provider = encryption?.keyProvider;
  const keys = new Map<string, Uint8Array>();
  const t = db.dialect.quote(table);
  const postgres = db.dialect.name === 'postgres';
  let seq = 0;
  let closed = false;

  async function keyOf(id: string): Promise<Uint8Array> {
    let key = keys.get(id);
    if (key) return key;
    if (!provider) throw new ConfigError(`the job queue ${table} encrypts payloads with key ${id}, but no key provider is configured: set keyProvider in the server config (or in encryptPayload)`);
    key = await provider.key(id);
    if (!key) throw new ConfigError(`the key provider has no key ${id} for the job queue ${table}`);
    keys.set(id, key);
    return key;
  }

  async function storePayload(payload: unknown): Promise<string | null> {
    if (payload === null || payload === undefined) return null;
    const text = JSON.stringify(payload);
    if (!encryption) return text;
    return ENCRYPTED_PAYLOAD_PREFIX + seal(text, encryption.keyId, await keyOf(encryption.keyId)).slice(ENVELOPE_PREFIX.length);
  }

  async function readPayload(stored: unknown): Promise<unknown> {
    if (stored === null || stored === undefined) return null;
    const text = String(stored);
    if (!text.startsWith(ENCRYPTED_PAYLOAD_PREFIX)) return JSON.parse(text);
    const envelope = ENVELOPE_PREFIX + text.slice(ENCRYPTED_PAYLOAD_PREFIX.length);
    // Keys are loaded before opening: open() asks synchronously.
    await keyOf(parseEnvelope(envelope).keyId);
    return JSON.parse(openEnvelope(envelope, (id) => keys.get(id)));
  }

  async function toJob(row: Row, token: string): Promise<ClaimedJob> {
    return {
      id: String(row.id),
      type: String(row.type),
      payload: await readPayload(row.payload),
      actorId: (row.actor_id as string | null) ?? null,
      tenantId: (row.tenant_id as string | null) ?? null,
      maxRetry: Number(row.max_retry),
      notBefore: row.not_before === null || row.not_before === undefined ? null : new Date(Number(row.not_before)),
      groupKey: (row.group_key as string | null) ?? null,
      traceId: (row.trace_id as string | null) ?? null,
      attempts: Number(row.attempts),
      requeues: Number(row.requeues),
      token,
    };
  }

  const open = () => {
    if (closed) throw new Error(`the job queue ${table} is closed`);
  };

  // The statements of an enqueue, built once per queue (the adapter keeps each prepared).
  const columns = 'id, type, payload, actor_id, tenant_id, max_retry, group_key, trace_id, attempts, requeues, state, seq, due_at, not_before, token, lease_until';
  const values = `VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 'enqueued', ?, ?, ?, NULL, NULL)`;
  const insertSql = `INSERT INTO ${t} (${columns}) ${values}`;
  // One job (the common case: app.enqueue): an id already queued inserts nothing, which one statement tells.
  const insertNewSql = `${insertSql} ON CONFLICT (id) DO NOTHING RETURNING id`;

  async function insert(tx: Executor, jobs: readonly QueuedJob[]): Promise<void> {
    const now = Date.now();
    const rowOf = async (job: QueuedJob) => [
      job.id, job.type, await storePayload(job.payload), job.actorId, job.tenantId, job.maxRetry, job.groupKey, job.traceId,
      now * 1000 + (seq++ % 1000), job.notBefore?.getTime() ?? 0, job.notBefore?.getTime() ?? null,
    ];
    if (jobs.length === 1) {
      const inserted = await tx.raw(insertNewSql, await rowOf(jobs[0]!));
      if (inserted.length === 0) throw new DuplicateJobError(jobs[0]!.id);
      return;
    }
    // Several: every id is checked before any row is written, so a refused batch writes nothing even in the caller's transaction.
    const ids = jobs.map((j) => j.id);
    if (new Set(ids).size !== ids.length) throw new DuplicateJobError(ids.find((id, i) => ids.indexOf(id) !== i)!);
    const existing = await tx.raw(`SELECT id FROM ${t} WHERE id IN (${ids.map(() => '?').join(', ')})`, ids);
    if (existing.length > 0) throw new DuplicateJobError(String(existing[0]!.id));
    for (const job of jobs) await tx.raw(insertSql, await rowOf(job));
  }

  /** Runs `work` on the caller's transaction, or in one of its own. */
  const within = <T>(tx: Executor | undefined, work: (tx: Executor) => Promise<T>) => (tx?.inTransaction ? work(tx) : db.transaction(work));

  return {
    kind: 'sql',
    transactional: true,
    table,
    database: () => db,
    tables: [jobTable(table)],
    useKeyProvider(next) {
      provider ??= next;
    },
    async enqueue(jobs: readonly NewJob[], tx?: Executor) {
      open();
      const made = jobs.map((job) => normaliseJob(job, timeOrderedUuid));
      if (made.length === 0) return [];
      // One job is one statement, atomic on its own: no transaction of its own needed.
      if (made.length === 1 && !tx?.inTransaction) await insert(tx ?? db, made);
      else await within(tx, (tx) => insert(tx, made));
      return made.map((j) => j.id);
    },
    async claim({ limit, leaseMs }: ClaimOptions) {
      open();
      const token = randomUUID();
      const rows = await db.transaction(async (tx) => {
        const now = Date.now();
        // More candidates than slots: some may share a group and be passed over.
        const candidates = await tx.raw(
          `SELECT id, group_key FROM ${t} WHERE (state = 'enqueued' AND due_at <= ?) OR (state = 'running' AND lease_until <= ?) ORDER BY seq LIMIT ?${db.dialect.lockRowsSkipLockedClause}`,
          [now, now, limit * 4],
        );
        const groups = [...new Set(candidates.map((c) => c.group_key).filter((g): g is string => g !== null && g !== undefined))];
        const busy = new Set<string>();
        for (const group of groups) {
          // Another claimer deciding on this group now: leave the group to it.
          if (postgres && !(await tx.raw('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS ok', [`${table}:${group}`]))[0]!.ok) busy.add(group);
        }
        if (groups.length > 0) {
          const running = await tx.raw(
            `SELECT DISTINCT group_key FROM ${t} WHERE state = 'running' AND lease_until > ? AND group_key IN (${groups.map(() => '?').join(', ')})`,
            [now, ...groups],
          );
          for (const row of running) busy.add(String(row.group_key));
        }
        const chosen: string[] = [];
        for (const candidate of candidates) {
          if (chosen.length >= limit) break;
          const group = candidate.group_key as string | null;
          if (group !== null && group !== undefined) {
            if (busy.has(group)) continue;
            busy.add(group);
          }
          chosen.push(String(candidate.id));
        }
        if (chosen.length === 0) return [];
        return tx.raw(
          `UPDATE ${t} SET state = 'running', token = ?, lease_until = ?, attempts = attempts + 1 WHERE id IN (${chosen.map(() => '?').join(', ')}) RETURNING *`,
          [token, now + leaseMs, ...chosen],
        );
      });
      rows.sort((a, b) => Number(a.seq) - Number(b.seq));
      return Promise.all(rows.map((row) => toJob(row, token)));
    },
    async renew(job, leaseMs) {
      const done = await db.raw(`UPDATE ${t} SET lease_until = ? WHERE id = ? AND token = ? AND state = 'running' RETURNING id`, [Date.now() + leaseMs, job.id, job.token]);
      return done.length > 0;
    },
    async ack(job) {
      const done = await db.raw(`DELETE FROM ${t} WHERE id = ? AND token = ? AND state = 'running' RETURNING id`, [job.id, job.token]);
      return done.length > 0;
    },
    async nack(job, options: NackOptions = {}) {
      const refund = options.refund ? 1 : 0;
      const done = await db.raw(
        `UPDATE ${t} SET state = 'enqueued', token = NULL, lease_until = NULL, due_at = ?, attempts = attempts - ?, requeues = requeues + ? WHERE id = ? AND token = ? AND state = 'running' RETURNING id`,
        [Date.now() + (options.delayMs ?? 0), refund, refund, job.id, job.token],
      );
      return done.length > 0;
    },
    async cancel(id) {
      open();
      await db.transaction(async (tx) => {
        const row = await tx.raw(`SELECT state, lease_until FROM ${t} WHERE id = ?${postgres ? ' FOR UPDATE' : ''}`, [id]);
        if (row.length === 0) throw new JobCancelError(id, 'unknown');
        if (row[0]!.state === 'running' && Number(row[0]!.lease_until) > Date.now()) throw new JobCancelError(id, 'running');
        await tx.raw(`DELETE FROM ${t} WHERE id = ?`, [id]);
      });
    },
    async close() {
      closed = true;
    },
  };
}
