import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Adapter, CancelSignal, Executor } from '../db/adapter.js';
import { transactionNow } from '../db/now.js';
import { ApiError } from '../errors/api-error.js';
import type { UploadedFile } from '../http/multipart.js';
import type { Logger } from '../log/logger.js';
import type { RequestLocale } from '../locale/request.js';
import type { ListQuery } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { Maybe } from '../util/maybe.js';
import type { Identity, Op, Step } from './types.js';

/**
 * The response the chain produced, written after it: JSON (the default, and
 * what `ctx.respond` sets), a stream of bytes, or an HTML page. Every kind has
 * a `status` and optional `headers`, so hooks that only look at those work
 * for all three; `body` is only ever set on JSON.
 */
export type PendingResponse = JsonResponse | StreamResponse | HtmlResponse;

export interface JsonResponse {
  /** Absent on JSON responses written before the other kinds existed. */
  kind?: 'json';
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

/** Bytes to pipe to the client: a Node Readable, or any async iterable of Buffer / Uint8Array / string chunks. */
export type ResponseSource = Readable | AsyncIterable<Buffer | Uint8Array | string>;

/**
 * A streamed body (downloads, exports). Piped with backpressure; sent with
 * Content-Length when `length` is known, chunked otherwise. Nothing is read
 * from the source for HEAD or once the client has left (it is destroyed); a
 * source that fails before its first chunk answers the usual error envelope,
 * one that fails later cuts the response.
 */
export interface StreamResponse {
  kind: 'stream';
  status: number;
  source: ResponseSource;
  /** Content-Type, e.g. `text/csv; charset=utf-8`. */
  contentType: string;
  /** The exact byte length, when known; a source that sends more or less is cut off. */
  length?: number;
  /** Extra headers, such as Content-Disposition. */
  headers?: Record<string, string>;
  body?: undefined;
}

/** An HTML page, sent as `text/html; charset=utf-8`. */
export interface HtmlResponse {
  kind: 'html';
  status: number;
  html: string;
  headers?: Record<string, string>;
  body?: undefined;
}

/** What `ctx.respondStream` takes besides the status. */
export type StreamInit = Omit<StreamResponse, 'kind' | 'status' | 'body'>;

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

/** The callbacks registered while a request's own transaction runs. */
interface TxCallbacks {
  commit: Callback[];
  rollback: Callback[];
}

const NO_FILES: readonly UploadedFile[] = Object.freeze([]);
const NO_SCOPE: readonly ScopeFilter[] = Object.freeze([]);

/** What every request of one route shares: bound once when the route is mounted. */
export interface ContextRoute {
  readonly model: ModelMeta | null;
  readonly op: Op;
  readonly log: Logger;
}

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
  /** The parsed JSON body, keyed by JSON field name (create and update); the form fields of a multipart body. */
  body: Record<string, unknown> | null = null;
  /** The file parts of a multipart body (Deserialize step, through the registered parser); empty otherwise. */
  files: readonly UploadedFile[] = NO_FILES;
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
  /** Extra headers set through `headers`; null while none are (most requests), so none is allocated. */
  extraHeaders: Record<string, string> | null = null;
  /** The scope's equalities; null while none was asked for (most requests), so none is allocated. */
  private scopeFilters: ScopeFilter[] | null = null;
  private hookState: Record<string, unknown> | null = null;
  /** Remote address (the forwarded client when TrustProxyHeaders is set). */
  remoteAddress = '';
  /** Step timings in ms when Trace.Timings is on. */
  timings: Partial<Record<Step, number>> | null = null;
  /**
   * The request's locale (runtime/src/locale/request.ts: `requestLocaleOf`),
   * worked out on first use on models that show localized fields; null
   * until then. A field, not a WeakMap entry keyed by the context: with the
   * WeakMap, young-generation collections took about five times as long
   * (docs/decisions.md).
   */
  localeState: RequestLocale | null = null;

  /** Callbacks of the active transaction: after it commits, and after it rolls back; null without one. */
  private txCallbacks: TxCallbacks | null = null;
  /** Callbacks to run after the response is written (`afterResponse`); null until one is added. */
  afterResponseCallbacks: Callback[] | null = null;
  /** Cancellation handed to the database layer; allocates nothing until used. */
  readonly cancel = new RequestCancel();
  private search: URLSearchParams | null = null;

