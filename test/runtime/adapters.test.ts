// Per-model adapters: one server serving Author and Note from SQLite (the
// default adapter) and Site and PageView (`adapter:analytics`) from
// PostgreSQL at the same time (fixtures/adapters), over HTTP on a loopback
// port. Every table is looked for in both databases directly.
import assert from 'node:assert/strict';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type App, createServer, idempotency, memoryBus, MigrationRefused, openPostgres, openSqlite, outboxBus, publishEvents, SqlIdempotencyStore, transaction } from '@mfx/runtime';
import { freshSchema, sqliteFileBackend } from '../support/backends.js';
import { cliDatabase, cliSuite, runMfx, servingUrl } from '../support/cli.js';
import { fixtureManifestDir, loadFixture } from '../support/fixtures.js';
import { memoryLogger, request, startServer, type TestServer } from '../support/server.js';
import { postgres, sqlite } from '../support/suite.js';
import { Recorder } from '../support/wait.js';

/** The tables of the default SQLite database. */
async function sqliteTables(app: App): Promise<string[]> {
  const rows = await app.db.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  return rows.map((r) => String(r.name));
}

/** The tables of a PostgreSQL schema, asked on a connection of the test's own. */
async function postgresTables(schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [schema]);
    return rows.map((r) => String(r.table_name));
  } finally {
    await client.end();
  }
}

