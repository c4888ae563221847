// A user's app on the built packages (issue 15): its TypeScript checks
// against the published declarations under the strictest flags a team uses,
// with skipLibCheck off and no @types beyond @types/node; it runs under plain
// node (no tsx, no loader) with only the driver of its database installed;
// and a missing driver is a startup error naming the package to install.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freshSchema } from '../support/backends.js';
import { eachBackend } from '../support/suite.js';
import { type AppDir, appDir, buildPackages, node, type Ran, root, startNode, tsc } from './support.js';

const consumer = join(root, 'test/packaging/consumer');
const STRICT = ['--strict', '--noUncheckedIndexedAccess', '--exactOptionalPropertyTypes', '--skipLibCheck', 'false'];

/** The app built once, in a node_modules without any driver: its tsc run and its compiled output. */
let base: AppDir;
let checked: Ran;
before(() => {
  buildPackages();
  base = appDir(consumer);
  checked = node([tsc, '-p', 'tsconfig.json', ...STRICT], { cwd: base.dir });
  // The models compiled by the built `mfx` command, reading the runtime's published declarations.
  const manifest = node([join(root, 'compiler/dist/bin.js'), 'build', 'models.ts', '--out', 'dist/.mfx'], { cwd: base.dir });
  assert.equal(manifest.code, 0, manifest.stdout + manifest.stderr);
});
after(() => base?.remove());

/** The compiled app in a node_modules with only `drivers` beside the runtime and its dependencies. */
function installed(drivers: readonly string[]): AppDir {
  const app = appDir(consumer, drivers);
  cpSync(base.path('dist'), app.path('dist'), { recursive: true });
  return app;
}

describe('a consumer program on the published declarations', () => {
  it('type-checks with tsc --strict --noUncheckedIndexedAccess --exactOptionalPropertyTypes, skipLibCheck off, and @types/node only', () => {
    assert.deepEqual(readdirSync(base.path('node_modules/@types')), ['node']);
    assert.ok(!existsSync(base.path('node_modules/pg')) && !existsSync(base.path('node_modules/better-sqlite3')), 'no driver is installed');
    assert.equal(checked.stdout + checked.stderr, '');
    assert.equal(checked.code, 0);
    assert.ok(existsSync(base.path('dist/server.js')));
  });
});

/** What each database needs installed, and a database of its own for one run. */
const databases = {
  sqlite: { drivers: ['better-sqlite3'], absent: ['pg', 'pg-cursor'], open: async () => ({ url: 'sqlite::memory:', drop: async () => {} }) },
  postgres: { drivers: ['pg', 'pg-cursor'], absent: ['better-sqlite3'], open: freshSchema },
};

eachBackend('the compiled consumer app under plain node', (backend) => {
  const database = databases[backend.name === 'postgres' ? 'postgres' : 'sqlite'];
  it(`starts with only ${database.drivers.join(' and ')} installed and answers GET /live 200`, async () => {
    const app = installed(database.drivers);
    const db = await database.open();
    const server = await startNode(['dist/server.js'], { cwd: app.dir, env: { DB_URL: db.url }, ready: /consumer serving (http:\/\/\S+)/ });
    try {
      for (const name of database.absent) assert.ok(!existsSync(app.path('node_modules', name)), `${name} is not installed`);
      const live = await fetch(`${server.url}/live`);
      assert.equal(live.status, 200);
      assert.deepEqual(await live.json(), { status: 'ok' });
      const count = await fetch(`${server.url}/teams/count`);
      assert.equal(count.status, 200);
      assert.deepEqual(await count.json(), { data: { count: 0 } });
      const list = await fetch(`${server.url}/teams`);
      assert.equal(list.status, 200);
      assert.deepEqual((await list.json()).data, []);
    } finally {
      await server.stop();
      await db.drop();
      app.remove();
    }
  });
});

describe('a missing database driver', () => {
  /** Runs the compiled app on `url` with only `drivers` installed; it must fail to start. */
  function refused(drivers: readonly string[], url: string): Ran {
    const app = installed(drivers);
    try {
      return node(['dist/server.js'], { cwd: app.dir, env: { DB_URL: url } });
    } finally {
      app.remove();
    }
  }

  it('SQLite without better-sqlite3: a ConfigError naming the package to install', () => {
    const run = refused(['pg', 'pg-cursor'], 'sqlite::memory:');
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.ok(
      run.stderr.includes('ConfigError: mfx: SQLite (openSqlite, a sqlite: database URL) needs the better-sqlite3 package, which is not installed; add it to your app: npm install better-sqlite3\n'),
      run.stderr,
    );
  });

  it('PostgreSQL without pg: a ConfigError naming pg and pg-cursor', () => {
    const run = refused(['better-sqlite3'], 'postgres://postgres@127.0.0.1:5432/test');
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.ok(
      run.stderr.includes('ConfigError: mfx: PostgreSQL (openPostgres, a postgres:// database URL) needs the pg package, which is not installed; add it to your app: npm install pg pg-cursor\n'),
      run.stderr,
    );
  });

  it('PostgreSQL with pg but without pg-cursor: refused at startup, not on the first streamed response', () => {
    const run = refused(['pg'], 'postgres://postgres@127.0.0.1:5432/test');
    assert.equal(run.code, 1);
    assert.ok(
      run.stderr.includes('ConfigError: mfx: PostgreSQL (openPostgres, a postgres:// database URL) needs the pg-cursor package, which is not installed; add it to your app: npm install pg pg-cursor\n'),
      run.stderr,
    );
  });
});