  readonly model: ModelMeta | null;
  readonly op: Op;
  readonly log: Logger;

  /**
   * @param route what every request of the route shares (its model, op and logger), bound once at mount
   * @param rawSearch the query string, without its `?`
   */
  constructor(
    route: ContextRoute,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    params: Record<string, string>,
    readonly requestId: string,
    readonly traceId: string,
    readonly adapter: Adapter,
    private readonly rawSearch: string,
  ) {
    this.model = route.model;
    this.op = route.op;
    this.log = route.log;
    this.params = params;
    this.db = adapter;
  }

  /** Equalities applied to every read and write (tenancy, force filter); hooks push to it. */
  get scope(): ScopeFilter[] {
    return (this.scopeFilters ??= []);
  }

  set scope(filters: ScopeFilter[]) {
    this.scopeFilters = filters;
  }

  /** The scope for reading only: the same list, or a shared empty one while no hook added any (no array per request). */
  get scopeIfAny(): readonly ScopeFilter[] {
    return this.scopeFilters ?? NO_SCOPE;
  }

  /** Extra headers added to whatever response is written. */
  get headers(): Record<string, string> {
    return (this.extraHeaders ??= {});
  }

  /** Free space for hooks to pass values along. */
  get state(): Record<string, unknown> {
    return (this.hookState ??= {});
  }

  /**
   * The query string parsed, or null when there is none (the URL has no
   * parameters and no hook added any): reads without parameters build no
   * URLSearchParams.
   */
  get searchParamsIfAny(): URLSearchParams | null {
    if (this.search) return this.search.size > 0 ? this.search : null;
    return this.rawSearch === '' ? null : this.searchParams;
  }

  /** The query string, parsed on first use. */
  get searchParams(): URLSearchParams {
    this.search ??= new URLSearchParams(this.rawSearch);
    return this.search;
  }

