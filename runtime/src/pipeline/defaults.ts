import { mapDbError } from '../db/errors.js';
import { ApiError, type ValidationDetail } from '../errors/api-error.js';
import { bodyLimitOf, isMultipart, parseJsonObject, readBody } from '../http/body.js';
import { type MultipartHandoff, readMultipart } from '../http/multipart.js';
import { etagOf } from '../http/etag.js';
import type { CursorCodec } from '../query/cursor.js';
import { keysetFor, nextCursor } from '../query/keyset.js';
import type { Keyset } from '../store/list-sql.js';
import type { Maybe } from '../util/maybe.js';
import { parseListQuery, parseReadQuery } from '../query/parse.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { modelRoutes, type RouteRow } from '../registry/model-routes.js';
import { codecOf, FULL_VIEW, type RecordData, type ResponseView } from '../store/codec.js';
import type { ModelStore, Page } from '../store/model-store.js';
import { type ScopeColumn, SingletonRows } from '../store/singleton.js';
import type { Context } from './context.js';
import { aggregateDefaults } from './aggregate-read.js';
import { historyDefaults } from './history-read.js';
import { notFound, pathId } from './path-id.js';
import { recordWrites } from './record-writes.js';
import { ObserverError, type WriteObservers } from './write-observers.js';
import { hookFailure, type StepDefaults, straight } from './pipeline.js';
import type { Hook } from './types.js';
import { storableCheck } from './storable.js';
import { applyDefaults, bodyProblems, stripBody } from './validate.js';
import { hasWriteRules, judgeWrite } from './write-rules.js';
import type { ResolvedLocales } from '../locale/options.js';
import { localePlanOf, reachesLocalized } from '../locale/plan.js';
import { localizeQuery } from '../locale/query.js';
import { requestLocaleOf } from '../locale/request.js';
import { normalizeLocalizedBody } from '../locale/writes.js';
import { computedOf, computedPlan } from '../computed/computed.js';
import { type FileFields, fileFieldsOf } from '../files/fields.js';

const NO_PROBLEMS: readonly ValidationDetail[] = [];

/** The storable problems with a file field's key problems after them (no copy when there are none). */
const withFileProblems = (storable: readonly ValidationDetail[], files: readonly ValidationDetail[]) => (files.length === 0 ? storable : [...storable, ...files]);
import { exportDefaults } from '../export/export.js';
import type { ExportSlots } from '../export/slots.js';

export interface DefaultsOptions {
  bodyLimit: number;
  /** The app's locale options (localized fields). */
  locales: ResolvedLocales;
  /** Signs and reads keyset pagination tokens. */
  cursors: CursorCodec;
  /** The write observers of every model (history, audit, ...), sealed. */
  observers: WriteObservers;
  /** The registered multipart parser; null answers multipart bodies 501 NO_STORAGE. */
  multipart?: MultipartHandoff | null;
  /** File fields with their storage (the `files` setting); null without storage. */
  files?: FileFields | null;
  /** The server's export slots (maxConcurrentExports). */
  exports: ExportSlots;
}


/** Runs a store call, turning driver errors into API errors (and a write observer's failure into a hook's). */
async function db<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw dbFailure(ctx, error);
  }
}

/** What the db step answers for what its work threw (db() does this around a callback; the hot steps inline it, without the closure). */
function dbFailure(ctx: Context, error: unknown): ApiError {
  if (error instanceof ObserverError) return hookFailure(error.cause, ctx, 'db', 'write observer', { observer: error.observer });
  const mapped = mapDbError(error, ctx.db.dialect, ctx.op);
  if (mapped.code === 'DB_ERROR') {
    ctx.log.error({ requestId: ctx.requestId, model: ctx.model?.name, op: ctx.op, err: String((error as Error)?.message ?? error) }, 'database error');
  }
  return mapped;
}

/**
 * The db step's store call `work(ctx, arg)`, its failures mapped as db()
 * maps them, then `next(ctx, value, arg)`: without a promise while the store
 * answers now (a SQLite read or plain create, db/now.ts), so the step stays
 * synchronous. Both functions are the model's, made once: a request
 * allocates no closure here unless the store answered with a promise.
 */
