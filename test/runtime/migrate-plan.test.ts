// The migration is a plan computed from one read of the schema, then run: a dry run reports exactly what the
// run does and changes nothing; strictMigrations refuses before anything runs.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type App, createServer, historyTableName, MigrationRefused } from '@mfx/runtime';
import type { Backend } from '../support/backends.js';
import { loadFixture } from '../support/fixtures.js';
import { memoryLogger } from '../support/server.js';
import { eachBackend } from '../support/suite.js';

/** An app on a fresh database of `backend`, not started; `close` closes (unless `stop` did) and drops it. */
async function appOn(backend: Backend, fixture: string, config: Parameters<typeof createServer>[0] = {}): Promise<{ app: App; close: (stopped?: boolean) => Promise<void> }> {
  const app = createServer({ port: 0, host: '127.0.0.1', handleSignals: false, logger: memoryLogger(), ...config });
  app.register(await loadFixture(fixture));
  const { adapter, drop } = await backend.open(app.registry);
  app.setDB(adapter);
  return {
    app,
    close: async (stopped = false) => {
      if (!stopped) await adapter.close();
      await drop();
    },
  };
}

eachBackend('the migration plan', (backend) => {
  it('a dry run reports what the run then does, statement for statement, and changes nothing', async () => {
    const { app, close } = await appOn(backend, 'blog');
    try {
      const dry = await app.migrate({ dryRun: true });
      assert.equal(dry.applied, false);
      assert.equal((await app.db.introspect()).size, 0, 'no table was created');
      const tables = app.registry.all().flatMap((m) => (m.options.versioned ? [m.table, historyTableName(m)] : [m.table]));
      assert.deepEqual([...dry.createdTables].sort(), tables.sort());
      const again = await app.migrate({ dryRun: true });
      assert.deepEqual(again, dry, 'the same plan twice');
      const real = await app.migrate();
      assert.equal(real.applied, true);
      assert.deepEqual(real.statements, dry.statements);
      assert.deepEqual([real.createdTables, real.addedColumns, real.findings], [dry.createdTables, dry.addedColumns, dry.findings]);
      const after = await app.migrate({ dryRun: true });
      assert.deepEqual([after.statements, after.findings], [[], []], 'nothing left to do');
    } finally {
      await close();
    }
  });

  it('plans a unique index among live rows over a column it adds: NULLs never collide, one default on two live rows does', async () => {
    const { app, close } = await appOn(backend, 'soft-unique');
    const ts = backend.name === 'postgres' ? 'timestamptz' : 'TEXT';
    try {
      // An older customers table, without email and code, holding two live rows.
      await app.db.exec(`CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', created_at ${ts} NOT NULL, updated_at ${ts} NOT NULL, deleted_at ${ts})`);
      for (const id of ['c1', 'c2']) await app.db.exec(`INSERT INTO customers (id, name, created_at, updated_at) VALUES ('${id}', 'n', '2020-01-01T00:00:00Z', '2020-01-01T00:00:00Z')`);
      const dry = await app.migrate({ dryRun: true });
      assert.deepEqual(dry.addedColumns.filter((c) => c.startsWith('customers.')), ['customers.email', 'customers.code']);
      const creates = dry.statements.filter((s) => s.includes('INDEX') && s.includes('"customers"'));
      assert.ok(creates.some((s) => s.startsWith('CREATE UNIQUE INDEX IF NOT EXISTS "uq_customers_code" ON "customers" ("code") WHERE "deleted_at" IS NULL')), creates.join('\n'));
      assert.ok(!creates.some((s) => s.includes('"uq_customers_email"')), creates.join('\n'));
      assert.deepEqual(
        dry.findings.filter((f) => f.table === 'customers').map((f) => [f.message, f.breaking]),
        [
          [
            'customers.email holds the same value on several live rows, so the unique index uq_customers_email (unique among rows that are not soft-deleted) was not created and the value is not unique yet; fix those rows and migrate again',
            false,
          ],
        ],
      );
      const real = await app.migrate();
      assert.deepEqual(real.statements, dry.statements);
      assert.deepEqual(real.findings, dry.findings);
    } finally {
      await close();
    }
  });

  it('strictMigrations with disableAutoMigrate refuses to start while tables are missing, and creates none', async () => {
    const { app, close } = await appOn(backend, 'migration', { disableAutoMigrate: true, strictMigrations: true });
    try {
      // The server's checks run on the schema as it is; it starts once migrated.
      const fix = 'run `mfx migrate` before starting the server (it does not migrate: disableAutoMigrate), or let it migrate';
      await assert.rejects(app.start(), (error: unknown) => {
        assert.ok(error instanceof MigrationRefused);
        assert.equal(
          error.message,
          [
            'mfx: strictMigrations: the database differs from the models in 2 ways that would break requests, so nothing was changed:',
            `  - table labels does not exist yet; ${fix}`,
            `  - table shelfs does not exist yet; ${fix}`,
          ].join('\n'),
        );
        assert.deepEqual(
          error.findings.map((f) => [f.table, f.column, f.breaking]),
          [
            ['labels', null, true],
            ['shelfs', null, true],
          ],
        );
        return true;
      });
      assert.equal((await app.db.introspect()).size, 0, 'nothing was created');
      await app.migrate();
      await app.start();
      await app.stop();
      await close(true);
    } catch (error) {
      await close();
      throw error;
    }
  });
});