  /**
   * Sends every later read of this request to the primary, even where reads
   * go to a replica (`DB_READ_URL`): for a hook that must see the newest
   * rows. Reads follow it when they carry the request's signal
   * (`{ signal: ctx.cancel }`, as mfx's own do); a request that writes reads
   * the primary already. No effect without a replica.
   *
   * @example
   * app.use('db', async (ctx, next) => { ctx.readFromPrimary(); await next(); }, { models: ['Order'], ops: ['read'] });
   */
  readFromPrimary(): void {
    this.cancel.pinPrimary();
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
   * Sets a streamed response: `source` is piped to the client after the chain.
   *
   * @example
   * ctx.respondStream(200, { source: createReadStream(path), contentType: 'application/pdf', length: size, headers: { 'Content-Disposition': 'attachment; filename="a.pdf"' } });
   */
  respondStream(status: number, init: StreamInit): void {
    this.response = { kind: 'stream', status, ...init };
  }

  /**
   * Sets an HTML response (`text/html; charset=utf-8`).
   *
   * @example
   * ctx.respondHtml(200, '<!doctype html><title>Admin</title>');
   */
  respondHtml(status: number, html: string, headers?: Record<string, string>): void {
    this.response = { kind: 'html', status, html, headers };
  }

  /**
   * Runs `fn` once the response has been written, whatever happened (success,
   * error, a cut stream, a client that left): per-request cleanup such as
   * closing multipart file readers and removing their temporary directory.
   * Failures are logged.
   *
   * @example
   * ctx.afterResponse(() => rm(tempDir, { recursive: true, force: true }));
   */
  afterResponse(fn: Callback): void {
    (this.afterResponseCallbacks ??= []).push(fn);
  }

  /**
   * Runs `fn` after the active transaction commits; dropped on rollback; runs
   * at once when no transaction is active. An ApiError it throws after a
   * commit answers the request (ctx.transaction rethrows it); other failures
   * are logged.
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
    return this.transactionNow(work);
  }

  /**
   * `transaction` for work that may answer now (mfx's own write paths): with
   * SQLite's writer free, work that answers now and no callback registered,
   * the transaction begins, runs and commits in the call (db/now.ts
   * transactionNow); otherwise a promise.
   */
  transactionNow<T>(work: (tx: Executor) => Maybe<T>): Maybe<T> {
    if (this.tx) return work(this.tx);
    const callbacks: TxCallbacks = { commit: [], rollback: [] };
    let outcome: Maybe<T>;
    try {
      outcome = transactionNow(this.adapter, (tx) => this.within(tx, callbacks, work), { signal: this.cancel });
    } catch (error) {
      return this.rolledBack(callbacks, error);
    }
    if (outcome instanceof Promise) {
      return outcome.then(
        (result) => this.committed(callbacks, result),
        (error: unknown) => this.rolledBack(callbacks, error),
      );
    }
    return this.committed(callbacks, outcome);
  }

  /** `work` with this request's executor pointing at the transaction until it has finished. */
  private within<T>(tx: Executor, callbacks: TxCallbacks, work: (tx: Executor) => Maybe<T>): Maybe<T> {
    this.tx = tx;
    this.db = tx;
    this.txCallbacks = callbacks;
    let result: Maybe<T>;
    try {
      result = work(tx);
    } catch (error) {
      this.leaveTransaction();
      throw error;
    }
    if (!(result instanceof Promise)) {
      this.leaveTransaction();
      return result;
    }
    return result.then(
      (value) => {
        this.leaveTransaction();
        return value;
      },
      (error: unknown) => {
        this.leaveTransaction();
        throw error;
      },
    );
  }

  private leaveTransaction(): void {
    this.tx = null;
    this.db = this.adapter;
    this.txCallbacks = null;
  }

  /** The transaction rolled back: its rollback callbacks run, then the error goes on. */
  private rolledBack(callbacks: TxCallbacks, error: unknown): never | Promise<never> {
    if (callbacks.rollback.length === 0) throw error;
    return (async () => {
      for (const callback of callbacks.rollback) await runCallback(callback, this.log, 'rollback callback failed');
      throw error;
    })();
  }

  /**
   * The transaction committed: its commit callbacks run. One that throws an
   * ApiError makes it the request's answer once every callback ran (the
   * write stands: a job a non-transactional queue could not take after the
   * commit, say); any other failure is only logged.
   */
  private committed<T>(callbacks: TxCallbacks, result: T): Maybe<T> {
    if (callbacks.commit.length === 0) return result;
    return (async () => {
      let answer: ApiError | undefined;
      for (const callback of callbacks.commit) {
        const surfaced = await runCallback(callback, this.log, undefined, true);
        answer ??= surfaced;
      }
      if (answer) throw answer;
      return result;
    })();
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
  /** Work in flight that may commit, and who waits for it to settle. */
  private commitsInFlight = 0;
  private onSettled: Array<() => void> | null = null;
  /** Set once a write of this request is durable: past that point the deadline no longer answers 504. */
  committed = false;
  /** Set when the request reads the primary from its start (a write request, `X-Read-Primary: 1`, `ctx.readFromPrimary()`). */
  private pinnedPrimary = false;

  /**
   * Whether this request's reads go to the primary rather than a read
   * replica: once pinned, and once one of its writes has committed, so a
   * request reads its own writes (see CancelSignal.readPrimary).
   */
  get readPrimary(): boolean {
    return this.pinnedPrimary || this.committed;
  }

  /** Sends this request's reads to the primary from now on. */
  pinPrimary(): void {
    this.pinnedPrimary = true;
  }

  /** Whether work that may commit is running now. */
  get committing(): boolean {
    return this.commitsInFlight > 0;
  }

  commitGuard(): (committed: boolean) => void {
    this.commitsInFlight++;
    let settled = false;
    return (committed) => {
      if (settled) return;
      settled = true;
      this.commitsInFlight--;
      if (committed) this.committed = true;
      if (this.commitsInFlight === 0 && this.onSettled) {
        const waiting = this.onSettled;
        this.onSettled = null;
        for (const fn of waiting) fn();
      }
    };
  }

  /** Runs `fn` once no work that may commit is running (at once when none is). */
  whenSettled(fn: () => void): void {
    if (this.commitsInFlight === 0) fn();
    else (this.onSettled ??= []).push(fn);
  }

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

/** Runs a deferred callback (after commit, after the response); what it throws is logged, never raised. */
export async function runCallback(fn: Callback, log: Logger, failure = 'after-commit callback failed', surface = false): Promise<ApiError | undefined> {
  try {
    await fn();
  } catch (error) {
    // With `surface`, an ApiError is handed back for the caller to answer with, not logged.
    if (surface && error instanceof ApiError) return error;
    log.error({ err: String((error as Error)?.stack ?? error) }, failure);
  }
  return undefined;
}
