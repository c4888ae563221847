// Migration: columns added to existing tables exactly as declared, system tables, concurrent migrations.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, createServer, idempotency, SqlIdempotencyStore, type TableSpec } from '@mfx/runtime';
import { backends } from '../support/backends.js';
import { loadFixture } from '../support/fixtures.js';
import { memoryLogger, startServer, type TestServer } from '../support/server.js';

const OLD = '00000000-0000-4000-8000-000000000001';

for (const backend of await backends()) {
  describe(`columns added to an existing table on ${backend.name}`, { skip: backend.skip }, () => {
    let server: TestServer;
    const timestamp = backend.name === 'postgres' ? 'timestamptz' : 'TEXT';
    before(async () => {
      server = await startServer(backend, {
        fixture: 'migration',
        // The table as an older version of the model created it: `name` only, with one row.
        prepare: async (adapter) => {
          await adapter.exec(`CREATE TABLE labels (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', created_at ${timestamp} NOT NULL, updated_at ${timestamp} NOT NULL)`);
          await adapter.exec(`INSERT INTO labels (id, name, created_at, updated_at) VALUES ('${OLD}', 'legacy', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z')`);
        },
      });
    });
    after(() => server.close());

    it('keeps a default whose text looks like DDL, word for word, on old rows and new ones', async () => {
      const old = await server.request('GET', `/labels/${OLD}`);
      assert.equal(old.status, 200, old.text);
      assert.equal(old.body.data.note, 'keep a UNIQUE name');
      const created = await server.request('POST', '/labels', { body: { name: 'first' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.note, 'keep a UNIQUE name');
    });

    it('adds no unique constraint the model does not declare', async () => {
      const second = await server.request('POST', '/labels', { body: { name: 'second' } });
      assert.equal(second.status, 201, second.text);
      const same = await server.request('GET', `/labels?filter=${encodeURIComponent('note:eq:keep a UNIQUE name')}`);
      assert.equal(same.body.meta.total, 3, 'the old row and both new ones share the default');
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
}

for (const backend of await backends()) {
  describe(`system tables on ${backend.name}`, { skip: backend.skip }, () => {
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
}
