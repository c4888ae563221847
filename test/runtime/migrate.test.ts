// Migration: columns added to existing tables exactly as declared, system tables, concurrent migrations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Adapter,
  type App,
  createServer,
  historyTableName,
  idempotency,
  type MigrationReport,
  migrate,
  openPostgres,
  openSqlite,
  silentLogger,
  SqlIdempotencyStore,
  type TableSpec,
  tableIndexes,
} from '@mfx/runtime';
import pg from 'pg';
import { freshSchema, PG_URL } from '../support/backends.js';
import { loadFixture } from '../support/fixtures.js';
import { indexDefinition } from '../support/query-plan.js';
import { memoryLogger, startServer } from '../support/server.js';
import { eachBackend, postgres, useServer } from '../support/suite.js';
import { until } from '../support/wait.js';

const OLD = '00000000-0000-4000-8000-000000000001';

eachBackend('columns added to an existing table', (backend) => {
  const timestamp = backend.name === 'postgres' ? 'timestamptz' : 'TEXT';
  const server = useServer(backend, {
    fixture: 'migration',
    // The table as an older version of the model created it: `name` only, with one row.
    prepare: async (adapter) => {
      await adapter.exec(`CREATE TABLE labels (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', created_at ${timestamp} NOT NULL, updated_at ${timestamp} NOT NULL)`);
      await adapter.exec(`INSERT INTO labels (id, name, created_at, updated_at) VALUES ('${OLD}', 'legacy', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z')`);
    },
  });

  it('keeps a default whose text looks like DDL, word for word, on old rows and new ones', async () => {
    const old = await server.request('GET', `/labels/${OLD}`);
    assert.equal(old.status, 200, old.text);
    assert.equal(old.body.data.note, 'keep a UNIQUE name');
    const created = await server.request('POST', '/labels', { body: { name: 'first' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.note, 'keep a UNIQUE name');
  });

  it('adds no unique constraint the model does not declare', async () => {
    const sharing = async () => (await server.request('GET', `/labels?filter=${encodeURIComponent('note:eq:keep a UNIQUE name')}`)).body.meta.total as number;
    const before = await sharing();
    assert.ok(before >= 1, 'the old row has the default');
    for (const name of ['second', 'third']) {
      const created = await server.request('POST', '/labels', { body: { name } });
      assert.equal(created.status, 201, created.text);
    }
    assert.equal(await sharing(), before + 2, 'the old row and both new ones share the default');
  });

  it('enforces the unique column it added', async () => {
    const first = await server.request('POST', '/labels', { body: { name: 'coded', code: 'c-1' } });
    assert.equal(first.status, 201, first.text);
    const again = await server.request('POST', '/labels', { body: { name: 'coded again', code: 'c-1' } });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.error.code, 'CONFLICT');
    assert.equal(again.body.error.message, 'a record with this code already exists');
    const coded = await server.request('GET', '/labels?filter=code:eq:c-1');
    assert.equal(coded.body.meta.total, 1, 'nothing was written');
  });

  it('enforces the foreign key of the column it added', async () => {
    const res = await server.request('POST', '/labels', { body: { name: 'orphan', shelfId: 'no-such-shelf' } });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'FOREIGN_KEY_VIOLATION');
    assert.equal(res.body.error.message, 'a foreign key names a record that does not exist');
    const orphans = await server.request('GET', '/labels?filter=name:eq:orphan');
    assert.equal(orphans.body.meta.total, 0, 'nothing was written');
  });
});

