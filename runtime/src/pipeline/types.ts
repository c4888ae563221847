import type { Context } from './context.js';

/** The six steps of every generated route, in order. */
export const STEPS = ['auth', 'deserialize', 'validate', 'service', 'db', 'response'] as const;
export type Step = (typeof STEPS)[number];

/**
 * Operations a hook can be scoped to. A HEAD request runs as the GET it
 * mirrors. `file` is the standalone file routes (upload, download, delete
 * under `{prefix}/files`), which run Auth-step hooks and nothing else.
 */
export const OPS = ['list', 'read', 'create', 'update', 'delete', 'options', 'action', 'history', 'file'] as const;
export type Op = (typeof OPS)[number];

export const POSITIONS = ['before', 'after', 'replace'] as const;
export type Position = (typeof POSITIONS)[number];

export type Next = () => Promise<void>;

/**
 * A hook: runs at one step of the pipeline. Call `next()` to continue;
 * return without calling it (after `ctx.respond(...)`) to end the chain.
 */
export type Hook = (ctx: Context, next: Next) => Promise<void> | void;

/**
 * Where a hook runs. Scoping is inclusion-only: a hook with `models` or `ops`
 * runs only for those; a hook without runs for all.
 */
export interface HookScope {
  position?: Position;
  models?: string[];
  ops?: Op[];
}

/** One hook of a model's own middleware: the hook alone (position before, every op), or with its position and ops. */
export type ModelHook = Hook | { hook: Hook; position?: Position; ops?: Op[] };

/**
 * A model's own hooks per step (the spec's `Middleware` model option), given
 * in code at registration. On each step and position they run after the
 * app's hooks (`app.use`) for that model; a model's `replace` hook wins over
 * an app-wide one.
 *
 * @example
 * app.register(loadManifest('.mfx'), { Post: { middleware: { validate: [validate.dateRange({ start: 'from', end: 'to' })], auth: [{ hook: requireRole('editor'), ops: ['delete'] }] } } });
 */
export type ModelMiddleware = Partial<Record<Step, readonly ModelHook[]>>;

/** Who is calling; filled by authenticator hooks. */
export interface Identity {
  userId: string | null;
  roles: string[];
  claims: Record<string, unknown>;
  tenantId: string | null;
  identityType: 'human' | 'service_account' | 'anonymous';
  scopes: string[];
  sessionId: string | null;
  /** How the caller authenticated, e.g. `jwt`, `api_key`, `session`. */
  authMethod: string | null;
}

/** Marks hooks that only work at the Before position (the transaction hook). */
export const requiresBeforePosition = Symbol.for('mfx.requiresBeforePosition');
