import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Duration, durationMs, type ResolvedConfig, resolveConfig, type ServerConfig } from './config/config.js';
import type { Adapter } from './db/adapter.js';
import { ConfigError, RegistrationClosedError } from './errors/api-error.js';
import { type ExpressionDefinition, registerExpression } from './aggregate/expression.js';
import { aggregateFromCode, type CodeAggregateOptions } from './aggregate/sql.js';
import { type DispatchDeps, routeHandler } from './http/dispatch.js';
import { DEFAULT_MULTIPART_LIMIT, type MultipartHandoff, type MultipartParser } from './http/multipart.js';
import { drained, type Inflight } from './http/inflight.js';
import { closeConnections, createNodeServer, OpenConnections, stopListening } from './http/node-server.js';
import { buildRouter, identityHeaders } from './http/router.js';
import { defaultLogger, flushLogger, type Logger, settleLogger, withService } from './log/logger.js';
import type { LoadedManifest } from './manifest/load.js';
import { adapterNameProblem, DEFAULT_ADAPTER, type RelationManifest } from './manifest/types.js';
import { type MigrateOptions, type MigrationReport, migrate } from './migrate/migrate.js';
import { actionsContribution } from './openapi/actions.js';
import { OpenApiContributions } from './openapi/contributions.js';
import { DocumentGenerator } from './openapi/generator.js';
import { mountDocumentRoute } from './openapi/route.js';
import { docsPageContribution, mountDocsPage } from './openapi/docs-page.js';
import { documentTitle } from './openapi/document.js';
import type { OpenApiDocument } from './openapi/types.js';
import { modelDefaults } from './pipeline/defaults.js';
import { resolveLocales } from './locale/options.js';
import { type Chain, Pipeline } from './pipeline/pipeline.js';
import { type Hook, type HookScope, type Identity, type ModelHook, type ModelMiddleware, STEPS, type Step } from './pipeline/types.js';
import { Context } from './pipeline/context.js';
import { requestIdOf, traceIdOf } from './http/respond.js';
import { type Availability, createProbes, type HttpMiddleware, validateReadinessChecks } from './probes/probes.js';
import type { ModelMeta } from './registry/model-meta.js';
import type { RouteRow } from './registry/model-routes.js';
import { type ModelOverrides, Registry } from './registry/registry.js';
import { CursorCodec } from './query/cursor.js';
import type { TableSpec } from './sql/schema.js';
import { ModelStore } from './store/model-store.js';
import { fieldKeyIds, installEncryption } from './security/encryption/fields.js';
import { DEFAULT_DECRYPTION_CACHE_BYTES } from './security/encryption/plaintext-cache.js';
import { Keyring } from './security/encryption/keyring.js';
import { type ActionDefinition, describeAction } from './actions/action.js';
import { ActionRegistry } from './actions/registry.js';
import { ACTION_USER_STEPS, actionDefaults, skippedByPublicAction } from './actions/chain.js';
import { mountActions } from './actions/mount.js';
import { hookMeta, type RegisteredHook } from './pipeline/hook-meta.js';
import { actionEntry, setupHooks } from './pipeline/hook-setup.js';
import { type WriteObserver, WriteObservers } from './pipeline/write-observers.js';
import { historyObserver } from './store/history.js';
import { mountAsyncApiRoute } from './events/asyncapi.js';
import { publishedBy } from './events/publish.js';
import { describeSecurity, type SecurityDescription, type StandaloneRoute } from './security/describe.js';
import { operationRoute } from './security/operations.js';
import { productionProblems } from './security/production.js';
import { type Plugin, pluginName, Plugins } from './plugins/plugins.js';
import { checkLocaleDefaults } from './locale/plan.js';
import { type ComputedDefinition, ComputedFields } from './computed/computed.js';
import { type Rollup, type RollupDefinition, Rollups } from './rollups/rollup.js';
import { FileFields } from './files/fields.js';
import { filesContribution } from './files/openapi.js';
import { fileRouteDefaults, fileRoutePaths, mountFileRoutes } from './files/routes.js';
import { ExportSlots } from './export/slots.js';
import { allowanceChain, SEARCH_PATH, searchChain, searchModels, searchStandaloneRoute } from './search/global-search.js';
import { searchContribution } from './search/openapi.js';
import { resolveSchedulerOptions, ScheduledRunner, type SchedulerOptions, type SweepReport } from './scheduler/runner.js';
import { transitionsOf } from './scheduler/transitions.js';
import { type EveryOptions, type Schedule, Scheduler } from './jobs/every.js';
import { checkScheduleLock, type ScheduleLock, scheduleLockTable, sqlScheduleLock } from './jobs/schedule-lock.js';
import { SWEEP_JOB_TYPE, sweepDispatcher, sweepHandler } from './scheduler/dispatch.js';
import { Jobs, type JobsOptions } from './jobs/jobs.js';
import { JOB_STATUS_INDEXES, JOB_STATUS_MODEL, jobStatusModel } from './jobs/status.js';
import { jobTypeProblem, type NewJob } from './jobs/types.js';

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * An mfx server. Follow the spec's startup order: configure, register every
 * model, open the database from the filled registry, then start.
 *
 * @example
 * const app = createServer({ port: 8080 });
 * app.register(loadManifest('.mfx'));
 * app.setDB(openSqlite('./app.db', app.registry));
 * await app.start();
 */
export class App {
  readonly config: ResolvedConfig;
  readonly registry: Registry;
  readonly log: Logger;
  readonly panicLog: Logger;
  /** Path contributions to the OpenAPI document (actions, search, ... document themselves here before start). */
  readonly openapi = new OpenApiContributions();
  private readonly pipeline = new Pipeline();
  private readonly observers = new WriteObservers();
  private generator: DocumentGenerator | null = null;
  private adapter: Adapter | null;
  /** Adapters registered under a name (`app.setDB(adapter, { name })`) for the models declared `adapter:NAME`. */
  private readonly namedAdapters = new Map<string, Adapter>();
  private built: RequestHandler | null = null;
  private server: Server | null = null;
  private readonly connections = new OpenConnections();
  private availability: Availability = 'starting';
  private readonly inflight: Inflight = { count: 0, drained: null, draining: false };
  private readonly stores = new Map<string, ModelStore>();
  private readonly chains = new Map<string, Chain>();
  private cursors: CursorCodec | null = null;
  private stopping: Promise<void> | null = null;
  private readonly actionRegistry = new ActionRegistry();
  /** Routes outside models and actions (global search, standalone files) with their access flags. */
  readonly standaloneRoutes: StandaloneRoute[] = [];
  private readonly closers: Array<() => Promise<void> | void> = [];
  /** What hooks asked to run once the server listens (an outbox relay), with what undoes it at a hand-over. */
  private readonly starters: Starter[] = [];
  /** What this app started (its starters, the jobs worker): stopped when it hands its requests to another app. */
  private readonly startedStops: Array<() => Promise<void> | void> = [];
  /** The hand-over under way: the previous app's starts stopped, then the next app's run (see handOver). */
  private handingOver: Promise<void> | null = null;
  private readonly systemTables: TableSpec[] = [];
  private signalHandler: (() => void) | null = null;
  private multipart: MultipartHandoff | null = null;
  /** File fields and their storage (the `files` setting); null without storage. */
  private readonly files: FileFields | null = null;
  /** What the listener serves: this app's handler, or the one of the app it handed over to. */
  private serving: RequestHandler | null = null;
  /** The app serving this listener's requests now, when it is not this one (see handOver). */
  private successor: App | null = null;
  /** Apps handed over from that still had requests in flight then, until those end. */
  private readonly retiring = new Set<App>();
  private readonly plugins = new Plugins<App>();
  private readonly computedFields = new ComputedFields();
  private readonly rollupSet = new Rollups();
  /** The keys of encrypted fields (security/encryption): loaded once at boot from config.keyProvider; null without one. */
  private keys: Keyring | null | Promise<Keyring> | undefined;
  /** Exports running at once across every model (maxConcurrentExports). */
  private readonly exportSlots: ExportSlots;
  /** WebSocket upgrade handlers by exact path (`upgrade()`); the server listens for upgrades only when there is one. */
  private readonly upgrades = new Map<string, UpgradeHandler>();
  /** Routes served outside the pipeline by exact method and path (`rawRoute()`), put in the route table. */
  private readonly rawRoutes: RawRoute[] = [];
  /** Run when stop() begins, before the drain (`onStopping()`). */
  private readonly stoppingHooks: Array<() => Promise<void> | void> = [];
  private authChain: Chain | null = null;
  /** The scheduled-transition runner's options (app.scheduler), whether start() runs it, and the runner once built. */
  private schedulerOptions: SchedulerOptions = {};
  private schedulerOn = false;
  private runner: ScheduledRunner | null = null;
  /** The worker, queue and status sink of `app.jobs`; null until it is called. */
  private jobRunner: Jobs | null = null;
  /** The interval scheduler's jobs (`app.every`), started with the server. */
  private readonly schedules: Schedule[] = [];
  /** Whether start() started the worker: only then does the scheduled runner dispatch its sweeps through the queue. */
  private jobsStarted = false;
  /** `lock: true`: the interval lock in the app's database. */
  private readonly appScheduleLock = sqlScheduleLock(() => this.db);

