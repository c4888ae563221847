import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError } from '../errors/api-error.js';
import type { Logger } from '../log/logger.js';

/** Router-level middleware, connect style. */
export type HttpMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency is usable; rejects (or times out) otherwise. */
  check: (signal: AbortSignal) => Promise<unknown>;
}

export interface ProbeOptions {
  /** Runs after the shared probe middleware. */
  middleware?: HttpMiddleware[];
  /** Unmounts the probe; its path answers 404. */
  disabled?: boolean;
}

export interface ProbesConfig {
  /** Wraps all three probes. */
  middleware?: HttpMiddleware[];
  live?: ProbeOptions;
  ready?: ProbeOptions;
  health?: ProbeOptions;
  /** Adds a `checks` map (`ok` or `error` per dependency) to the /ready body. */
  publishReadinessChecks?: boolean;
}

export type Availability = 'starting' | 'ready' | 'stopping';

/** Refuses readiness check names that are empty, duplicated or `db`/`db:NAME` (the built-in ones). */
export function validateReadinessChecks(checks: readonly ReadinessCheck[]): void {
  const seen = new Set<string>();
  for (const check of checks) {
    const name = check?.name;
    if (typeof name !== 'string' || name.trim() === '') throw new ConfigError('a readiness check has an empty name; give every check a unique name');
    if (name === 'db' || name.startsWith('db:')) throw new ConfigError(`readiness check name "${name}" is reserved for the built-in database checks (db, and db:NAME for each named adapter); rename it`);
    if (seen.has(name)) throw new ConfigError(`readiness check "${name}" is registered twice; names must be unique`);
    if (typeof check.check !== 'function') throw new ConfigError(`readiness check "${name}" has no check function`);
    seen.add(name);
  }
}

export interface ProbeDeps {
  availability: () => Availability;
  /** The built-in database checks: `db` (the default adapter), then `db:NAME` for each named adapter (`app.setDB(adapter, { name })`). */
  pings: readonly DatabasePing[];
  checks: readonly ReadinessCheck[];
  healthCheckDB: boolean;
  timeoutMs: number;
  publishChecks: boolean;
  log: Logger;
  /** Headers every response carries (X-Request-Id, X-Service-Name). */
  headers: (req: IncomingMessage) => Record<string, string>;
}

/** One database's readiness check. */
export interface DatabasePing {
  name: string;
  ping: (signal: AbortSignal) => Promise<void>;
}

type CheckResults = Record<string, 'ok' | 'error'>;

/** Runs one check within the shared budget; errors are logged, never returned. */
async function runCheck(name: string, check: (signal: AbortSignal) => Promise<unknown>, signal: AbortSignal, log: Logger): Promise<'ok' | 'error'> {
  try {
    await Promise.race([
      check(signal),
      new Promise((_, reject) => {
        if (signal.aborted) reject(new Error('health budget exceeded'));
        signal.addEventListener('abort', () => reject(new Error('health budget exceeded')), { once: true });
      }),
    ]);
    return 'ok';
  } catch (error) {
    log.warn({ check: name, err: String((error as Error)?.message ?? error) }, 'readiness check failed');
    return 'error';
  }
}

/**
 * The three probe handlers. Concurrent /ready requests share one run of the
 * checks, so a burst of probes does not multiply the load on dependencies.
 */
export function createProbes(deps: ProbeDeps) {
  let inFlight: Promise<CheckResults> | null = null;

  const runAll = (): Promise<CheckResults> => {
    inFlight ??= (async () => {
      const signal = AbortSignal.timeout(deps.timeoutMs);
      const names = [...deps.pings.map((p) => p.name), ...deps.checks.map((c) => c.name)];
      const results = await Promise.all([
        ...deps.pings.map((p) => runCheck(p.name, p.ping, signal, deps.log)),
        ...deps.checks.map((c) => runCheck(c.name, c.check, signal, deps.log)),
      ]);
      return Object.fromEntries(names.map((n, i) => [n, results[i]])) as CheckResults;
    })().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };

  const json = (req: IncomingMessage, res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      ...deps.headers(req),
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
    });
    res.end(text);
  };

  return {
    live(req: IncomingMessage, res: ServerResponse) {
      json(req, res, 200, { status: 'ok' });
    },

    async ready(req: IncomingMessage, res: ServerResponse) {
      const availability = deps.availability();
      if (availability !== 'ready') return json(req, res, 503, { status: availability });
      const checks = await runAll();
      const ok = Object.values(checks).every((v) => v === 'ok');
      // The server may have started stopping while the checks ran.
      const now = deps.availability();
      const status = now !== 'ready' ? now : ok ? 'ok' : 'not_ready';
      json(req, res, status === 'ok' ? 200 : 503, deps.publishChecks ? { status, checks } : { status });
    },

    async health(req: IncomingMessage, res: ServerResponse) {
      if (!deps.healthCheckDB) return json(req, res, 200, { status: 'ok' });
      const signal = AbortSignal.timeout(deps.timeoutMs);
      const results = await Promise.all(deps.pings.map((p) => runCheck(p.name, p.ping, signal, deps.log)));
      const ok = results.every((r) => r === 'ok');
      json(req, res, ok ? 200 : 503, { status: ok ? 'ok' : 'degraded' });
    },
  };
}
