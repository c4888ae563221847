import { createHash } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import type { Context, PendingResponse } from '../pipeline/context.js';
import { describeHook } from '../pipeline/hook-meta.js';
import type { Hook } from '../pipeline/types.js';
import { encryptionOf, type ModelEncryption } from '../security/encryption/fields.js';
import { type IdempotencyStore, MemoryIdempotencyStore, type StoredResponse } from './idempotency-store.js';

export interface IdempotencyOptions {
  /** How long a completed key replays its response, in ms (default 24 h). */
  ttlMs?: number;
  /** Where keys live: in memory by default; `SqlIdempotencyStore` shares them between replicas. */
  store?: IdempotencyStore;
  /** How long a request waits for another one holding the same key, in ms (default 30 s). */
  waitMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

/** The caller part of the key: the user, else the anonymous caller's address. */
function callerOf(ctx: Context): string {
  return ctx.identity?.userId ? `user:${ctx.identity.userId}` : `anonymous:${ctx.remoteAddress}`;
}

/**
 * What a completed key replays: JSON and HTML responses; a stream cannot be
 * read twice (null). The answer of a model with encrypted fields holds their
 * plaintext: its body and headers are stored sealed (spec: plaintext is never
 * stored outside the encrypted column), opened again on replay.
 */
function storable(response: PendingResponse, encryption: ModelEncryption | undefined): StoredResponse | null {
  let stored: StoredResponse;
  switch (response.kind) {
    case 'stream':
      return null;
    case 'html':
      stored = { kind: 'html', status: response.status, body: response.html, headers: response.headers };
      break;
    default:
      stored = { status: response.status, body: response.body, headers: response.headers };
  }
  if (!encryption) return stored;
  const sealed = encryption.sealText(JSON.stringify({ body: stored.body, headers: stored.headers }));
  return { ...(stored.kind ? { kind: stored.kind } : {}), status: stored.status, body: null, sealed };
}

/** The body and headers of a stored answer, opened when they were sealed. */
function replayed(response: StoredResponse, ctx: Context): { body: unknown; headers?: Record<string, string> } {
  if (response.sealed === undefined) return response;
  const encryption = ctx.model ? encryptionOf(ctx.model) : undefined;
  if (!encryption) {
    // Sealed for a model that no longer has encrypted fields: no key to open it with is known here.
    ctx.log.error({ requestId: ctx.requestId, model: ctx.model?.name, what: 'idempotency replay' }, 'an encrypted value cannot be decrypted');
    throw new ApiError('DECRYPTION_ERROR');
  }
  return JSON.parse(encryption.openText(response.sealed, 'idempotency replay')) as { body: unknown; headers?: Record<string, string> };
}

/**
 * The idempotency hook: a create carrying `Idempotency-Key` runs once. A
 * repeat with the same key and body replays the stored 2xx response with
 * `Idempotent-Replayed: true`; the same key with another body is 422
 * `IDEMPOTENCY_KEY_REUSED`; a failed (non-2xx) request leaves no trace, so
 * the key can be retried. Concurrent requests with one key wait for the
 * first. Keys are scoped to the caller, the model and the operation. A
 * streamed response cannot be replayed: its key is released (and a warning
 * logged), so a retry runs again.
 *
 * @example
 * app.use('deserialize', idempotency({ ttlMs: 24 * 3600_000 }), { position: 'after', ops: ['create'] });
 */
export function idempotency(options: IdempotencyOptions = {}): Hook {
  const ttlMs = options.ttlMs ?? DAY_MS;
  const waitMs = options.waitMs ?? 30_000;
  const store: IdempotencyStore = options.store ?? new MemoryIdempotencyStore();
  if (!(ttlMs > 0)) throw new Error('mfx: idempotency ttlMs must be a positive number of milliseconds');

  return describeHook(async function idempotency(ctx, next) {
    const header = ctx.req.headers['idempotency-key'];
    if (ctx.op !== 'create' || header === undefined) return next();
    const given = Array.isArray(header) ? header[0] : header;
    if (given === '' || given.length > MAX_KEY_LENGTH) {
      throw new ApiError('VALIDATION_ERROR', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`, [
        { field: 'Idempotency-Key', message: `must be 1 to ${MAX_KEY_LENGTH} characters` },
      ]);
    }
    // Hashed: bounded length, and no NUL bytes (PostgreSQL text refuses them).
    const key = createHash('sha256')
      .update([callerOf(ctx), ctx.model?.name ?? '', ctx.op, given].join('\0'))
      .digest('hex');
    const fingerprint = createHash('sha256')
      .update(ctx.rawBody ?? '')
      .digest('hex');

    const deadline = Date.now() + waitMs;
    for (;;) {
      const claim = await store.claim(key, fingerprint, ttlMs);
      if (claim.kind === 'mismatch') {
        throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used with a different request body; send a new key for a new request');
      }
      if (claim.kind === 'replay') {
        const { status, kind } = claim.response;
        const { body, headers } = replayed(claim.response, ctx);
        const marked = { ...headers, 'Idempotent-Replayed': 'true' };
        if (kind === 'html') ctx.respondHtml(status, String(body), marked);
        else ctx.respond(status, body, marked);
        return;
      }
      if (claim.kind === 'claimed') break;
      if (Date.now() >= deadline || ctx.cancel.aborted) {
        throw new ApiError('CONFLICT', 'a request with this Idempotency-Key is still running; retry once it has finished');
      }
      await store.wait(key, deadline - Date.now());
    }

    let stored = false;
    try {
      await next();
      const response = ctx.response;
      if (response && response.status >= 200 && response.status < 300 && !ctx.cancel.aborted) {
        const replay = storable(response, ctx.model ? encryptionOf(ctx.model) : undefined);
        if (replay) {
          await store.complete(key, replay, ttlMs);
          stored = true;
        } else {
          ctx.log.warn({ requestId: ctx.requestId, model: ctx.model?.name, op: ctx.op }, 'idempotency: a streamed response cannot be replayed; the key was released, so a retry runs again');
        }
      }
    } finally {
      if (!stored) await store.release(key).catch((error) => ctx.log.error({ requestId: ctx.requestId, err: String(error) }, 'idempotency release failed'));
    }
  }, {
    role: 'other',
    label: 'idempotency()',
    openapi: { headers: [{ name: 'Idempotency-Key', description: 'replays the first 2xx answer for the same key and body (Idempotent-Replayed: true); another body is 422 IDEMPOTENCY_KEY_REUSED' }] },
    tables: store.tables,
  });
}