eachBackend('system tables', (backend) => {
  it('creates the tables hooks declare during migration, before any request', async () => {
    let app: App;
    const server = await startServer(backend, {
      setup(a) {
        app = a;
        a.use('deserialize', idempotency({ store: new SqlIdempotencyStore(() => app.db) }), { position: 'after', ops: ['create'] });
      },
    });
    try {
      const tables = await server.app.db.introspect();
      assert.deepEqual(
        tables.get('mfx_idempotency')?.map((c) => c.name),
        ['key', 'fingerprint', 'expires_at', 'response'],
      );
    } finally {
      await server.close();
    }
  });

  it('creates the tables the app declares, and adds the columns they gain', async () => {
    const outbox: TableSpec = {
      name: 'test_outbox',
      columns: [
        { name: 'id', type: 'string', nullable: false, primaryKey: true },
        { name: 'postId', type: 'string', nullable: true, references: { name: 'fk_test_outbox_postId', table: 'posts', column: 'id' } },
        { name: 'payload', type: 'json_object', nullable: false, default: {} },
      ],
      indexes: [{ name: 'idx_test_outbox_postId', columns: ['postId'], unique: false }],
    };
    const server = await startServer(backend, {
      setup: (app) => void app.declareTable(outbox),
      // An older version of the table, without `payload`.
      prepare: (adapter) => adapter.exec('CREATE TABLE test_outbox (id TEXT PRIMARY KEY)'),
    });
    try {
      const columns = (await server.app.db.introspect()).get('test_outbox');
      assert.deepEqual(columns?.map((c) => c.name), ['id', 'postId', 'payload']);
      await server.app.db.raw(`INSERT INTO test_outbox (id) VALUES ('e1')`);
      const [row] = await server.app.db.raw(`SELECT payload FROM test_outbox WHERE id = 'e1'`);
      assert.deepEqual(typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload, {}, 'the added column has its default');
      await assert.rejects(server.app.db.raw(`INSERT INTO test_outbox (id, "postId") VALUES ('e2', 'no-such-post')`), 'its foreign key holds');
      const again = await server.app.migrate();
      assert.deepEqual([again.createdTables, again.addedColumns], [[], []]);
    } finally {
      await server.close();
    }
  });

  it("adds the indexes a feature declares without columns to a model's table (tableIndexes), on a table made before them too", async () => {
    const partial = { name: 'ix_posts_rated', columns: ['rating'], unique: false, whereNotNull: 'rating' };
    const server = await startServer(backend, { setup: (app) => void app.declareTable(tableIndexes('posts', [partial])) });
    try {
      const db = server.app.db;
      assert.match((await indexDefinition(db, 'ix_posts_rated')) ?? '', /WHERE\s+\(?"?rating"?\s+IS NOT NULL/i);
      await db.exec('DROP INDEX "ix_posts_rated"');
      const again = await server.app.migrate();
      assert.deepEqual(again.statements, [db.dialect.createIndex('posts', partial)]);
      assert.deepEqual([again.createdTables, again.addedColumns], [[], []]);
      assert.ok(await indexDefinition(db, 'ix_posts_rated'));
    } finally {
      await server.close();
    }
  });

  it('refuses indexes declared without columns on a table no model has, or named like a model index of another shape', async () => {
    for (const [declared, message] of [
      [
        tableIndexes('no_such_table', [{ name: 'ix_nothing', columns: ['a'], unique: false }]),
        'mfx: indexes are declared on the table no_such_table, which no model of this database has; a system table needs its columns',
      ],
      [
        tableIndexes('posts', [{ name: 'idx_posts_userId', columns: ['title'], unique: false }]),
        "mfx: the index idx_posts_userId declared on posts has the name of one of its model's indexes; give it another name",
      ],
    ] as const) {
      const app = createServer({ handleSignals: false, logger: memoryLogger() });
      app.register(await loadFixture('blog'));
      app.declareTable(declared);
      const { adapter, drop } = await backend.open(app.registry);
      app.setDB(adapter);
      try {
        await assert.rejects(app.migrate(), { name: 'ConfigError', message });
        assert.equal((await adapter.introspect()).has('posts'), false, 'nothing was migrated');
      } finally {
        await adapter.close();
        await drop();
      }
    }
  });

  it('refuses a system table named like a model table, naming it', async () => {
    const app = createServer({ handleSignals: false, logger: memoryLogger() });
    app.register(await loadFixture('blog'));
    app.declareTable({ name: 'posts', columns: [{ name: 'id', type: 'string', nullable: false, primaryKey: true }], indexes: [] });
    const { adapter, drop } = await backend.open(app.registry);
    app.setDB(adapter);
    try {
      await assert.rejects(app.migrate(), {
        name: 'ConfigError',
        message: "mfx: the system table posts has the name of a model's table; give the feature that declares it another table name",
      });
      assert.equal((await adapter.introspect()).has('users'), false, 'nothing was migrated');
    } finally {
      await adapter.close();
      await drop();
    }
  });
});

/** The report of a migration that found nothing to do. */
const upToDate: MigrationReport = { createdTables: [], addedColumns: [], renamedColumns: [], statements: [], warnings: [], findings: [], applied: true };

/** Every table the blog's migration creates: the models' and the versioned models' history tables. */
function blogTables(app: App): string[] {
  return app.registry.all().flatMap((m) => (m.options.versioned ? [m.table, historyTableName(m)] : [m.table])).sort();
}

/** Runs `count` migrations of one database at once, each through its own adapter. */
async function migrateTogether(app: App, adapters: Adapter[]): Promise<MigrationReport[]> {
  return Promise.all(adapters.map((adapter) => migrate(adapter, app.registry.all(), silentLogger)));
}

/** Exactly one run created each table; the database holds them all and a further run finds nothing to do. */
async function assertMigratedOnce(app: App, reports: MigrationReport[], adapter: Adapter): Promise<void> {
  const created = reports.flatMap((r) => r.createdTables).sort();
  assert.deepEqual(created, blogTables(app), 'each table is created by exactly one run');
  assert.equal(reports.filter((r) => r.createdTables.length > 0).length, 1, 'the runs that waited found the schema done');
  assert.deepEqual(reports.flatMap((r) => [...r.addedColumns, ...r.warnings]), []);
  const tables = await adapter.introspect();
  for (const table of blogTables(app)) assert.ok(tables.has(table), `${table} exists`);
  const again = await migrate(adapter, app.registry.all(), silentLogger);
  assert.deepEqual(again, upToDate);
}

for (const count of [2, 5]) {
  describe(`${count} concurrent migrations`, () => {
    it('on one SQLite file opened by several adapters', async () => {
      const app = createServer({ handleSignals: false, logger: memoryLogger() });
      app.register(await loadFixture('blog'));
      const dir = mkdtempSync(join(tmpdir(), 'mfx-migrate-'));
      const adapters = Array.from({ length: count }, () => openSqlite(join(dir, 'app.db'), app.registry));
      try {
        await assertMigratedOnce(app, await migrateTogether(app, adapters), adapters[0]);
      } finally {
        for (const adapter of adapters) await adapter.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('on one PostgreSQL schema', { skip: postgres.skip }, async () => {
      const app = createServer({ handleSignals: false, logger: memoryLogger() });
      app.register(await loadFixture('blog'));
      const schema = await freshSchema();
      const adapters = Array.from({ length: count }, () => openPostgres({ writeUrl: schema.url }, app.registry));
      try {
        await assertMigratedOnce(app, await migrateTogether(app, adapters), adapters[0]);
      } finally {
        for (const adapter of adapters) await adapter.close();
        await schema.drop();
      }
    });
  });
}

describe('a migration on PostgreSQL under a pool statement_timeout', { skip: postgres.skip }, () => {
  it('waits for a table lock longer than the timeout and completes', async () => {
    const app = createServer({ handleSignals: false, logger: memoryLogger() });
    app.register(await loadFixture('blog'));
    const schema = await freshSchema();
    const first = openPostgres({ writeUrl: schema.url }, app.registry);
    await migrate(first, app.registry.all(), silentLogger);
    // An index of posts the next migration creates again.
    await first.exec('DROP INDEX "idx_posts_userId"');
    await first.close();

    // Another session holds posts, which the migration touches (CREATE INDEX).
    const locker = new pg.Client({ connectionString: schema.url });
    const observer = new pg.Client({ connectionString: PG_URL });
    await locker.connect();
    await observer.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE posts IN ACCESS EXCLUSIVE MODE');
    const name = `mfx-migrate-${randomBytes(4).toString('hex')}`;
    const adapter = openPostgres({ writeUrl: schema.url, poolConfig: { statement_timeout: 50, application_name: name } }, app.registry);
    let settled = false;
    const migration = migrate(adapter, app.registry.all(), silentLogger).finally(() => (settled = true));
    try {
      // Released once the server reports the migration waiting on the lock for ten times the timeout.
      const waited = await Promise.race([migration.then(() => 'finished while posts was locked'), lockWaitOf(observer, `${name}:write`, 500, () => settled)]);
      assert.equal(waited, 'waited');
      await locker.query('COMMIT');
      assert.deepEqual((await migration).statements, ['CREATE INDEX IF NOT EXISTS "idx_posts_userId" ON "posts" ("userId")']);
    } finally {
      await locker.end();
      await observer.end();
      await adapter.close();
      await schema.drop();
    }
  });
});

/** Resolves 'waited' once a statement of `application` has waited on a lock for `ms` (server clock); stops when `done()`. */
async function lockWaitOf(observer: pg.Client, application: string, ms: number, done: () => boolean): Promise<string> {
  return until(async () => {
    if (done()) return 'migration settled';
    const { rows } = await observer.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND clock_timestamp() - query_start > $2 * interval '1 millisecond'`,
      [application, ms],
    );
    return rows[0].n > 0 && 'waited';
  });
}