function stored<A, T>(ctx: Context, work: (ctx: Context, arg: A) => Maybe<T>, arg: A, next: (ctx: Context, value: T, arg: A) => Maybe<void>): Maybe<void> {
  let value: Maybe<T>;
  try {
    value = work(ctx, arg);
  } catch (error) {
    throw dbFailure(ctx, error);
  }
  if (!(value instanceof Promise)) return next(ctx, value, arg);
  return value.then(
    (found) => next(ctx, found, arg),
    (error: unknown) => {
      throw dbFailure(ctx, error);
    },
  );
}

/** Reads the body; `then` works on it in the same step (the stored form of localized fields). */
function deserializeBody(options: DefaultsOptions, then: ((ctx: Context) => void) | null = null): Hook {
  return straight(async (ctx) => {
    if (isMultipart(ctx.req)) {
      await readMultipart(ctx, options.multipart ?? null);
    } else {
      ctx.rawBody = await readBody(ctx.req, bodyLimitOf(ctx, options.bodyLimit));
      ctx.body = parseJsonObject(ctx.rawBody);
    }
    then?.(ctx);
  });
}

/**
 * The default step behaviour of one route of a model, keyed by its route
 * kind (aggregate and export run as the `list` op for hooks but get steps of
 * their own); a kind without defaults here is not served yet.
 *
 * @example
 * const defaults = modelDefaults(post, modelRoutes(post).rows[0], store, { bodyLimit, cursors, observers });
 */
