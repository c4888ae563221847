import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Adapter, CancelSignal, Executor } from '../db/adapter.js';
import type { Logger } from '../log/logger.js';
import type { ListQuery } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { Identity, Op, Step } from './types.js';

export interface PendingResponse {
  status: number;
  /** JSON-serialisable body; undefined sends no body. */
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Add `ETag`, the quoted MD5 of the JSON text as it is written (optimistic
   * locking): computed from the one serialisation the response makes.
   */
  etag?: boolean;
}

/**
 * An equality a scope hook (tenancy, force filter) adds to every read and write of the request.
 *
 * Without `model` it applies to the request's model. With `model` (a model
 * name) it applies wherever that model is read or written: the request's
 * model, related models in include, nested filters, sorts through relations
 * and cascades.
 */
export interface ScopeFilter {
  /** JSON name of the field. */
  field: string;
  value: unknown;
  /**
   * The model the equality belongs to. Without it, it applies to the
   * request's model; with it, wherever that model is read or written.
   */
  model?: string;
}

type Callback = () => unknown;

/**
 * Everything a hook sees about one request. Created once per request and
 * passed down the chain; hooks read and change it.
 */
export class Context {
  /** Path parameters, e.g. `{ id }`. */
  params: Record<string, string>;
  /** Parsed list and read parameters (Deserialize step). */
  query: ListQuery | null = null;
  /** The raw request body (Deserialize step), null when none was read. */
  rawBody: Buffer | null = null;
  /** The parsed JSON body, keyed by JSON field name (create and update). */
  body: Record<string, unknown> | null = null;
  /** The caller, set by an authenticator hook; null means anonymous. */
  identity: Identity | null = null;
  /** Where SQL runs: the adapter, or the active transaction. */
  db: Executor;
  /** The active transaction, or null. */
  tx: Executor | null = null;
  /** What the DB step produced (a record, a page of records, ...). */
  result: unknown = undefined;
  /** The response the Response step built or a hook set; written after the chain. */
  response: PendingResponse | null = null;
  /** Extra headers added to whatever response is written. */
  readonly headers: Record<string, string> = {};
  /** Equalities applied to every read and write (tenancy, force filter). */
  scope: ScopeFilter[] = [];
  /** Free space for hooks to pass values along. */
  readonly state: Record<string, unknown> = {};
  /** Remote address (the forwarded client when TrustProxyHeaders is set). */
  remoteAddress = '';
  /** Step timings in ms when Trace.Timings is on. */
  timings: Partial<Record<Step, number>> | null = null;

  /** Callbacks of the active transaction: after it commits, and after it rolls back; null without one. */
  private txCallbacks: { commit: Callback[]; rollback: Callback[] } | null = null;
  /** Cancellation handed to the database layer; allocates nothing until used. */
  readonly cancel = new RequestCancel();
  private search: URLSearchParams | null = null;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly model: ModelMeta | null,
    readonly op: Op,
    params: Record<string, string>,
    readonly requestId: string,
    readonly traceId: string,
    readonly adapter: Adapter,
    readonly log: Logger,
    private readonly rawSearch: string,
  ) {
    this.params = params;
    this.db = adapter;
  }

  /** The query string, parsed on first use. */
  get searchParams(): URLSearchParams {
    this.search ??= new URLSearchParams(this.rawSearch);
    return this.search;
  }

  /** Aborted when the request's deadline passes or the client disconnects (pass it to fetch and the like). */
  get signal(): AbortSignal {
    return this.cancel.native;
  }

  abort(reason: string): void {
    this.cancel.abort(reason);
  }

  /** Sets the response. Return without calling next() to end the chain here. */
  respond(status: number, body?: unknown, headers?: Record<string, string>): void {
    this.response = { status, body, headers };
  }

  /**
   * Runs `fn` after the active transaction commits; dropped on rollback; runs
   * at once when no transaction is active.
   */
  afterCommit(fn: Callback): void {
    if (this.txCallbacks) this.txCallbacks.commit.push(fn);
    else void runCallback(fn, this.log);
  }

  /**
   * Runs `fn` after the active transaction rolls back (a failed write, a hook
   * error, a response of 400 or above); dropped on commit. Without an active
   * transaction there is nothing to roll back and `fn` is dropped.
   *
   * @example
   * ctx.onRollback(() => storage.delete(uploadedKey));
   */
  onRollback(fn: Callback): void {
    this.txCallbacks?.rollback.push(fn);
  }

  /**
   * Runs `work` in the active transaction, or in a new one that belongs to
   * this request while it runs: `ctx.tx` and `ctx.db` point at it, and the
   * afterCommit and onRollback callbacks registered meanwhile run once it
   * commits or rolls back. `work` throwing rolls back.
   *
   * @example
   * const after = await ctx.transaction(async (tx) => { ...; return store.insert(tx, values) });
   */
  async transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    if (this.tx) return work(this.tx);
    const callbacks = { commit: [] as Callback[], rollback: [] as Callback[] };
    let result: T;
    try {
      result = await this.adapter.transaction(
        async (tx) => {
          this.tx = tx;
          this.db = tx;
          this.txCallbacks = callbacks;
          try {
            return await work(tx);
          } finally {
            this.tx = null;
            this.db = this.adapter;
            this.txCallbacks = null;
          }
        },
        { signal: this.cancel },
      );
    } catch (error) {
      for (const callback of callbacks.rollback) await runCallback(callback, this.log);
      throw error;
    }
    for (const callback of callbacks.commit) await runCallback(callback, this.log);
    return result;
  }
}

/**
 * A request's cancellation without an AbortController per request: listeners
 * are kept in a plain list, and a real AbortSignal is only made for code that
 * asks for one (`ctx.signal`, for fetch and the like).
 */
export class RequestCancel implements CancelSignal {
  private state: { reason: unknown } | null = null;
  private listeners: Array<() => void> | null = null;
  private controller: AbortController | null = null;

  get aborted(): boolean {
    return this.state !== null;
  }

  get reason(): unknown {
    return this.state?.reason;
  }

  get native(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.state) this.controller.abort(this.state.reason);
    }
    return this.controller.signal;
  }

  abort(reason: string): void {
    if (this.state) return;
    this.state = { reason };
    this.controller?.abort(reason);
    const listeners = this.listeners ?? [];
    this.listeners = null;
    for (const listener of listeners) listener();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index !== -1) this.listeners!.splice(index, 1);
  }
}

/** Runs a transaction callback; what it throws is logged, never sent to the client. */
export async function runCallback(fn: Callback, log: Logger): Promise<void> {
  try {
    await fn();
  } catch (error) {
    log.error({ err: String((error as Error)?.stack ?? error) }, 'transaction callback failed');
  }
}