  constructor(config: ServerConfig = {}) {
    this.config = resolveConfig(config);
    validateReadinessChecks(this.config.readinessChecks);
    this.log = withService(config.logger ?? defaultLogger(config.serviceName), config.logger ? config.serviceName : undefined);
    this.panicLog = config.panicLogger ? withService(config.panicLogger, config.serviceName) : this.log;
    this.registry = new Registry(config.queryLimits, resolveLocales(this.config.locales));
    this.adapter = config.db ?? null;
    const files = this.config.files;
    if (files) {
      this.files = new FileFields(files.storage, this.log);
      this.multipart = { parse: this.files.parse, limits: { maxBytes: files.maxUploadBytes! } };
      for (const route of fileRoutePaths(this.config.pathPrefix)) this.standaloneRoutes.push({ kind: 'files', ...route, op: 'file' });
    }
    this.exportSlots = new ExportSlots(this.config.maxConcurrentExports);
  }

  /** True once the handler was built: routes, specs and the pipeline are fixed. */
  get sealed(): boolean {
    return this.built !== null;
  }

  /**
   * Registers every model of a manifest, optionally overriding model options
   * by model name. Logs the manifest's staleness warnings.
   *
   * @example
   * app.register(loadManifest('.mfx'), { Post: { maxExportRows: 5000 } });
   */
  register(loaded: LoadedManifest, overrides?: Record<string, ModelOverrides>): this {
    if (this.sealed) throw new RegistrationClosedError(`models from ${loaded.dir}`);
    // Every model's middleware is checked before anything is registered, so a mistake changes nothing.
    const middleware = Object.entries(overrides ?? {}).flatMap(([model, override]) => (override?.middleware ? this.modelMiddleware(model, override.middleware) : []));
    this.registry.register(loaded, overrides);
    for (const { step, hook, scope } of middleware) this.pipeline.use(step, hook, scope, 'model');
    for (const warning of loaded.warnings) this.log.warn({ manifest: loaded.dir }, warning);
    return this;
  }

  /** A model's own hooks (the `Middleware` model option) as pipeline entries scoped to it, checked; they run after the app's hooks on each step and position. */
  private modelMiddleware(model: string, middleware: ModelMiddleware): { step: Step; hook: Hook; scope: HookScope }[] {
    if (middleware === null || typeof middleware !== 'object' || Array.isArray(middleware)) {
      throw new ConfigError(`the middleware of model ${model} must map steps to hook lists, such as { validate: [hook] }`);
    }
    return Object.entries(middleware).flatMap(([step, hooks]) => {
      if (!STEPS.includes(step as Step)) throw new ConfigError(`the middleware of model ${model} names step "${step}"; steps are ${STEPS.join(', ')}`);
      if (!Array.isArray(hooks)) throw new ConfigError(`the middleware of model ${model} at step ${step} must be a list of hooks`);
      return hooks.map((entry: ModelHook, i: number) => {
        const { hook, position, ops } = typeof entry === 'function' ? { hook: entry, position: undefined, ops: undefined } : (entry ?? ({} as never));
        if (typeof hook !== 'function') throw new ConfigError(`the middleware of model ${model} at ${step}[${i}] must be a hook (ctx, next) => Promise<void> or { hook, position?, ops? }`);
        const scope: HookScope = { models: [model], position, ops };
        this.pipeline.check(step as Step, hook, scope);
        return { step: step as Step, hook, scope };
      });
    });
  }

  /**
   * Injects the database adapter (built from the filled registry). With a
   * `name`, registers it beside the default one for the models declared
   * `adapter:NAME` (or given `adapter` in code): their reads, writes,
   * transactions, history and migration run there. `name: 'default'` is the
   * default adapter. The default adapter is always needed: system tables and
   * routes without a model use it.
   *
   * @example
   * app.setDB(openSqlite('./app.db', app.registry));
   * app.setDB(openPostgres({ writeUrl: process.env.ANALYTICS_URL! }, app.registry), { name: 'analytics' });
   */
  setDB(adapter: Adapter, options: { name?: string } = {}): this {
    const name = options?.name ?? DEFAULT_ADAPTER;
    if (this.sealed) throw new RegistrationClosedError(name === DEFAULT_ADAPTER ? 'a database adapter' : `the database adapter ${name}`);
    const problem = adapterNameProblem(name);
    if (problem) throw new ConfigError(`app.setDB: ${JSON.stringify(name)} cannot name an adapter: ${problem}`);
    if (adapter === null || typeof adapter !== 'object' || typeof adapter.transaction !== 'function') {
      throw new ConfigError(`app.setDB${name === DEFAULT_ADAPTER ? '' : ` (${name})`} needs a database adapter, such as openSqlite(path, app.registry) or openPostgres(options, app.registry)`);
    }
    if (name === DEFAULT_ADAPTER) this.adapter = adapter;
    else this.namedAdapters.set(name, adapter);
    return this;
  }

  /** The default database adapter; throws when none was set. */
  get db(): Adapter {
    if (!this.adapter) throw new ConfigError(NO_DATABASE);
    return this.adapter;
  }

  /**
   * The adapter that serves a model: the one registered under its
   * `adapter:NAME`, or the default one. Throws naming the model and the
   * adapter when that adapter was never registered.
   *
   * @example
   * const rows = await app.adapterOf('PageView').all('SELECT count(*) AS n FROM page_views');
   */
  adapterOf(model: string | ModelMeta): Adapter {
    const meta = typeof model === 'string' ? this.registry.require(model, 'app.adapterOf()') : model;
    const name = meta.options.adapter;
    if (name === null || name === undefined || name === DEFAULT_ADAPTER) return this.db;
    const adapter = this.namedAdapters.get(name);
    if (!adapter) throw new ConfigError(missingAdapterMessage(name, [meta.name], [...this.namedAdapters.keys()]));
    return adapter;
  }

  /** Every database: the default one (`default`) first, then the named ones in the order set; an adapter set under two names once, under its first. */
  databases(): { name: string; adapter: Adapter }[] {
    const all = [...(this.adapter ? [{ name: DEFAULT_ADAPTER, adapter: this.adapter }] : []), ...[...this.namedAdapters].map(([name, adapter]) => ({ name, adapter }))];
    return all.filter((entry, i) => all.findIndex((other) => other.adapter === entry.adapter) === i);
  }

  /** Closes every database of this app (the default one and the named ones), each once. */
  async closeDatabases(): Promise<void> {
    for (const { adapter } of this.databases()) await adapter.close();
  }

  /**
   * Runs a plugin on this app now: a function that registers hooks, actions,
   * observers, routes or tables (satellites such as realtime and the admin
   * panel are plugins). The promise settles when an asynchronous plugin has
   * finished; start() waits for it in any case.
   *
   * @example
   * await app.plugin(adminPanel({ path: '/admin' }));
   */
  plugin(fn: Plugin<App>): Promise<void> {
    if (this.sealed) throw new RegistrationClosedError(`the plugin ${pluginName(fn)}`);
    return this.plugins.add(this, fn);
  }

