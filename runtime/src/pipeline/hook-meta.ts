import type { Adapter } from '../db/adapter.js';
import type { IncomingMessage } from 'node:http';
import type { ModelMeta } from '../registry/model-meta.js';
import type { Registry } from '../registry/registry.js';
import type { TableSpec } from '../sql/schema.js';
import type { ModelStore } from '../store/model-store.js';
import { metaSlot } from '../util/meta-slot.js';
import type { Context } from './context.js';
import type { Hook, Op, Position, Step } from './types.js';
import type { WriteObserver } from './write-observers.js';

/** How an authenticator reads its credential, for OpenAPI securitySchemes. */
export type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; bearerFormat?: string }
  | { type: 'apiKey'; in: 'header'; name: string };

/** What a ready-made hook is, so the app can check and document how hooks combine. */
export type HookRole = 'authenticator' | 'anonymous' | 'public-read' | 'gate' | 'block' | 'scope' | 'other';

/** A hook as registered on the pipeline: the original function with its step and scope. */
export interface RegisteredHook {
  step: Step;
  hook: Hook;
  position: Position;
  models: ReadonlySet<string> | null;
  ops: ReadonlySet<Op> | null;
  /** Whether the hook runs for this (model, op); model null is an action. */
  matches(model: string | null, op: Op): boolean;
}

/** What a hook's setup sees when the app seals (once, never per request). */
export interface HookEnvironment {
  registry: Registry;
  /** Where this hook was attached. */
  entry: RegisteredHook;
  /** Every hook of the pipeline, in registration order. */
  entries: readonly RegisteredHook[];
  /** The API's path prefix (`/api`), or '' when it has none. */
  pathPrefix: string;
  /** The mounted models the hook's scope covers. */
  models: ModelMeta[];
  store(model: string): ModelStore;
  /** The database a model is served from (its `adapter:NAME`, or the default one). */
  adapterOf(model: ModelMeta): Adapter;
  /** Runs when the server stops (close a Redis client, for example). */
  onStop(fn: () => Promise<void> | void): void;
  /**
   * Runs once the server listens (`app.start()`; never for a handler mounted by hand), or once an app is handed
   * the listener (`app.handOver`, `mfx serve --watch`): an outbox relay starts here. `stop` undoes it when the app
   * hands over in turn, before the next app's starts (shutdown runs `onStop`, not `stop`).
   */
  onStart(fn: () => Promise<void> | void, stop?: () => Promise<void> | void): void;
  /** Follows the writes of `models` (all when null) with a write observer (audit does). */
  observeWrites(observer: WriteObserver, models: readonly string[] | null): void;
}

export interface HookMeta {
  role: HookRole;
  /** How the hook is named in startup errors, e.g. `bearer()`. */
  label: string;
  /** Authenticators: the scheme OpenAPI documents. */
  scheme?: SecurityScheme;
  /** Authenticators: whether the request carries this authenticator's credential. */
  present?: (req: IncomingMessage) => boolean;
  /** Block hooks: the operations refused. */
  blocks?: readonly Op[];
  /** Problems production validation reports for this hook (a short secret, for example). */
  production?: string[];
  /**
   * What the hook adds to the OpenAPI operations it runs for: statuses it
   * may answer, request headers it reads; `ops` limits both to those
   * operations (csrf() documents its header and 403s on writes only).
   */
  openapi?: { statuses?: string[]; headers?: { name: string; description: string }[]; ops?: readonly Op[] };
  /** Called once per registration when the app seals; throws to refuse startup. */
  setup?: (env: HookEnvironment) => void;
  /**
   * The hook only calls `next()`: it is registered for its setup (a write
   * observer, system tables), so the request chains leave it out. A link in
   * the chain would make every request of its models go through a promise
   * per step (a user hook's link) for nothing.
   */
  passThrough?: boolean;
  /**
   * System tables the hook needs (a shared store's table, say): created by
   * the migration with the models' tables, before any request. Read when
   * `app.migrate()` runs, which may be before the app seals.
   */
  tables?: readonly TableSpec[];
}

const slot = metaSlot<HookMeta>('mfx.hookMeta');

/**
 * Attaches metadata to a ready-made hook.
 *
 * @example
 * export const audited = () => describeHook(async (ctx, next) => next(), { role: 'other', label: 'audited()' });
 */
export function describeHook<H extends Hook>(hook: H, meta: HookMeta): H {
  return slot.attach(hook, meta);
}

/** The metadata of a ready-made hook, if it has any. */
export function hookMeta(hook: Hook): HookMeta | undefined {
  return slot.read(hook);
}

/** Per-request facts the security hooks share (kept off the user's `ctx.state`). */
export interface AuthFlags {
  /** An allowAnonymous() hook ran for this request. */
  anonymousAllowed?: boolean;
}

const FLAGS = Symbol('mfx.authFlags');

export function authFlags(ctx: Context): AuthFlags {
  const holder = ctx as unknown as Record<symbol, AuthFlags | undefined>;
  return (holder[FLAGS] ??= {});
}
