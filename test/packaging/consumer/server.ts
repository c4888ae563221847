// A consumer's server on the public API of @mfx/runtime, compiled with
// tsc --strict --noUncheckedIndexedAccess --exactOptionalPropertyTypes and
// run with plain node (test/packaging/consumer.test.ts). DB_URL picks the
// database (sqlite:PATH or postgres://...). Prints the URL it serves, then
// serves until SIGTERM.
import {
  type Adapter,
  type App,
  ApiError,
  type Context,
  type Hook,
  type JobContext,
  type JobHandler,
  type QueuedJob,
  type Logger,
  type RateLimitStore,
  type SchedulerOptions,
  type ServerConfig,
  type SweepReport,
  allowAnonymous,
  bearer,
  createServer,
  loadManifest,
  memoryQueue,
  memoryStore,
  openPostgres,
  openSqlite,
  rateLimit,
  requireRole,
  silentLogger,
  tenancy,
  transaction,
} from '@mfx/runtime';
import type { Command } from '@mfx/runtime/cli';
import type { ModelManifest } from '@mfx/runtime/manifest';
import type { SqlDialect } from '@mfx/runtime/sql';
import type { Member } from './models.js';

const config: Partial<ServerConfig> = { port: 0, host: '127.0.0.1', logger: silentLogger };
const app: App = createServer(config);
const loaded = loadManifest(new URL('./.mfx', import.meta.url).pathname);
const modelNames = (models: readonly ModelManifest[]): string[] => models.map((model) => model.name);
app.register(loaded);

const store: RateLimitStore = memoryStore();
app.use('auth', allowAnonymous(), { ops: ['list', 'read'] });
app.use('auth', bearer({ secret: 'consumer-secret-0123456789abcdef0123456789', issuer: 'consumer' }), { ops: ['create', 'update', 'delete'] });
app.use('auth', requireRole('admin'), { models: ['Team'], ops: ['delete'] });
app.use('db', tenancy({ column: 'tenantId' }), { models: ['Member'] });
app.use('db', rateLimit({ requestsPerMinute: 600, store }), { ops: ['create'] });
app.use('service', transaction(), { ops: ['create', 'update', 'delete'] });

const stamp: Hook = async (ctx: Context, next) => {
  await next();
};
app.use('db', stamp, { models: ['Team'] });

app.action({
  name: 'teamCount',
  method: 'GET',
  path: '/teams/count',
  public: true,
  summary: 'How many teams there are',
  response: { schema: { type: 'object', properties: { count: { type: 'integer' } } } },
  async handler(ctx) {
    const rows = await ctx.db.all('SELECT COUNT(*) AS n FROM teams');
    const first = rows[0];
    if (!first) throw new ApiError('INTERNAL', 'COUNT(*) returned no row');
    return { count: Number(first.n) };
  },
});

// Background jobs on the in-process queue, without the status model (the routes stay those above).
const report: JobHandler = async (job: QueuedJob, ctx: JobContext) => ({ url: `https://files.example.com/${job.id}?trace=${ctx.traceId}` });
app.jobs({ queue: memoryQueue(), handlers: { 'team.report': report }, concurrency: 1, statusRoutes: false });
app.every('1h', { type: 'team.report' });

const members: Member[] = [];
const logger: Logger = silentLogger;
const url = process.env.DB_URL ?? 'sqlite::memory:';
const db: Adapter = url.startsWith('sqlite:') ? openSqlite(url.slice('sqlite:'.length), app.registry) : openPostgres({ writeUrl: url }, app.registry);
app.setDB(db, { name: 'default' }); // the same as app.setDB(db); a model declared adapter:NAME needs app.setDB(other, { name: 'NAME' })
const scheduling: SchedulerOptions = { interval: '1m', batchSize: 100, onSetField: (model, id, field, value) => logger.info({ model, id, field, value }, 'scheduled field set') };
app.scheduler(scheduling);
const dialect: SqlDialect = app.adapterOf('Team').dialect;
const databases: { name: string; adapter: Adapter }[] = app.databases();
const command: Command = 'serve';
const { url: listening } = await app.start();
const swept: SweepReport = await app.sweepScheduled();
logger.info({ members: members.length, models: modelNames(loaded.manifest.models), dialect: dialect.name, databases: databases.map((d) => d.name), command, swept }, 'consumer started');
process.stdout.write(`consumer serving ${listening}\n`);