  /**
   * Resolves once every plugin has finished (rejects with the first
   * failure). start() waits for them itself; call this before handler()
   * when a plugin is asynchronous and the app is not started.
   *
   * @example
   * await app.ready();
   * const doc = (app.handler(), app.document());
   */
  async ready(): Promise<this> {
    await this.plugins.finished();
    return this;
  }

  /** Attaches a hook to a pipeline step; see HookScope for position and scoping. */
  use(step: Step, hook: Hook, scope?: HookScope): this {
    if (this.sealed) throw new RegistrationClosedError(`a ${step} hook`);
    this.pipeline.use(step, hook, scope);
    return this;
  }

  /**
   * Declares a custom action: its own method, path and handler, served
   * through Auth, its hooks, the handler and Response. A collision with a
   * generated route is a startup error.
   *
   * @example
   * app.action({ method: 'POST', path: '/auth/login', public: true, handler: async (ctx, input) => ({ token: await login(await input.json()) }) });
   */
  action(definition: ActionDefinition): this {
    if (this.sealed) {
      const { method, path } = describeAction(definition);
      throw new RegistrationClosedError(`the action ${method} ${path}`);
    }
    this.actionRegistry.add(definition);
    return this;
  }

  /**
   * Registers a named expression for the aggregate route: arithmetic over
   * numeric columns, selectable as a select term's `field`. Checked now: an
   * unknown or non-numeric column, a name that is a field's or excess
   * nesting is a startup error naming the expression. Only `exposed`
   * expressions are available over HTTP; app.aggregate() sees them all.
   *
   * @example
   * app.expression({ model: 'Order', name: 'margin', expr: sub(col('price'), col('cost')), exposed: true });
   * // GET /orders/aggregate?aggregate={"select":[{"op":"sum","field":"margin"}]}
   */
  expression(definition: ExpressionDefinition): this {
    if (this.sealed) throw new RegistrationClosedError(`the expression ${String(definition?.name)}`);
    registerExpression(this.registry, definition);
    return this;
  }

  /**
   * Runs an aggregate (the route's JSON spec, as an object or text) from
   * code: no hooks run, so pass the `scope` a request would have; every
   * named expression is selectable; integers beyond 2^53 are BigInt.
   * Available once the handler is built.
   *
   * @example
   * const rows = await app.aggregate('Order', { select: [{ op: 'sum', field: 'total' }], group_by: ['status'] });
   */
  aggregate(model: string, spec: Record<string, unknown> | string, options: CodeAggregateOptions = {}): Promise<Record<string, unknown>[]> {
    const meta = this.registry.require(model, 'app.aggregate()');
    return aggregateFromCode(this.adapterOf(meta), this.store(meta.name).dialect, meta, spec, options);
  }

  /**
   * The security picture as plain data (schemes, per-operation requirements,
   * actions with their declared metadata), for the OpenAPI generator.
   */
  describeSecurity(): SecurityDescription {
    const security = describeSecurity(
      this.registry.all(),
      this.pipeline.registered(),
      this.actionRegistry.all.map((a) => ({ descriptor: a.descriptor, auth: a.def.auth ?? [] })),
      this.standaloneRoutes,
    );
    // Global search takes its access flag from the list operations of the models it searches.
    const searched = searchModels(this.registry.all());
    if (searched.length > 0) security.standalone.push(searchStandaloneRoute(searched, security.operations, this.config.pathPrefix));
    return security;
  }

  /**
   * Refuses to go to production with an unprotected route: throws listing
   * every generated operation with neither an authenticator nor a scoped
   * public declaration, and every action or standalone route without its
   * access flag. `mfx serve --production` calls it before start.
   */
  validateProduction(): void {
    const problems = productionProblems({
      security: this.describeSecurity(),
      entries: this.pipeline.registered(),
      otherHooks: this.actionRegistry.all.flatMap((a) => [...(a.def.auth ?? []), ...(a.def.hooks ?? [])]),
      httpMiddlewares: this.config.httpMiddlewares,
      httpAccessControlled: this.config.httpAccessControlled ?? false,
      pathPrefix: this.config.pathPrefix,
      routeOf: (model, op) => operationRoute(this.registry.require(model, 'production validation'), op, this.config.pathPrefix),
    });
    if (problems.length > 0) {
      throw new ConfigError(`production validation failed (${problems.length} problem${problems.length > 1 ? 's' : ''}):\n  - ${problems.join('\n  - ')}`);
    }
  }

  /**
   * Follows every write of the generated routes (and every row a delete
   * cascades to) with an observer; `models` limits it to those models. The
   * observer declares whether it needs the row before the write, a
   * transaction and a row lock; see WriteObserver.
   *
   * @example
   * app.observeWrites({ name: 'changes', ops: ['update'], needsBefore: true, observe: (tx, c) => log(c.before, c.after) }, { models: ['Post'] });
   */
  observeWrites(observer: WriteObserver, scope: { models?: string[] } = {}): this {
    if (this.sealed) throw new RegistrationClosedError(`the write observer ${observer?.name ?? ''}`);
    this.observers.add(observer, scope.models);
    return this;
  }

  /**
   * Registers the parser of `multipart/form-data` create and update bodies
   * (file storage plugs busboy in here). It reads `ctx.req` within the limits,
   * returns the form fields (`ctx.body`) and file parts (`ctx.files`), and
   * registers its cleanup with `ctx.afterResponse`. Without one, multipart
   * bodies answer 501 NO_STORAGE. One parser per app, before start.
   *
   * @example
   * app.multipartParser(async (ctx, limits) => parseWithBusboy(ctx, limits), { maxBytes: 8 * 1024 * 1024 });
   */
  multipartParser(parse: MultipartParser, options: { maxBytes?: number } = {}): this {
    if (this.sealed) throw new RegistrationClosedError('a multipart parser');
    if (typeof parse !== 'function') throw new ConfigError('the multipart parser must be a function (ctx, limits) => Promise<{ fields, files }>');
    if (this.files) throw new ConfigError('file storage (the files setting) reads multipart bodies already; an app has one multipart parser');
    if (this.multipart) throw new ConfigError('a multipart parser is already registered; an app has one');
    const maxBytes = options.maxBytes ?? DEFAULT_MULTIPART_LIMIT;
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new ConfigError(`multipart maxBytes must be a positive whole number of bytes, got ${String(maxBytes)}`);
    this.multipart = { parse, limits: { maxBytes } };
    return this;
  }

  /**
   * Declares a computed field: a read-only value a resolver works out for
   * every record response of the model (create and update echoes, read,
   * list rows, included records), documented in the OpenAPI document. Give
   * `resolve(row, ctx)` (at most 8 rows at once per response) or
   * `resolveMany(rows, ctx)` (once per response, one value per row in
   * order). A resolver that throws leaves the field out of that record only
   * (logged). Checked when the app seals: an unknown model or a name the
   * model already uses is a startup error.
   *
   * @example
   * app.computed({ model: 'Order', name: 'gross', schema: { type: 'number' }, resolve: (row) => Number(row.net) * 1.2 });
   */
  computed(definition: ComputedDefinition): this {
    if (this.sealed) throw new RegistrationClosedError(`the computed field ${String(definition?.model)}.${String(definition?.name)}`);
    this.computedFields.add(definition);
    return this;
  }

  /**
   * Declares a rollup: `parent.field` follows count/sum/min/max/avg of the
   * live children whose `via` foreign key points at the parent (and whose
   * fields equal `where`), recomputed in every child write's transaction
   * under a lock of the parent row. The child's writes need the transaction
   * hook: without one they answer 500 ROLLUP_NO_TX. Checked when the app
   * seals; `mfx rollups backfill` (backfillRollups) fills existing rows.
   *
   * @example
   * app.rollup({ parent: 'Order', field: 'total', child: 'OrderLine', via: 'orderId', op: 'sum', of: 'amount', where: { state: 'paid' } });
   * app.use('service', transaction(), { models: ['OrderLine'] });
   */
  rollup(definition: RollupDefinition): this {
    if (this.sealed) throw new RegistrationClosedError(`the rollup ${String(definition?.parent)}.${String(definition?.field)}`);
    this.rollupSet.add(definition);
    return this;
  }

