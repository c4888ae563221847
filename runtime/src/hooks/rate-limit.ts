import { ApiError, ConfigError } from '../errors/api-error.js';
import type { Context } from '../pipeline/context.js';
import { describeHook } from '../pipeline/hook-meta.js';
import type { Hook } from '../pipeline/types.js';

/** Counts hits per key in fixed windows. */
export interface RateLimitStore {
  /** Counts one hit; returns the count in the current window and the ms until it ends. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  close?(): Promise<void>;
}

/**
 * In-process counters: one replica's view. Expired windows are swept as new
 * ones start, so memory stays bounded by the active keys.
 *
 * @example
 * rateLimit({ requestsPerMinute: 60, store: memoryStore() })
 */
export function memoryStore(): RateLimitStore {
  const windows = new Map<string, { count: number; endsAt: number }>();
  let nextSweep = 0;
  return {
    async hit(key, windowMs) {
      const now = Date.now();
      if (now >= nextSweep) {
        for (const [k, w] of windows) if (w.endsAt <= now) windows.delete(k);
        nextSweep = now + windowMs;
      }
      let window = windows.get(key);
      if (!window || window.endsAt <= now) {
        window = { count: 0, endsAt: now + windowMs };
        windows.set(key, window);
      }
      window.count++;
      return { count: window.count, resetMs: window.endsAt - now };
    },
  };
}

export interface RateLimitOptions {
  requestsPerMinute: number;
  /** The counter's key; default: the caller's user id, else the remote address (X-Forwarded-For only with trustProxyHeaders). */
  key?: (ctx: Context) => string;
  /** Where counts live (default: in memory, per replica). */
  store?: RateLimitStore;
  /** Names this limit's counters, so several limits can share one store (default `default`). */
  name?: string;
}

const defaultKey = (ctx: Context) => (ctx.identity?.userId ? `user:${ctx.identity.userId}` : `ip:${ctx.remoteAddress}`);

/**
 * Rate limiting at the DB step: over `requestsPerMinute` in the current
 * minute answers 429 RATE_LIMITED with Retry-After in seconds. A store that
 * fails lets the request through (logged): the limiter never takes the API down.
 *
 * @example
 * app.use('db', rateLimit({ requestsPerMinute: 60 }), { ops: ['create'] });
 */
export function rateLimit(options: RateLimitOptions): Hook {
  const limit = options?.requestsPerMinute;
  if (!Number.isInteger(limit) || limit < 1) throw new ConfigError(`rateLimit() requestsPerMinute must be a positive integer, got ${String(limit)}`);
  const store = options.store ?? memoryStore();
  const key = options.key ?? defaultKey;
  const name = options.name ?? 'default';
  const windowMs = 60_000;
  const hook: Hook = async (ctx, next) => {
    let outcome: { count: number; resetMs: number } | null = null;
    try {
      outcome = await store.hit(`${name}:${key(ctx)}`, windowMs);
    } catch (error) {
      ctx.log.error({ requestId: ctx.requestId, err: String((error as Error)?.message ?? error) }, 'rate limit store failed; request let through');
    }
    if (outcome && outcome.count > limit) {
      const retryAfter = String(Math.max(1, Math.ceil(outcome.resetMs / 1000)));
      throw new ApiError('RATE_LIMITED', `more than ${limit} requests per minute; retry after ${retryAfter} s`, undefined, { 'Retry-After': retryAfter });
    }
    await next();
  };
  return describeHook(hook, {
    role: 'other',
    label: `rateLimit({ requestsPerMinute: ${limit} })`,
    openapi: { statuses: ['429'] },
    setup({ onStop }) {
      if (store.close) onStop(() => store.close!());
    },
  });
}