describe('per-model adapters: SQLite and PostgreSQL in one server', { skip: postgres.skip }, () => {
  let server: TestServer;
  let analytics: Awaited<ReturnType<typeof freshSchema>>;
  /** The dialect each transaction of a write ran on, by model. */
  const transactions = new Recorder<{ model: string; dialect: string }>();

  before(async () => {
    analytics = await freshSchema();
    server = await startServer(sqlite, {
      fixture: 'adapters',
      config: { probes: { publishReadinessChecks: true } },
      setup(app) {
        app.setDB(openPostgres({ writeUrl: analytics.url }, app.registry), { name: 'analytics' });
        app.use('service', transaction(), { ops: ['create', 'update', 'delete'] });
        // A create whose title or path is "rollback" is answered 409 after its write: the transaction rolls it back.
        app.use('response', async (ctx, next) => {
          transactions.push({ model: ctx.model!.name, dialect: ctx.tx?.dialect.name ?? 'none' });
          const body = ctx.body ?? {};
          if (body.title === 'rollback' || body.path === '/rollback') return ctx.respond(409, { error: { code: 'CONFLICT', message: 'held back by the test' } });
          await next();
        }, { ops: ['create'] });
        const store = new SqlIdempotencyStore(() => app.db);
        app.use('deserialize', idempotency({ store }), { position: 'after', ops: ['create'], models: ['PageView'] });
      },
    });
  });
  after(async () => {
    await server?.close();
    await analytics?.drop();
  });

  const author = async (name: string) => (await server.request('POST', '/authors', { body: { name } })).body.data;
  const site = async (host: string) => (await server.request('POST', '/sites', { body: { host } })).body.data;

  it('migration created each model table (and its history table) only on its own database; system tables on the default one', async () => {
    assert.deepEqual(await sqliteTables(server.app), ['author_history', 'authors', 'mfx_idempotency', 'notes']);
    assert.deepEqual(await postgresTables(analytics.schema), ['page_view_history', 'page_views', 'sites']);
  });

  it('serves CRUD on both databases at once, with includes within each', async () => {
    const ada = await author('Ada');
    const note = await server.request('POST', '/notes', { body: { title: 'on engines', authorId: ada.id } });
    assert.equal(note.status, 201);
    const example = await site('crud.example');
    const view = await server.request('POST', '/page_views', { body: { path: '/home', siteId: example.id } });
    assert.equal(view.status, 201);

    const noteRead = await server.request('GET', `/notes/${note.body.data.id}?include=author`);
    assert.equal(noteRead.status, 200);
    assert.equal(noteRead.body.data.author.name, 'Ada');
    const siteRead = await server.request('GET', `/sites/${example.id}?include=views`);
    assert.deepEqual(siteRead.body.data.views.map((v: { path: string }) => v.path), ['/home']);

    const patched = await server.request('PATCH', `/page_views/${view.body.data.id}`, { body: { hits: 3 } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.hits, 3);
    const listed = await server.request('GET', `/page_views?filter=siteId:eq:${example.id}`);
    assert.deepEqual(listed.body.data.map((v: { hits: number }) => v.hits), [3]);
    assert.equal((await server.request('DELETE', `/notes/${note.body.data.id}`)).status, 204);
    assert.equal((await server.request('DELETE', `/page_views/${view.body.data.id}`)).status, 204);
    assert.equal((await server.request('GET', `/page_views/${view.body.data.id}`)).status, 404);

    // The rows are where their model's adapter is, and only there.
    const onPostgres = await postgresRows(analytics.url, 'SELECT host FROM sites WHERE id = $1', [example.id]);
    assert.deepEqual(onPostgres, [{ host: 'crud.example' }]);
    assert.deepEqual(await server.app.db.all('SELECT name FROM authors WHERE id = ?', [ada.id]), [{ name: 'Ada' }]);
  });

  it('runs each transaction on its model\'s adapter: a rolled-back create leaves nothing on either database', async () => {
    const ada = await author('Grace');
    const example = await site('tx.example');
    transactions.seen.length = 0;
    const note = await server.request('POST', '/notes', { body: { title: 'rollback', authorId: ada.id } });
    assert.equal(note.status, 409);
    assert.deepEqual(note.body, { error: { code: 'CONFLICT', message: 'held back by the test' } });
    const view = await server.request('POST', '/page_views', { body: { path: '/rollback', siteId: example.id } });
    assert.equal(view.status, 409);
    assert.deepEqual(transactions.seen, [
      { model: 'Note', dialect: 'sqlite' },
      { model: 'PageView', dialect: 'postgres' },
    ]);
    assert.deepEqual(await server.app.db.all("SELECT id FROM notes WHERE title = 'rollback'"), []);
    assert.deepEqual(await postgresRows(analytics.url, "SELECT id FROM page_views WHERE path = '/rollback'"), []);
    assert.deepEqual(await server.app.adapterOf('PageView').all("SELECT id FROM page_views WHERE path = '/rollback'"), []);
  });

  it('records history on the model\'s own database', async () => {
    const example = await site('history.example');
    const view = (await server.request('POST', '/page_views', { body: { path: '/about', siteId: example.id } })).body.data;
    await server.request('PATCH', `/page_views/${view.id}`, { body: { hits: 7 } });
    const history = await server.request('GET', `/page_views/${view.id}/history`);
    assert.equal(history.status, 200);
    assert.deepEqual(history.body.data.map((h: { operation: string }) => h.operation), ['update', 'create']);
    const stored = await postgresRows(analytics.url, 'SELECT operation FROM page_view_history WHERE record_id = $1 ORDER BY version', [view.id]);
    assert.deepEqual(stored, [{ operation: 'create' }, { operation: 'update' }]);

    const ada = await author('Hedy');
    await server.request('PATCH', `/authors/${ada.id}`, { body: { name: 'Hedy L.' } });
    assert.deepEqual((await server.request('GET', `/authors/${ada.id}/history`)).body.data.map((h: { operation: string }) => h.operation), ['update', 'create']);
  });

  it('sweeps scheduled transitions of a PostgreSQL model on its own database', async () => {
    const example = await site('sweep.example');
    const past = new Date(Date.now() - 60_000).toISOString();
    const due = (await server.request('POST', '/page_views', { body: { path: '/expired', siteId: example.id, purgeAt: past } })).body.data;
    const kept = (await server.request('POST', '/page_views', { body: { path: '/kept', siteId: example.id } })).body.data;
    const report = await server.app.sweepScheduled();
    assert.equal(report.hardDeleted, 1);
    assert.equal(report.failed, 0);
    assert.deepEqual(await postgresRows(analytics.url, 'SELECT id FROM page_views WHERE id = ANY($1) ORDER BY path', [[due.id, kept.id]]), [{ id: kept.id }]);
    assert.equal((await server.request('GET', `/page_views/${due.id}`)).status, 404);
  });

  it('aggregates and exports a PostgreSQL model on its own database, and app.aggregate() does too', async () => {
    const example = await site('stats.example');
    for (const [path, hits] of [['/a', 2], ['/b', 5]] as const) {
      assert.equal((await server.request('POST', '/page_views', { body: { path, hits, siteId: example.id } })).status, 201);
    }
    const spec = JSON.stringify({ select: [{ op: 'sum', field: 'hits', as: 'hits' }, { op: 'count', as: 'n' }], where: [{ field: 'siteId', operator: 'eq', value: example.id }] });
    const aggregated = await server.request('GET', `/page_views/aggregate?aggregate=${encodeURIComponent(spec)}`);
    assert.equal(aggregated.status, 200, aggregated.text);
    assert.deepEqual(aggregated.body.data, [{ hits: 7, n: 2 }]);
    assert.deepEqual(await server.app.aggregate('PageView', spec), [{ hits: 7, n: 2 }]);
    const exported = await server.request('GET', `/page_views/export?filter=siteId:eq:${example.id}&sort=hits:asc`);
    assert.equal(exported.status, 200);
    const lines = exported.text.trim().split(/\r?\n/);
    assert.equal(lines.length, 3, exported.text);
    assert.match(lines[1], /,\/a,2,/);
    assert.match(lines[2], /,\/b,5,/);
  });

  it('replays an idempotent create of a PostgreSQL model from the keys kept on the default database', async () => {
    const example = await site('idem.example');
    const first = await server.request('POST', '/page_views', { body: { path: '/once', siteId: example.id }, headers: { 'idempotency-key': 'pv-once' } });
    assert.equal(first.status, 201);
    const again = await server.request('POST', '/page_views', { body: { path: '/once', siteId: example.id }, headers: { 'idempotency-key': 'pv-once' } });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.deepEqual(await postgresRows(analytics.url, "SELECT count(*)::int AS n FROM page_views WHERE path = '/once'"), [{ n: 1 }]);
  });

  it('/ready pings every adapter and names the one that fails', async () => {
    const ready = await server.request('GET', '/ready');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ok', checks: { db: 'ok', 'db:analytics': 'ok' } });
    const adapter = server.app.adapterOf('Site');
    const ping = adapter.ping.bind(adapter);
    (adapter as { ping: typeof adapter.ping }).ping = async () => {
      throw new Error('analytics database unreachable');
    };
    try {
      const failing = await server.request('GET', '/ready');
      assert.equal(failing.status, 503);
      assert.deepEqual(failing.body, { status: 'not_ready', checks: { db: 'ok', 'db:analytics': 'error' } });
      const line = await server.logLine((l) => l.message === 'readiness check failed' && l.fields.check === 'db:analytics');
      assert.equal(line.fields.err, 'analytics database unreachable');
    } finally {
      (adapter as { ping: typeof adapter.ping }).ping = ping;
    }
  });
});

/** Rows of a statement on a PostgreSQL database, on a connection of the test's own. */
async function postgresRows(url: string, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe('per-model adapters: startup errors', { skip: postgres.skip }, () => {
  let fixtureLoaded: Awaited<ReturnType<typeof loadFixture>> | undefined;
  before(async () => {
    fixtureLoaded = await loadFixture('adapters');
  });

  /** An app on the adapters fixture with a SQLite default database, not started. */
  async function appWith(overrides: Parameters<App['register']>[1] = {}): Promise<App> {
    const app = createServer({ port: 0, host: '127.0.0.1', handleSignals: false, logger: memoryLogger() });
    app.register(await loadFixture('adapters'), overrides);
    app.setDB(openSqlite(':memory:', app.registry));
    return app;
  }

  it('a model whose adapter was never registered stops the start, naming the models and the adapter; nothing is migrated', async () => {
    const app = await appWith();
    await assert.rejects(app.start(), {
      name: 'ConfigError',
      message:
        "mfx: models PageView, Site are served by adapter \"analytics\" (adapter:analytics), which was never registered (no named adapter is registered): call app.setDB(openPostgres(...) or openSqlite(...), { name: 'analytics' }) before start, or remove adapter:analytics",
    });
    assert.deepEqual(await sqliteTables(app), []);
    await app.closeDatabases();
  });

  it('an outbox publishes only for models on its own database: one on another database stops the start, and a scoped one starts', async () => {
    const analytics = await freshSchema();
    const app = await appWith();
    app.setDB(openPostgres({ writeUrl: analytics.url }, app.registry), { name: 'analytics' });
    app.use('db', publishEvents(outboxBus(() => app.db, { relayTo: memoryBus() })), { position: 'after' });
    try {
      await assert.rejects(app.start(), {
        name: 'ConfigError',
        message:
          "mfx: publishEvents(outbox) writes each event in its write's transaction, but PageView (adapter:analytics), Site (adapter:analytics) are served from another database than the outbox's: scope this publishEvents to the outbox's models ({ models: [...] }) and publish the others' events through a broker bus or memoryBus() (sent after their commit)",
      });
    } finally {
      await app.closeDatabases();
    }
    const scoped = await appWith();
    scoped.setDB(openPostgres({ writeUrl: analytics.url }, scoped.registry), { name: 'analytics' });
    scoped.use('db', publishEvents(outboxBus(() => scoped.db, { relayTo: memoryBus() })), { position: 'after', models: ['Author', 'Note'] });
    scoped.use('db', publishEvents(memoryBus()), { position: 'after', models: ['Site', 'PageView'] });
    try {
      await scoped.start();
    } finally {
      await scoped.stop();
      await analytics.drop();
    }
  });

  it('the same in code: an adapter override names an adapter that is not registered', async () => {
    const analytics = await freshSchema();
    const app = await appWith({ Note: { adapter: 'reports' } });
    app.setDB(openPostgres({ writeUrl: analytics.url }, app.registry), { name: 'analytics' });
    try {
      await assert.rejects(app.start(), {
        message:
          "mfx: model Note is served by adapter \"reports\" (adapter:reports), which was never registered (named adapters registered: analytics): call app.setDB(openPostgres(...) or openSqlite(...), { name: 'reports' }) before start, or remove adapter:reports",
      });
    } finally {
      await app.closeDatabases();
      await analytics.drop();
    }
  });

  it('a relation between models on two adapters stops the start, naming both models and how to fix it; nothing is migrated on either', async () => {
    const analytics = await freshSchema();
    const app = await appWith({ Site: { adapter: null } });
    // The relation's place in the source, as the manifest records it (relative to the manifest's directory).
    const modelsFile = relative(await fixtureManifestDir('adapters'), fileURLToPath(new URL('../../fixtures/adapters/models.ts', import.meta.url))).split(sep).join('/');
    app.setDB(openPostgres({ writeUrl: analytics.url }, app.registry), { name: 'analytics' });
    try {
      await assert.rejects(app.start(), {
        name: 'ConfigError',
        message:
          `mfx: relation PageView.site (${modelsFile}:36:3) joins models on two databases: PageView is on adapter "analytics", Site on the default adapter; mfx does not join or include across databases: give both models the same adapter:NAME, or drop the relation and keep the id as a plain field`,
      });
      assert.throws(() => app.handler(), /relation PageView\.site \(.*models\.ts:36:3\) joins models on two databases/);
      assert.deepEqual(await sqliteTables(app), []);
      assert.deepEqual(await postgresTables(analytics.schema), []);
    } finally {
      await app.closeDatabases();
      await analytics.drop();
    }
  });

  it('a ManyToMany across databases names its junction; every crossing relation is listed in one error', async () => {
    const app = createServer({ logger: memoryLogger(), handleSignals: false });
    app.register(await loadFixture('blog'), { Tag: { adapter: 'tags' } });
    app.setDB(openSqlite(':memory:', app.registry));
    app.setDB(openSqlite(':memory:', app.registry), { name: 'tags' });
    try {
      let message = '';
      assert.throws(() => app.handler(), (error: Error) => ((message = error.message), error.name === 'ConfigError'));
      const lines = message.replace(/^mfx: /, '').split('\n').map((line) => line.replace(/ \(\S+:\d+:\d+\) /, ' '));
      assert.deepEqual(lines, [
        'relation Post.tags joins models on two databases: Post is on the default adapter, Tag on adapter "tags"; mfx does not join or include across databases: give both models the same adapter:NAME, or drop the relation and keep the id as a plain field',
        'relation PostTag.tag joins models on two databases: PostTag is on the default adapter, Tag on adapter "tags"; mfx does not join or include across databases: give both models the same adapter:NAME, or drop the relation and keep the id as a plain field',
        'relation Tag.posts joins models on two databases: Tag is on adapter "tags", Post on the default adapter; mfx does not join or include across databases: give both models the same adapter:NAME, or drop the relation and keep the id as a plain field',
        'relation Tag.posts joins models on two databases: Tag is on adapter "tags", its junction PostTag on the default adapter; mfx does not join or include across databases: give both models the same adapter:NAME, or drop the relation and keep the id as a plain field',
      ]);
    } finally {
      await app.closeDatabases();
    }
  });

  it('a strict migration plans every database first: drift on one refuses, and nothing is created on the other', async () => {
    const analytics = await freshSchema();
    await postgresRows(analytics.url, 'CREATE TABLE page_views (id text PRIMARY KEY, path text NOT NULL, hits text NOT NULL, "siteId" text NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)');
    const app = await appWith();
    app.setDB(openPostgres({ writeUrl: analytics.url }, app.registry), { name: 'analytics' });
    try {
      for (const { adapter } of app.databases()) await adapter.init(memoryLogger());
      await assert.rejects(app.migrate({ strict: true, strictBy: 'the test' }), (error: Error) => {
        assert.ok(error instanceof MigrationRefused, String(error));
        assert.deepEqual(error.findings.map((f) => [f.table, f.column, f.breaking]), [['page_views', 'hits', true]]);
        return true;
      });
      assert.deepEqual(await sqliteTables(app), [], 'the default database, planned clean, was left alone');
      assert.deepEqual(await postgresTables(analytics.schema), ['page_views']);
    } finally {
      await app.closeDatabases();
      await analytics.drop();
    }
  });

  it('setDB refuses a name no model could use, and anything that is not an adapter', async () => {
    const app = await appWith();
    const other = openSqlite(':memory:', app.registry);
    assert.throws(() => app.setDB(other, { name: 'my db' }), {
      name: 'ConfigError',
      message: 'mfx: app.setDB: "my db" cannot name an adapter: an adapter name starts with a letter, then letters, digits, _ or -, at most 63 characters (such as analytics or reports_pg)',
    });
    assert.throws(() => app.setDB(null as never, { name: 'analytics' }), {
      message: 'mfx: app.setDB (analytics) needs a database adapter, such as openSqlite(path, app.registry) or openPostgres(options, app.registry)',
    });
    await other.close();
    await app.closeDatabases();
  });

  it('an adapter override must be a name or null', async () => {
    const app = createServer({ logger: memoryLogger() });
    assert.throws(() => app.register(fixtureLoaded!, { Site: { adapter: 'two words' } }), {
      name: 'ConfigError',
      message:
        'mfx: overrides for model Site set adapter to "two words": an adapter name starts with a letter, then letters, digits, _ or -, at most 63 characters (such as analytics or reports_pg); null serves the model from the default adapter',
    });
    assert.deepEqual(app.registry.modelNames(), [], 'nothing was registered');
  });

  it('a readiness check may not take the name of a database check', () => {
    assert.throws(() => createServer({ readinessChecks: [{ name: 'db:analytics', check: async () => {} }] }), {
      message: 'mfx: readiness check name "db:analytics" is reserved for the built-in database checks (db, and db:NAME for each named adapter); rename it',
    });
  });
});

describe('per-model adapters: mfx migrate and mfx serve with an --app module that registers the second database', { skip: postgres.skip }, () => {
  const cli = cliSuite(sqliteFileBackend);
  const APP = 'fixtures/adapters/app.ts';

  it('mfx migrate --plan plans each database, mfx migrate creates each table on its own database only, then finds nothing to do', async () => {
    const manifest = await fixtureManifestDir('adapters');
    const main = await cli.database();
    const analytics = await cliDatabase(postgres);
    try {
      const env = { ANALYTICS_URL: analytics.url };
      const plan = await runMfx(['migrate', '--plan', '--manifest', manifest, '--db', main.url, '--app', APP], { env });
      assert.equal(plan.code, 0, plan.stderr);
      assert.match(plan.stdout, /^-- sqlite:\S+ does not exist yet: the plan is for an empty database\n-- adapter default:\n-- the migration would run 5 statements in one transaction \(nothing was run\):\nCREATE TABLE IF NOT EXISTS "authors"/);
      assert.match(plan.stdout, /\n-- adapter analytics:\n-- the migration would run 8 statements in one transaction \(nothing was run\):\nCREATE TABLE IF NOT EXISTS "page_views"/);
      assert.deepEqual(await main.tables(), []);
      assert.deepEqual(await analytics.tables(), []);

      const run = await runMfx(['migrate', '--manifest', manifest, '--db', main.url, '--app', APP], { env });
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.trim().split('\n');
      assert.deepEqual(lines.slice(0, -1), [
        'created table authors (adapter default)',
        'created table author_history (adapter default)',
        'created table notes (adapter default)',
        'created table page_views (adapter analytics)',
        'created table page_view_history (adapter analytics)',
        'created table sites (adapter analytics)',
      ]);
      assert.match(lines.at(-1)!, /^ran \d+ statements on 2 databases$/);
      assert.deepEqual(await main.tables(), ['author_history', 'authors', 'notes']);
      assert.deepEqual(await analytics.tables(), ['page_view_history', 'page_views', 'sites']);

      const again = await runMfx(['migrate', '--manifest', manifest, '--db', main.url, '--app', APP], { env });
      assert.deepEqual([again.code, again.stdout], [0, 'schema is up to date\n']);
    } finally {
      await analytics.drop();
    }
  });

  it('mfx openapi documents models of every adapter without opening a database', async () => {
    const run = await runMfx(['openapi', '--manifest', await fixtureManifestDir('adapters')]);
    assert.equal(run.code, 0, run.stderr);
    const paths = Object.keys(JSON.parse(run.stdout).paths);
    for (const path of ['/authors', '/notes', '/sites', '/page_views/{id}/history']) assert.ok(paths.includes(path), path);
  });

  it('mfx serve serves both databases and /ready reports each', async () => {
    const manifest = await fixtureManifestDir('adapters');
    const main = await cli.database();
    const analytics = await cliDatabase(postgres);
    try {
      const serve = cli.start(['serve', '--manifest', manifest, '--db', main.url, '--app', APP, '--port', '0'], { env: { ANALYTICS_URL: analytics.url } });
      const url = await servingUrl(serve);
      const created = await request(`${url}/sites`, 'POST', { body: { host: 'cli.example' } });
      assert.equal(created.status, 201);
      assert.deepEqual(await analytics.query('SELECT host FROM sites'), [{ host: 'cli.example' }]);
      assert.equal((await request(`${url}/ready`, 'GET')).status, 200);
      await serve.stop();
    } finally {
      await analytics.drop();
    }
  });
});