export function modelDefaults(model: ModelMeta, route: RouteRow, store: ModelStore, options: DefaultsOptions): StepDefaults {
  const { project } = codecOf(model, store.dialect.name);
  // Localized fields (runtime/src/locale), decided once: other models do no locale work per request.
  const localePlan = localePlanOf(model, options.locales);
  const localeOf = reachesLocalized(model) ? (ctx: Context) => requestLocaleOf(ctx, options.locales) : () => null;
  /** What the response shows, from the request's parameters, locale and caller. */
  const viewOf = (ctx: Context): ResponseView => ({ select: ctx.query?.select ?? null, locale: localeOf(ctx), caller: ctx.identity });
  /** `meta` of an envelope whose request resolved to a right-to-left locale, else null. */
  const directionOf = (view: ResponseView) => (view.locale?.direction(model) ? { _dir: 'rtl' as const } : null);
  // The map each localized field will store, worked out before validation and Validate-step hooks see the body.
  const readWrite = deserializeBody(
    options,
    localePlan ? (ctx) => ctx.body && normalizeLocalizedBody(ctx.body, localePlan, requestLocaleOf(ctx, options.locales)) : null,
  );
  // File fields with storage (runtime/src/files): uploads a request stored stay only if its write commits.
  const files = options.files && fileFieldsOf(model).length > 0 ? options.files : null;
  const deserializeWrite: Hook = files
    ? async (ctx, next) => {
        try {
          await readWrite(ctx, next);
        } finally {
          await files.settleUploads(ctx);
        }
      }
    : readWrite;
  /**
   * The Validate step of create or update; with file storage, keys sent in
   * file fields must name stored files first (422 details beside the
   * schema's). Models without file fields stay synchronous.
   */
  const validateWrite = (check: (ctx: Context, problems: readonly ValidationDetail[]) => void | Promise<void>, keys: ModelMeta['createKeys']): Hook =>
    files ? straight(async (ctx) => check(ctx, await files.keyProblems(ctx, model, ctx.body!, keys))) : straight((ctx) => check(ctx, NO_PROBLEMS));
  const storeOptions = (ctx: Context) => ({ signal: ctx.cancel, scope: ctx.scopeIfAny });
  const none: StepDefaults = { auth: null, deserialize: null, validate: null, service: null, db: null, response: null };
  // The ETag names the stored record, not a view of it: If-Match is compared with every visible field.
  const storedEtag = (record: RecordData) => etagOf({ data: project(record, FULL_VIEW, false) });
  const writes = recordWrites(model, store, options.observers, storedEtag);
  // What the body schemas cannot say (NUL characters, JSON nesting), checked once per write.
  const storableCreate = storableCheck(model.createKeys);
  const storableUpdate = storableCheck(model.updateKeys);
  // Singletons have no id in the path: the row is resolved (and created on first access) per request.
  const singleton = model.options.singleton ? new SingletonRows(model, store.dialect) : null;
  const idOf = (ctx: Context) => singleton!.idFor(ctx.db, singletonScope(ctx, singleton!), { signal: ctx.cancel });
  // Computed fields (runtime/src/computed), decided once: null when no response of this model can carry one.
  const computed = computedPlan(model);
  const ownComputed = computedOf(model) !== undefined;
  // Locked models always carry the ETag that If-Match is compared against.
  const single = (ctx: Context, status: number, record: RecordData) => {
    const view = viewOf(ctx);
    const meta = directionOf(view);
    const body = meta ? { data: project(record, view), meta } : { data: project(record, view) };
    if (!model.options.optimisticLock) ctx.response = { status, body };
    else if (ownComputed || (ctx.query && (ctx.query.select || ctx.query.include.length))) ctx.response = { status, body, headers: { ETag: storedEtag(record) } };
    else ctx.response = { status, body, etag: true };
  };

  // The db steps of list, read and create, as the model's functions for stored() (no closure per request).
  const listPage = (ctx: Context, keyset: Keyset | null) => store.listNow(ctx.db, ctx.query!, { signal: ctx.cancel, scope: ctx.scopeIfAny, keyset });
  /** The page found; includes and computed fields load after it (asynchronously), the next cursor is set last. */
  const listed = (ctx: Context, page: Page, keyset: Keyset | null): Maybe<void> => {
    const query = ctx.query!;
    if (query.include.length === 0 && !computed) return listResult(ctx, page, keyset);
    return db(ctx, () => store.include(ctx.db, page.records, query.include, storeOptions(ctx))).then(async () => {
      if (computed) await computed(ctx, page.records, query.include, query.select);
      listResult(ctx, page, keyset);
    });
  };
  const listResult = (ctx: Context, page: Page, keyset: Keyset | null) => {
    if (keyset) page.nextCursor = nextCursor(model, keyset, page.records, page.hasMore ?? false, options.cursors);
    ctx.result = page;
  };
  const findRecord = (ctx: Context, id: string) => store.findByIdNow(ctx.db, id, storeOptions(ctx));
  /** The record read by id (404 without one); includes and computed fields load after it. */
  const found = (ctx: Context, record: RecordData | null, id: string): Maybe<void> => {
    const include = ctx.query?.include ?? [];
    if (record && include.length > 0) {
      return db(ctx, () => store.include(ctx.db, [record], include, storeOptions(ctx))).then(() => readResult(ctx, record, id));
    }
    return readResult(ctx, record, id);
  };
  const readResult = (ctx: Context, record: RecordData | null, id: string): Maybe<void> => {
    if (!record) throw notFound(model, id);
    if (computed) return computed(ctx, [record], ctx.query?.include ?? [], ctx.query?.select ?? null).then(() => void (ctx.result = record));
    ctx.result = record;
  };
  const insertRecord = (ctx: Context, body: Record<string, unknown>) => writes.insert(ctx, { ...body });
  const inserted = (ctx: Context, record: RecordData): Maybe<void> => {
    if (computed) return computed(ctx, [record], [], null).then(() => createdResult(ctx, record));
    createdResult(ctx, record);
  };
  const createdResult = (ctx: Context, record: RecordData) => {
    ctx.result = record;
    files?.keepUploads(ctx);
  };

  switch (route.kind) {
    case 'list':
      return {
        ...none,
        deserialize: straight((ctx) => {
          ctx.query = parseListQuery(model, ctx.searchParamsIfAny);
          const locale = localeOf(ctx);
          if (locale) localizeQuery(model, ctx.query, locale);
        }),
        db: straight((ctx) => stored(ctx, listPage, keysetFor(model, ctx.query!, options.cursors), listed)),
        response: straight((ctx) => {
          const page = ctx.result as Page;
          const { limit, page: number } = ctx.query!;
          const meta =
            page.total === null
              ? { limit, next_cursor: page.nextCursor ?? null, has_more: page.hasMore ?? false }
              : { total: page.total, page: number, limit, pages: Math.ceil(page.total / limit) };
          const view = viewOf(ctx);
          const dir = directionOf(view);
          ctx.respond(200, { data: page.records.map((r) => project(r, view)), meta: dir ? { ...meta, ...dir } : meta });
        }),
      };
    case 'read':
      return {
        ...none,
        deserialize: straight((ctx) => {
          ctx.query = parseReadQuery(model, ctx.searchParamsIfAny);
        }),
        db: straight((ctx) => (singleton ? db(ctx, () => idOf(ctx)).then((id) => stored(ctx, findRecord, id, found)) : stored(ctx, findRecord, pathId(ctx, model), found))),
        response: straight((ctx) => {
          single(ctx, 200, ctx.result as RecordData);
        }),
      };
    case 'create':
      return {
        ...none,
        deserialize: deserializeWrite,
        validate: validateWrite((ctx, fileProblems) => {
          const body = stripBody(ctx.body!, model.createKeys);
          const problems = bodyProblems(model.validators.create, body, model, withFileProblems(storableCreate(body, ctx.rawBody), fileProblems));
          applyDefaults(body, model);
          ctx.body = body;
          // Validation hooks (write-rules.ts) judge the body with its defaults, in the same 422.
          return judgeWrite(ctx, model, body, problems, null);
        }, model.createKeys),
        db: straight((ctx) => stored(ctx, insertRecord, ctx.body!, inserted)),
        response: straight((ctx) => {
          single(ctx, 201, ctx.result as RecordData);
        }),
      };
    case 'update':
      return {
        ...none,
        deserialize: deserializeWrite,
        validate: validateWrite((ctx, fileProblems) => {
          const body = stripBody(ctx.body!, model.updateKeys);
          const problems = bodyProblems(model.validators.update, body, model, withFileProblems(storableUpdate(body, ctx.rawBody), fileProblems));
          ctx.body = body;
          // Validation hooks judge the stored record with the patch over it, read only when a hook added a rule.
          if (!hasWriteRules(ctx)) return judgeWrite(ctx, model, body, problems, null);
          return judgeWrite(ctx, model, body, problems, () =>
            db(ctx, async () => store.findById(ctx.db, singleton ? await idOf(ctx) : pathId(ctx, model), storeOptions(ctx))),
          );
        }, model.updateKeys),
        db: straight(async (ctx) => {
          const id = singleton ? await db(ctx, () => idOf(ctx)) : pathId(ctx, model);
          const record = await db(ctx, () => writes.update(ctx, id, { ...ctx.body }));
          if (!record) throw notFound(model, id);
          if (computed) await computed(ctx, [record], [], null);
          ctx.result = record;
          files?.keepUploads(ctx);
        }),
        response: straight((ctx) => {
          single(ctx, 200, ctx.result as RecordData);
        }),
      };
    case 'delete':
      return {
        ...none,
        db: straight(async (ctx) => {
          const id = pathId(ctx, model);
          const removed = await db(ctx, () => writes.remove(ctx, id));
          if (!removed) throw notFound(model, id);
          ctx.result = null;
        }),
        response: straight((ctx) => {
          ctx.respond(204);
        }),
      };
    case 'history':
      return historyDefaults(model, store, none);
    case 'aggregate':
      return aggregateDefaults(model, store, none, db, localeOf);
    case 'export':
      return exportDefaults(model, store, none, { slots: options.exports, localeOf });
    case 'options': {
      const allow = modelRoutes(model).allow(route.pattern);
      return {
        ...none,
        response: straight((ctx) => {
          ctx.respond(204, undefined, { Allow: allow });
        }),
      };
    }
    default:
      return none;
  }
}

/** The scope of a singleton request; a scope shape a singleton cannot use is a logged 500. */
function singletonScope(ctx: Context, singleton: SingletonRows): ScopeColumn[] {
  try {
    return singleton.scopeColumns(ctx.scopeIfAny);
  } catch (error) {
    ctx.log.error({ requestId: ctx.requestId, model: singleton.model.name, err: (error as Error).message }, 'singleton scope refused');
    throw new ApiError('INTERNAL');
  }
}