  /**
   * The rollups declared, checked against the registry (which this seals:
   * register every model first). For backfillRollups.
   */
  /**
   * Sets up background jobs (DESIGN "Jobs and scheduling"): the worker on
   * `queue`, started and stopped with the server; with `statusRoutes`
   * (default true) the JobStatus model (`GET {prefix}/job_statuses`, writes
   * 405) and its status rows. Call it before start (after setDB when the
   * queue needs the adapter: `sqlQueue(app.db)`).
   *
   * @example
   * app.jobs({ queue: sqlQueue(db), handlers: { 'report.build': async (job) => ({ url: await build(job.payload) }) } });
   */
  jobs(options: JobsOptions): this {
    if (this.sealed) throw new RegistrationClosedError('app.jobs()');
    if (this.jobRunner) throw new ConfigError('app.jobs() was already called: one worker per app (give it every handler)');
    const runner = new Jobs(options, () => this.db, this.log);
    if (runner.statusRoutes) {
      this.register(jobStatusModel());
      // The prune's partial index, which the model's directives cannot declare (status.ts).
      this.declareTable(JOB_STATUS_INDEXES);
      this.use('service', runner.visibilityHook(), { models: [JOB_STATUS_MODEL], ops: ['list', 'read'], position: 'before' });
    }
    for (const table of runner.queue.tables ?? []) this.declareTable(table);
    runner.queue.useKeyProvider?.(this.config.keyProvider);
    this.jobRunner = runner;
    return this;
  }

  /**
   * Enqueues a job and resolves with its id. Given a request context, the
   * actor, tenant and trace id default to the request's, and the job is
   * written in the request's transaction (SQL queue) or after it commits.
   *
   * @example
   * const id = await app.enqueue({ type: 'report.build', payload: { month: '2026-05' } }, ctx);
   */
  async enqueue(job: NewJob, ctx?: Context): Promise<string> {
    return this.jobsOrThrow('app.enqueue()').enqueue(job, ctx);
  }

  /**
   * Cancels an enqueued job (its status turns `cancelled`). A running job
   * is refused and an unknown id is an error (both JobCancelError).
   *
   * @example
   * await app.cancelJob(id);
   */
  async cancelJob(id: string): Promise<void> {
    return this.jobsOrThrow('app.cancelJob()').cancel(id);
  }

  /**
   * Enqueues `job` every `interval` while the server runs (not durable: a
   * restart starts the intervals afresh). With `{ lock: true }`, replicas on
   * one database enqueue it once per interval between them; `lock` may also
   * be another interval lock (`redisScheduleLock` of `@mfx/jobs-redis`).
   *
   * @example
   * app.every('5m', { type: 'cache.refresh' }, { lock: true });
   */
  every(interval: Duration, job: Schedule['job'], options: EveryOptions = {}): this {
    if (this.sealed) throw new RegistrationClosedError('app.every()');
    const intervalMs = durationMs(interval, 0, 'app.every() interval');
    if (intervalMs < 1) throw new ConfigError('app.every() needs an interval of at least 1ms, such as "5m"');
    if (!job || typeof job.type !== 'string' || job.type === '') throw new ConfigError("app.every() needs a job with a type: app.every('5m', { type: 'cache.refresh' })");
    const problem = jobTypeProblem(job.type);
    if (problem) throw new ConfigError(`app.every(): ${problem}`);
    checkScheduleLock(options.lock, 'app.every()');
    this.schedules.push({ intervalMs, job, options });
    return this;
  }

  /** Models the runtime registers itself (the job status model): served on whichever adapter is set, registered before or after it. */
  private runtimeModels(): string[] {
    return this.jobRunner?.statusRoutes ? [JOB_STATUS_MODEL] : [];
  }

  private jobsOrThrow(what: string): Jobs {
    if (!this.jobRunner) throw new ConfigError(`${what} needs background jobs: call app.jobs({ queue, handlers }) first`);
    return this.jobRunner;
  }

  /**
   * Starts the worker (with the handler of scheduled sweeps when a model has
   * scheduled fields) and the interval scheduler; the shutdown stops them
   * (within its budget) before the database closes, then closes the locks.
   */
  private startJobs(): void {
    const runner = this.jobRunner;
    if (this.schedules.length > 0 && !runner) throw new ConfigError('app.every() enqueues jobs: call app.jobs({ queue, handlers }) too');
    if (!runner) return;
    const lockOf = (lock: EveryOptions['lock']) => (lock === true ? this.appScheduleLock : lock || null);
    const scheduler = new Scheduler(
      this.schedules.map((schedule) => ({ ...schedule, lock: lockOf(schedule.options.lock) })),
      (lock, name, slot, job) => runner.enqueueOnSlot(lock, name, slot, job),
      this.log,
    );
    // Any replica's worker may claim a sweep another replica enqueued, --no-scheduler or not.
    if (this.scheduledModels().length > 0) runner.worker.handle(SWEEP_JOB_TYPE, sweepHandler((model) => this.scheduledRunner().sweep(model)));
    runner.worker.start();
    runner.pruner?.start();
    scheduler.start();
    this.jobsStarted = true;
    const locks = new Set<ScheduleLock>([...this.schedules.map((s) => lockOf(s.options.lock)), this.schedulerOptions.lock ?? null].filter((l): l is ScheduleLock => l !== null));
    this.startedStops.push(async () => {
      scheduler.stop();
      await runner.pruner?.stop();
      await runner.worker.stop(this.config.shutdownTimeoutMs);
    });
    this.closers.push(async () => {
      scheduler.stop();
      await runner.pruner?.stop();
      await runner.worker.stop(this.config.shutdownTimeoutMs);
      await runner.queue.close();
      for (const lock of locks) await lock.close?.().catch((error) => this.log.error({ err: String(error), lock: lock.kind }, 'closing an interval lock failed'));
    });
  }

  /** The names of the models with scheduled fields. */
  private scheduledModels(): string[] {
    return this.registry
      .all()
      .filter((m) => m.fields.some((f) => f.scheduled))
      .map((m) => m.name);
  }

  /** Whether the scheduled runner enqueues its sweeps (a job queue is set up, and `dispatch: false` was not asked). */
  private dispatchesSweeps(): boolean {
    return this.jobRunner !== null && this.schedulerOptions.dispatch !== false && this.scheduledModels().length > 0;
  }

  /** The tables of the interval locks in use: `mfx_schedule_locks` for `lock: true` and the default sweep lock, a lock's own. */
  private scheduleLockTables(): TableSpec[] {
    const locks: Array<EveryOptions['lock']> = this.schedules.map((s) => s.options.lock);
    if (this.dispatchesSweeps()) locks.push(this.schedulerOptions.lock ?? true);
    const tables = new Map<string, TableSpec>();
    for (const lock of locks) {
      for (const table of lock === true ? [scheduleLockTable] : lock ? (lock.tables ?? []) : []) tables.set(table.name, table);
    }
    return [...tables.values()];
  }

  rollups(): readonly Rollup[] {
    this.registry.seal('rollups resolved');
    return this.rollupSet.resolve(this.registry);
  }

  /**
   * Runs the scheduled-transition runner with the server: every `interval`
   * (default 1m) it applies the transitions of `scheduled` fields whose time
   * has passed, in transactions of `batchSize` rows (default 500), and calls
   * `onDelete` / `onSetField` after each commit. Options given again are
   * merged over the earlier ones; `false` keeps them (for sweepScheduled)
   * but does not run the interval (`mfx serve --no-scheduler`).
   *
   * @example
   * app.scheduler({ interval: '30s', onDelete: (model, id) => log.info({ model, id }, 'expired') });
   */
  scheduler(options: SchedulerOptions | false = {}): this {
    if (this.sealed) throw new RegistrationClosedError('the scheduler');
    if (options === false) {
      this.schedulerOn = false;
      return this;
    }
    const merged = { ...this.schedulerOptions, ...options };
    // Checked now, so a bad interval or batch size fails the setup rather than the start.
    resolveSchedulerOptions(merged);
    this.schedulerOptions = merged;
    this.schedulerOn = true;
    return this;
  }

  /**
   * Runs one sweep of the scheduled transitions now (after a sweep under
   * way) and reports what it did. Available once the handler is built.
   *
   * @example
   * await app.sweepScheduled(); // { softDeleted: 1, hardDeleted: 0, fieldsSet: 2, failed: 0 }
   */
  sweepScheduled(): Promise<SweepReport> {
    return this.scheduledRunner().sweep();
  }

  private scheduledRunner(): ScheduledRunner {
    if (!this.built) throw new ConfigError('sweepScheduled needs the models sealed: build the handler (app.handler() or app.start()) first');
    this.runner ??= new ScheduledRunner(
      { dbOf: (model) => this.adapterOf(model), store: (name) => this.store(name), observers: this.observers, transitions: transitionsOf(this.registry.all()), log: this.log },
      this.schedulerOptions,
    );
    return this.runner;
  }

  /**
   * Starts the runner when app.scheduler() asked for it and some model has
   * scheduled fields; stopped at shutdown. With the worker started here, its
   * interval enqueues the sweeps (dispatch.ts) instead of sweeping.
   */
  private startScheduler(): void {
    const models = this.scheduledModels();
    if (!this.schedulerOn || models.length === 0) return;
    const runner = this.scheduledRunner();
    const jobs = this.jobRunner;
    const dispatch =
      jobs && this.jobsStarted && this.dispatchesSweeps()
        ? sweepDispatcher({
            models,
            intervalMs: resolveSchedulerOptions(this.schedulerOptions).intervalMs,
            lock: this.schedulerOptions.lock ?? this.appScheduleLock,
            enqueueOnSlot: (lock, name, slot, job) => jobs.enqueueOnSlot(lock, name, slot, job),
            log: this.log,
          })
        : null;
    runner.start(dispatch);
    this.closers.unshift(() => runner.stop());
    // The scheduled fields of a later manifest are its app's: its runner takes over at a hand-over.
    this.startedStops.push(() => runner.stop());
  }

  /** Adds router-level middleware that runs before routing and Auth (CORS, for example). */
  httpMiddleware(middleware: HttpMiddleware): this {
    if (this.sealed) throw new RegistrationClosedError('HTTP middleware');
    if (typeof middleware !== 'function') throw new ConfigError('HTTP middleware must be a function (req, res, next) => void');
    this.config.httpMiddlewares.push(middleware);
    return this;
  }

  /**
   * Serves HTTP upgrades (WebSocket) arriving on exactly `path` (the path
   * prefix included) with `handler`, for satellites such as realtime. Once
   * one is registered, an upgrade request on any other path is answered 404
   * and its connection closed; without one, upgrades are served as plain
   * HTTP/1.1.
   */
  upgrade(path: string, handler: UpgradeHandler): this {
    if (this.sealed) throw new RegistrationClosedError(`the upgrade handler of ${path}`);
    if (typeof handler !== 'function') throw new ConfigError('an upgrade handler must be a function (req, socket, head) => void');
    if (this.upgrades.has(path)) throw new ConfigError(`${path} already has an upgrade handler`);
    this.upgrades.set(path, handler);
    return this;
  }

  /**
   * Serves `method` requests on exactly `path` (the path prefix included, no
   * parameters) with `handler`, outside the pipeline: no hooks, no body
   * reading, no in-flight count (a long-lived stream ends itself in
   * `onStopping`). The route sits in the route table beside the generated
   * ones, so it costs other requests nothing; other methods on the path
   * answer 405 with Allow, and a path and method already served is a startup
   * error. For satellites such as realtime's SSE stream.
   *
   * @example
   * app.rawRoute('GET', '/api/realtime/sse', (req, res) => stream(req, res));
   */
  rawRoute(method: string, path: string, handler: RawRouteHandler): this {
    if (this.sealed) throw new RegistrationClosedError(`the route ${method} ${path}`);
    if (typeof method !== 'string' || !RAW_ROUTE_METHODS.includes(method)) throw new ConfigError(`app.rawRoute: the method must be one of ${RAW_ROUTE_METHODS.join(', ')}, not ${JSON.stringify(method)}`);
    if (typeof path !== 'string' || !path.startsWith('/') || path.split('/').some((s) => s.startsWith(':') || s.startsWith('*'))) {
      throw new ConfigError(`app.rawRoute: the path must be an exact path starting with / (no :param or *rest segments), not ${JSON.stringify(path)}`);
    }
    if (typeof handler !== 'function') throw new ConfigError('app.rawRoute: the handler must be a function (req, res) => void');
    if (this.rawRoutes.some((r) => r.method === method && r.path === path)) throw new ConfigError(`app.rawRoute: ${method} ${path} is already registered`);
    this.rawRoutes.push({ method, path, handler });
    return this;
  }

  /**
   * Runs `fn` as soon as stop() begins, before requests are drained: long-lived
   * streams (realtime) say goodbye and end there, instead of being cut when
   * the drain ends.
   */
  onStopping(fn: () => Promise<void> | void): this {
    this.stoppingHooks.push(fn);
    return this;
  }

  /**
   * Runs the app's Auth-step hooks, those of a read on no model, for a
   * request served outside the route table (a realtime stream), and
   * resolves with the identity they set (null: anonymous). Rejects with the
   * ApiError a hook threw (401 for a bad credential). Needs the handler
   * built.
   */
  async authenticate(req: IncomingMessage, res: ServerResponse): Promise<Identity | null> {
    if (!this.built) throw new ConfigError('authenticate() needs the handler built (app.handler() or app.start())');
    const none = Object.fromEntries(STEPS.map((step) => [step, null])) as Record<Step, Hook | null>;
    this.authChain ??= this.pipeline.build(null, 'read', none, undefined, this.log, ['auth']);
    const requestId = (req as { requestId?: string }).requestId ?? requestIdOf(req);
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const ctx = new Context({ model: null, op: 'read', log: this.log }, req, res, {}, requestId, traceIdOf(req, requestId), this.db, query === -1 ? '' : url.slice(query + 1));
    await this.authChain(ctx);
    return ctx.identity;
  }

  /** The store of a model, for hooks and actions that read or write records themselves. */
  store(model: string): ModelStore {
    const store = this.stores.get(model);
    if (!store) throw new ConfigError(`no store for model ${model}: build the handler first, and name a registered model`);
    return store;
  }

  /**
   * Declares a system table a feature needs (an outbox, a job queue): the
   * migration creates it with the models' tables and adds the columns and
   * indexes it gains later. Hooks declare theirs in their `describeHook`
   * metadata. A declaration without columns (`tableIndexes(table, indexes)`)
   * adds indexes to a model's table instead: those the directives cannot
   * declare, such as a partial one.
   *
   * @example
   * app.declareTable({ name: 'mfx_outbox', columns: [{ name: 'id', type: 'string', nullable: false, primaryKey: true }], indexes: [] });
   */
  declareTable(table: TableSpec): this {
    if (this.sealed) throw new RegistrationClosedError(`the system table ${table.name}`);
    this.systemTables.push(table);
    return this;
  }

  /**
   * Runs the migration now (start does it unless disableAutoMigrate is
   * set); `{ dryRun: true }` only plans it, `{ strict: true }` refuses
   * (MigrationRefused, nothing run) on drift that would break requests.
   *
   * @example
   * const plan = await app.migrate({ dryRun: true }); // plan.statements, plan.findings
   */
  async migrate(options: MigrateOptions = {}): Promise<AppMigrationReport> {
    this.checkAdapters();
    const plans = this.databases().map(({ name, adapter }) => {
      // The runtime's own models (the job status model) live on the default database, registered before or after it was set.
      const known = new Set([...adapter.models, ...(adapter === this.adapter ? this.runtimeModels() : [])]);
      // Each database gets the tables of the models it serves; the system tables live on the default one.
      const models = this.registry.all().filter((m) => known.has(m.name) && this.adapterOf(m) === adapter);
      return { name, adapter, models, tables: adapter === this.adapter ? this.declaredTables() : [] };
    });
    // With several databases, a strict migration plans them all first, so a refusal on one runs nothing on any.
    if (options.strict && !options.dryRun && plans.length > 1) {
      for (const plan of plans) await migrate(plan.adapter, plan.models, this.log, plan.tables, { ...options, dryRun: true });
    }
    const adapters: { name: string; report: MigrationReport }[] = [];
    for (const plan of plans) adapters.push({ name: plan.name, report: await migrate(plan.adapter, plan.models, this.log, plan.tables, options) });
    return { ...mergeReports(adapters.map((a) => a.report)), adapters };
  }

  /**
   * Startup checks of per-model adapters: every `adapter:NAME` has its
   * adapter registered, and no relation joins models served by two
   * databases (mfx does not join across databases).
   */
  private checkAdapters(): void {
    if (!this.adapter) throw new ConfigError(NO_DATABASE);
    const missing = new Map<string, string[]>();
    for (const model of this.registry.all()) {
      const name = model.options.adapter;
      if (name && name !== DEFAULT_ADAPTER && !this.namedAdapters.has(name)) missing.set(name, [...(missing.get(name) ?? []), model.name]);
    }
    const known = [...this.namedAdapters.keys()];
    if (missing.size > 0) throw new ConfigError([...missing].map(([name, models]) => missingAdapterMessage(name, models, known)).join('\n'));
    const crossing: string[] = [];
    for (const model of this.registry.all()) {
      for (const relation of model.relations.values()) {
        // A HasMany is the inverse of its child's BelongsTo, which is reported instead.
        if (relation.kind === 'hasMany') continue;
        const others = [relation.target, ...(relation.kind === 'manyToMany' ? [relation.through] : [])];
        for (const other of others) {
          const target = this.registry.get(other);
          if (!target || this.adapterOf(target) === this.adapterOf(model)) continue;
          crossing.push(crossingMessage(model, relation, target));
        }
      }
    }
    if (crossing.length > 0) throw new ConfigError(crossing.join('\n'));
  }

  /** The system tables declared so far: the app's own, then those of registered hooks (pipeline and actions). */
  private declaredTables(): TableSpec[] {
    const hooks = [...this.pipeline.registered().map((e) => e.hook), ...this.actionRegistry.all.flatMap((a) => [...(a.def.auth ?? []), ...(a.def.hooks ?? [])])];
    return [...this.systemTables, ...this.scheduleLockTables(), ...hooks.flatMap((hook) => hookMeta(hook)?.tables ?? [])];
  }

  /**
   * Builds the request handler, sealing routes, specs and the pipeline. Does
   * not migrate: a caller who mounts the handler itself must migrate first.
   */
  handler(): RequestHandler {
    if (this.built) return this.built;
    this.plugins.assertFinished();
    this.checkAdapters();
    const runtimeModels = this.runtimeModels();
    const late = this.registry
      .all()
      .filter((model) => !this.adapterOf(model).models.includes(model.name) && !runtimeModels.includes(model.name))
      .map((model) => model.name);
    if (late.length > 0) {
      throw new ConfigError(
        `model${late.length > 1 ? 's' : ''} ${late.join(', ')} ${late.length > 1 ? 'were' : 'was'} registered after the database adapter was opened and would not reach it; register every model before openSqlite/openPostgres`,
      );
    }
    checkLocaleDefaults(this.registry.all(), this.registry.locales);
    this.registry.seal('handler built');
    for (const name of this.pipeline.scopedModels()) this.registry.require(name, 'a hook scope');
    for (const name of this.observers.scopedModels()) this.registry.require(name, 'a write observer');
    this.pipeline.seal();
    this.openapi.seal();

    // Computed fields and rollups: checked against the models; computed fields installed before the codecs are built.
    this.computedFields.install(this.registry);
    for (const { observer, model } of this.rollupSet.observers(this.registry)) this.observers.add(observer, [model]);
    // Encrypted fields: keys checked and each model's encryption installed before its store and codec are built.
    installEncryption(this.registry.all(), this.syncKeyring(), this.log, this.config.decryptionCache ?? DEFAULT_DECRYPTION_CACHE_BYTES);
    for (const model of this.registry.all()) this.stores.set(model.name, new ModelStore(model, this.adapterOf(model).dialect));
    const entries = this.pipeline.registered();
    const actionGroups = this.actionRegistry.all.map((a): RegisteredHook[] => [
      ...(a.def.auth ?? []).map((h) => actionEntry(h, 'auth')),
      ...(a.def.hooks ?? []).map((h) => actionEntry(h, 'service')),
    ]);
    // History comes first: it is the record of the write, other observers react to it.
    const versioned = this.registry.all().filter((m) => m.options.versioned);
    if (versioned.length > 0) this.observers.add(historyObserver, versioned.map((m) => m.name), { first: true });
    setupHooks(entries, actionGroups, {
      registry: this.registry,
      pathPrefix: this.config.pathPrefix,
      store: (name) => this.store(name),
      adapterOf: (model) => this.adapterOf(model),
      onStop: (fn) => this.closers.push(fn),
      onStart: (start, stop) => this.starters.push({ start, stop }),
      observeWrites: (observer, models) => this.observers.add(observer, models),
    });
    const cleaned = this.files ? FileFields.observedModels(this.registry.all()) : [];
    if (cleaned.length > 0) this.observers.add(this.files!.observer(), cleaned);
    this.observers.seal();
    const deps: DispatchDeps = {
      adapter: (model) => (model ? this.adapterOf(model) : this.db),
      log: this.log,
      panicLog: this.panicLog,
      queryTimeoutMs: this.config.queryTimeoutMs,
      trustProxyHeaders: this.config.trustProxyHeaders ?? false,
      readPrimaryHeader: this.config.readPrimaryHeader ?? true,
      serviceName: this.config.serviceName,
      inflight: this.inflight,
    };
    const probes = createProbes({
      availability: () => this.availability,
      pings: this.databases().map(({ name, adapter }) => ({ name: name === DEFAULT_ADAPTER ? 'db' : `db:${name}`, ping: (signal: AbortSignal) => adapter.ping(signal) })),
      checks: this.config.readinessChecks,
      healthCheckDB: this.config.healthCheckDB ?? false,
      timeoutMs: this.config.healthTimeoutMs,
      publishChecks: this.config.probes.publishReadinessChecks ?? false,
      log: this.log,
      headers: (req) => identityHeaders(req, this.config.serviceName),
    });
    let docsPage = false;
    const router = buildRouter(
      this.config,
      this.registry.all(),
      {
        chain: (model, route) => this.chainFor(model, route),
        handler: (model, op, chain) => routeHandler(deps, model, op, chain),
      },
      probes,
      this.inflight,
      (table) => {
        mountActions(
          table,
          this.config.pathPrefix,
          this.actionRegistry.all.map(({ def, descriptor }) => ({
            descriptor,
            chain: this.pipeline.build(
              null,
              'action',
              actionDefaults(def, descriptor.status, this.config.bodyLimit),
              this.config.trace,
              this.log,
              ACTION_USER_STEPS,
              descriptor.public ? skippedByPublicAction : undefined,
            ),
          })),
          (chain) => routeHandler(deps, null, 'action', chain),
        );
        mountFileRoutes(
          table,
          this.config.pathPrefix,
          fileRouteDefaults(this.files?.storage ?? null, this.config.files?.maxUploadBytes ?? DEFAULT_MULTIPART_LIMIT),
          this.files !== null,
          (defaults) => routeHandler(deps, null, 'file', this.pipeline.build(null, 'file', defaults, this.config.trace, this.log, FILE_USER_STEPS)),
        );
        const searched = searchModels(this.registry.all());
        if (searched.length > 0) {
          const search = routeHandler(
            deps,
            null,
            'list',
            searchChain(searched.map((model) => ({ model, allowance: allowanceChain(this.pipeline, model, this.config.trace, this.log), adapter: this.adapterOf(model) }))),
          );
          table.add('GET', `${this.config.pathPrefix}${SEARCH_PATH}`, search);
          table.add('HEAD', `${this.config.pathPrefix}${SEARCH_PATH}`, search);
        }
        // Raw routes last: one on a path and method already served is refused, naming it.
        for (const { method, path, handler } of this.rawRoutes) {
          if (table.declared(path).includes(method)) throw new ConfigError(`app.rawRoute: ${method} ${path} is already served by a generated route, an action or another feature`);
          table.add(method, path, handler);
        }
        this.generator = new DocumentGenerator({
          registry: this.registry,
          config: this.config,
          hooks: (model, op) => entries.filter((e) => e.matches(model, op)),
          contributions: [
            ...this.openapi.all(),
            docsPageContribution(() => docsPage),
            actionsContribution(() => this.describeSecurity()),
            ...(this.files ? [filesContribution] : []),
            searchContribution(() => searchModels(this.registry.all())),
          ],
          routes: table,
          // A WebSocket path is served by its upgrade handler, outside the table: documented as a GET.
          upgrades: [...this.upgrades.keys()],
          log: this.log,
        });
        mountDocumentRoute(table, this.config, deps, () => this.document());
        mountAsyncApiRoute(table, this.config, deps, entries.map(publishedBy).filter((p) => p !== null));
        docsPage = mountDocsPage(table, this.config, deps, this.log, documentTitle(this.config));
      },
    );
    // Built once at boot so a clash between contributions fails startup, not the first request.
    if (this.config.documentation) this.bootCheckDocument();
    this.built = router.handler;
    return this.built;
  }

  /**
   * The keyring of encrypted fields, loaded once: every key id the models
   * name, the index key, and the ids the provider lists. Null without a key
   * provider. start() awaits it; a handler built without start() needs a
   * provider that answers synchronously.
   *
   * @example
   * const keyring = await app.keyring(); // rotateKeys uses it
   */
  keyring(): Promise<Keyring | null> {
    const provider = this.config.keyProvider;
    this.keys ??= provider ? Keyring.load(provider, fieldKeyIds(this.registry.all())) : null;
    return Promise.resolve(this.keys).then((keys) => (this.keys = keys));
  }

  private syncKeyring(): Keyring | null {
    const provider = this.config.keyProvider;
    this.keys ??= provider ? Keyring.load(provider, fieldKeyIds(this.registry.all())) : null;
    if (this.keys instanceof Promise) throw new ConfigError('the key provider answers asynchronously: await app.start(), or await app.keyring() before app.handler()');
    return this.keys;
  }

  private bootCheckDocument(): void {
    try {
      this.document();
    } catch (error) {
      throw new ConfigError(`the OpenAPI document cannot be built: ${(error as Error).message}`);
    }
  }

  /**
   * The OpenAPI 3.1 document of what this server serves, rebuilt from the
   * registry now. Available once the handler is built (with or without
   * Documentation configured).
   *
   * @example
   * app.handler();
   * const doc = app.document();
   */
  document(): OpenApiDocument {
    if (!this.generator) throw new ConfigError('the OpenAPI document needs the routes: build the handler (app.handler() or app.start()) first');
    return this.generator.build();
  }

  /** The chain of one route of a model, composed once per (model, kind, path): GET and HEAD share it. */
  private chainFor(model: ModelMeta, route: RouteRow): Chain {
    const key = `${model.name}\0${route.kind}\0${route.pattern}`;
    let chain = this.chains.get(key);
    if (!chain) {
      const defaults = modelDefaults(model, route, this.stores.get(model.name)!, {
        bodyLimit: this.config.bodyLimit,
        locales: this.registry.locales,
        cursors: (this.cursors ??= new CursorCodec(this.config.cursorSecret)),
        observers: this.observers,
        multipart: this.multipart,
        files: this.files,
        exports: this.exportSlots,
      });
      chain = this.pipeline.build(model.name, route.op, defaults, this.config.trace, this.log);
      this.chains.set(key, chain);
    }
    return chain;
  }

  /** Migrates (unless disabled), seals and listens. Resolves with the listening URL. */
  async start(): Promise<{ url: string; port: number }> {
    if (this.server) throw new ConfigError('the server is already started');
    await this.ready();
    await this.keyring();
    this.checkAdapters();
    for (const { adapter } of this.databases()) await adapter.init(this.log);
    const strict = { strict: true, strictBy: 'strictMigrations' };
    if (!this.config.disableAutoMigrate) await this.migrate(this.config.strictMigrations ? strict : {});
    // A server that does not migrate checks that the schema serves the models as it is.
    else if (this.config.strictMigrations) await this.migrate({ ...strict, dryRun: true, requireUpToDate: true });
    this.serving = this.handler();
    const server = createNodeServer((req, res) => this.serving!(req, res), { log: this.log, serviceName: this.config.serviceName, connections: this.connections });
    this.server = server;
    if (this.upgrades.size > 0) {
      server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
        const url = req.url ?? '/';
        const query = url.indexOf('?');
        // The app serving now (after a hand-over, the next one) holds the handlers.
        const handler = (this.successor ?? this).upgrades.get(query === -1 ? url : url.slice(0, query));
        if (handler && !this.stopping) handler(req, socket, head);
        else socket.end(`HTTP/1.1 ${this.stopping ? '503 Service Unavailable' : '404 Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      });
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.port, this.config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await this.begin();
    if (this.config.handleSignals) this.installSignalHandlers();
    const { port } = server.address() as AddressInfo;
    const host = this.config.host && this.config.host !== '0.0.0.0' && this.config.host !== '::' ? this.config.host : 'localhost';
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${this.config.pathPrefix}`;
    this.log.info({ url, port }, 'listening');
    return { url, port };
  }

  /**
   * What an app runs once it serves the listener's requests, on start() or
   * when handed over to: the jobs worker and interval scheduler, the hooks'
   * starters (an outbox relay), the scheduled-transition runner. What it
   * started is kept to be stopped when it hands over in turn.
   */
  private async begin(): Promise<void> {
    this.startJobs();
    // A hand-over set it already; a shutdown begun meanwhile keeps it stopping.
    if (this.availability === 'starting') this.availability = 'ready';
    for (const { start, stop } of this.starters.splice(0)) {
      await start();
      if (stop) this.startedStops.push(stop);
    }
    this.startScheduler();
  }

  /** Stops what begin() started (not the hooks' resources, which a module may share between apps: those close at shutdown). */
  private async stopStarted(): Promise<void> {
    for (const stop of this.startedStops.splice(0)) {
      try {
        await stop();
      } catch (error) {
        this.log.error({ err: String((error as Error)?.message ?? error) }, 'stopping what an app handed over from started failed');
      }
    }
  }

  /** The bound port once started. */
  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  /**
   * Serves the requests arriving from now on with `next`: an app never
   * started, on the same database, whose migration the caller has run
   * (`mfx serve --watch` builds one per new manifest). This app keeps the
   * listener, its connections, the signals and the shutdown, which drains
   * the requests of every app that served and then releases their hooks'
   * resources and databases. Requests in flight finish on the app they
   * started on. This app's own registry, stores and document() stay those
   * of its manifest; ask `next` for the new ones. What the app handed over
   * from started (outbox relay, jobs worker, scheduled-transition runner) is
   * stopped, then `next` starts its own as start() would; the promise
   * resolves once it has (a failing start is logged).
   *
   * @example
   * const next = createServer(config);
   * next.register(loadManifest('.mfx'));
   * next.setDB(adapterForNext);
   * next.handler();
   * await next.migrate();
   * await app.handOver(next);
   */
  handOver(next: App): Promise<void> {
    if (!this.server || this.stopping) throw new ConfigError('handOver needs a started app that is not stopping');
    if (next === this || next.server || next.stopping || next.successor || next === this.successor) throw new ConfigError('handOver takes an app that was never started');
    const handler = next.handler();
    const previous = this.successor;
    const replaced = previous ?? this;
    next.availability = 'ready';
    this.successor = next;
    this.serving = handler;
    if (previous) this.retire(previous);
    // The previous app's relay, worker and runner stop before the next one's start: a relay or queue a module
    // shares between both apps is running once, on the next app, afterwards.
    const handing = Promise.resolve(this.handingOver)
      .then(() => replaced.stopStarted())
      .then(() => next.begin())
      .catch((error: unknown) => this.log.error({ err: String((error as Error)?.message ?? error) }, 'starting the app handed over to failed'));
    this.handingOver = handing;
    return handing;
  }

  /** Keeps an app handed over from until its requests have ended; its resources are released at shutdown. */
  private retire(app: App): void {
    this.closers.push(...app.closers.splice(0), () => app.closeDatabases());
    // Its streams (realtime) still open say goodbye when the shutdown begins, with this app's.
    this.stoppingHooks.push(...app.stoppingHooks.splice(0));
    if (app.inflight.count === 0) return;
    this.retiring.add(app);
    app.inflight.drained = () => {
      app.inflight.drained = null;
      this.retiring.delete(app);
    };
  }

  /**
   * Graceful shutdown: readiness turns 503 and the listener closes at once;
   * every answer written from now on says `Connection: close` (requests
   * arriving on connections still open are served so). Once the last
   * request in flight has ended (or shutdownTimeout passed: the rest is
   * cut), the remaining connections close, then the database. Resolves then.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    // The apps this listener's requests may be on: this one, those it handed over to.
    const apps: App[] = [this, ...this.retiring, ...(this.successor ? [this.successor] : [])];
    for (const app of apps) {
      app.availability = 'stopping';
      app.inflight.draining = true;
    }
    this.removeSignalHandlers();
    for (const fn of [...this.stoppingHooks.splice(0), ...(this.successor?.stoppingHooks.splice(0) ?? [])]) {
      try {
        await fn();
      } catch (error) {
        this.log.error({ err: String(error) }, 'a stopping hook failed');
      }
    }
    const server = this.server;
    if (server) {
      const closed = stopListening(server);
      this.connections.closeAfterAnswers();
      const inflight = () => apps.reduce((sum, app) => sum + app.inflight.count, 0);
      this.log.info({ inflight: inflight() }, 'draining: no longer accepting connections');
      if (!(await this.drainedAll(apps))) {
        this.log.warn({ inflight: inflight(), shutdownTimeoutMs: this.config.shutdownTimeoutMs }, 'shutdown timeout: closing remaining connections');
      }
      closeConnections(server);
      await closed;
    }
    // A hand-over still starting the next app finishes first, so the closers below stop what it started.
    await this.handingOver;
    const successor = this.successor;
    for (const close of [...(successor?.closers.splice(0) ?? []), ...(successor ? [() => successor.closeDatabases()] : []), ...this.closers.splice(0)]) {
      try {
        await close();
      } catch (error) {
        this.log.error({ err: String(error) }, 'closing a hook resource failed');
      }
    }
    await this.closeDatabases();
    this.log.info({}, 'stopped');
    await settleLogger(this.config.logger ?? this.log);
  }

  /** True once no app has a request in flight; false when the shutdown budget passed first. */
  private async drainedAll(apps: readonly App[]): Promise<boolean> {
    if (apps.length === 1) return drained(this.inflight, this.config.shutdownTimeoutMs);
    const deadline = Date.now() + this.config.shutdownTimeoutMs;
    for (const app of apps) {
      if (!(await drained(app.inflight, Math.max(0, deadline - Date.now())))) return false;
    }
    return true;
  }

  private installSignalHandlers(): void {
    const onSignal = () => {
      this.log.info({}, 'signal received: shutting down');
      const logger = this.config.logger ?? this.log;
      // The lines logged so far are written now rather than when the drain ends: whatever ends the process meanwhile finds them out.
      void settleLogger(logger);
      const stopping = this.stop();
      // stop() removed the handlers above; a second signal during the drain ends the process by that signal, as it
      // would with none, once the lines logged so far are written (with no handler they were lost): the writes
      // under way are waited for (at most a second: a stalled reader must not keep the process), the rest written now.
      const onSecondSignal = (signal: NodeJS.Signals) => {
        process.off('SIGTERM', onSecondSignal);
        process.off('SIGINT', onSecondSignal);
        this.log.warn({ signal }, 'second signal: exiting without waiting for the requests in flight');
        const end = () => {
          flushLogger(logger);
          process.kill(process.pid, signal);
        };
        void Promise.race([settleLogger(logger), new Promise((resolve) => setTimeout(resolve, SECOND_SIGNAL_LOG_WAIT_MS))]).then(end);
      };
      process.once('SIGTERM', onSecondSignal);
      process.once('SIGINT', onSecondSignal);
      stopping.then(
        () => process.exit(0),
        (error) => {
          this.log.error({ err: String(error) }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    this.signalHandler = onSignal;
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }

  private removeSignalHandlers(): void {
    if (!this.signalHandler) return;
    process.off('SIGTERM', this.signalHandler);
    process.off('SIGINT', this.signalHandler);
    this.signalHandler = null;
  }
}

/** Takes over an HTTP upgrade request's socket (see `App.upgrade`). */
export type UpgradeHandler = (req: IncomingMessage, socket: Socket, head: Buffer) => void;

/** Answers a request of a raw route (see `App.rawRoute`) on its own. */
export type RawRouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

interface RawRoute {
  method: string;
  path: string;
  handler: RawRouteHandler;
}

/** The methods a raw route may serve. */
const RAW_ROUTE_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A hook's start (`onStart` in its setup) and what undoes it when its app hands over to another. */
interface Starter {
  start: () => Promise<void> | void;
  stop?: () => Promise<void> | void;
}

/** The standalone file routes run the Auth-step hooks of the `file` operation, then their own work. */
const FILE_USER_STEPS = ['auth'] as const;

/** How long a second stop signal waits for the log's writes under way before it ends the process. */
const SECOND_SIGNAL_LOG_WAIT_MS = 1000;

/** What App.migrate reports: every database's changes together, and each one's on its own (`default` first). */
export interface AppMigrationReport extends MigrationReport {
  adapters: { name: string; report: MigrationReport }[];
}

/** The reports of several databases as one (a single report as it is). */
function mergeReports(reports: readonly MigrationReport[]): MigrationReport {
  if (reports.length === 1) return reports[0];
  return {
    createdTables: reports.flatMap((r) => r.createdTables),
    addedColumns: reports.flatMap((r) => r.addedColumns),
    renamedColumns: reports.flatMap((r) => r.renamedColumns),
    statements: reports.flatMap((r) => r.statements),
    warnings: reports.flatMap((r) => r.warnings),
    findings: reports.flatMap((r) => r.findings),
    applied: reports.every((r) => r.applied),
  };
}

const NO_DATABASE = 'no database: pass `db` to createServer or call app.setDB(openSqlite(...)) before start';

const adapterLabel = (name: string | null) => (name && name !== DEFAULT_ADAPTER ? `adapter "${name}"` : 'the default adapter');

/** A model routed to an adapter that was never registered: which, and how to register it. */
function missingAdapterMessage(name: string, models: readonly string[], known: readonly string[]): string {
  const which = models.length === 1 ? `model ${models[0]} is` : `models ${models.join(', ')} are`;
  const registered = known.length > 0 ? ` (named adapters registered: ${known.join(', ')})` : ' (no named adapter is registered)';
  return `${which} served by adapter "${name}" (adapter:${name}), which was never registered${registered}: call app.setDB(openPostgres(...) or openSqlite(...), { name: '${name}' }) before start, or remove adapter:${name}`;
}

/** A relation between models on two adapters: both models, both adapters, and the ways out. */
function crossingMessage(model: ModelMeta, relation: RelationManifest, other: ModelMeta): string {
  const junction = relation.kind === 'manyToMany' && other.name === relation.through ? 'its junction ' : '';
  const at = relation.source ? ` (${relation.source.file}:${relation.source.line}:${relation.source.col})` : '';
  return (
    `relation ${model.name}.${relation.key}${at} joins models on two databases: ${model.name} is on ${adapterLabel(model.options.adapter)}, ` +
    `${junction}${other.name} on ${adapterLabel(other.options.adapter)}; mfx does not join or include across databases: ` +
    `give both models the same adapter:NAME, or drop the relation and keep the id as a plain field`
  );
}

/** Creates a server from a configuration (step 1 of the startup order). */
export function createServer(config: ServerConfig = {}): App {
  return new App(config);
}
