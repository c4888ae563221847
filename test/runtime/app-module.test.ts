// An --app module configures the server (`export const config`, under the
// command's flags and environment) and sets the app up after the database is
// set, with plugins that start() waits for (DESIGN.md, "Configuration from
// an `--app` module"); mfx openapi reads the same module.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { cliSuite, runMfx, servingUrl } from '../support/cli.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { request } from '../support/server.js';
import { sqliteFileBackend } from '../support/backends.js';
import { eachBackend, postgres } from '../support/suite.js';

const APP = 'fixtures/app-module/app.ts';

eachBackend(
  'an --app module with config and plugins',
  (backend) => {
  let manifest: string;
  const cli = cliSuite(backend);
  const serve = async (args: string[], env: Record<string, string> = {}) => {
    const db = await cli.database();
    const started = cli.start(['serve', '--manifest', manifest, '--db', db.url, '--port', '0', '--app', APP, ...args], { env });
    return { started, db };
  };
  before(async () => {
    manifest = await fixtureManifestDir('blog');
  });

  it("serves with the module's config, runs its setup with the database set and waits for its plugin", async () => {
    const { started } = await serve([]);
    const url = await servingUrl(started);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/, 'the prefix comes from config.pathPrefix');
    const greeting = await request(`${url}/greeting`, 'GET');
    assert.equal(greeting.status, 200);
    assert.deepEqual(greeting.body, { data: { greeting: 'hello from a plugin', databaseAnswered: 1 } });
    assert.equal(greeting.headers.get('x-service-name'), 'from-the-module');
    // documentation: { public: true, page: false } from the module: the document without its page.
    assert.equal((await request(`${url}/openapi.json`, 'GET')).status, 200);
    assert.equal((await request(`${url}/docs`, 'GET')).status, 404);
    assert.equal((await request(`${url}/posts`, 'GET')).status, 200);
  });

  it('the flags and the environment win over the module: --prefix, SERVICE_NAME', async () => {
    const { started } = await serve(['--prefix', '/api'], { SERVICE_NAME: 'from-the-environment' });
    const url = await servingUrl(started);
    assert.match(url, /\/api$/);
    const greeting = await request(`${url}/greeting`, 'GET');
    assert.equal(greeting.status, 200);
    assert.equal(greeting.headers.get('x-service-name'), 'from-the-environment');
  });

  it('a plugin that fails stops the start with exit 1, naming the plugin and the cause; nothing listens', async () => {
    const db = await cli.database();
    const run = await runMfx(['serve', '--manifest', manifest, '--db', db.url, '--port', '0', '--app', APP], { env: { APP_MODULE_CASE: 'plugin-fails' } });
    assert.equal(run.code, 1);
    assert.doesNotMatch(run.stdout, /mfx serving/);
    assert.equal(run.stderr, 'mfx: the plugin "greeter" failed: no broker answered at 127.0.0.1:1\n');
      assert.deepEqual(await db.tables(), [], 'the start stopped before the migration');
  });
  },
  [sqliteFileBackend, postgres],
);

it('a module that sets a setting the command owns (config.db) is refused before anything opens, naming the flag', async () => {
  const manifest = await fixtureManifestDir('blog');
  const run = await runMfx(['serve', '--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--app', APP], { env: { APP_MODULE_CASE: 'db' } });
  assert.equal(run.code, 1);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, 'mfx: fixtures/app-module/app.ts: `config.db` cannot be set from an --app module: the database comes from --db (or DB_WRITE_URL, DB_READ_URL)\n');
});

it("mfx openapi uses the module's config and plugin: its prefix and the plugin's action", async () => {
  const manifest = await fixtureManifestDir('blog');
  const run = await runMfx(['openapi', '--manifest', manifest, '--app', APP], { env: { APP_MODULE_CASE: 'openapi' } });
  assert.equal(run.stderr, '');
  assert.equal(run.code, 0);
  const document = JSON.parse(run.stdout) as { servers: { url: string }[]; paths: Record<string, unknown> };
  assert.deepEqual(document.servers, [{ url: '/v1' }]);
  assert.ok(document.paths['/greeting'], Object.keys(document.paths).join(', '));
});

it('mfx openapi opens no database: a setup that queries one is told so in one line (exit 1)', async () => {
  const manifest = await fixtureManifestDir('blog');
  const run = await runMfx(['openapi', '--manifest', manifest, '--app', APP]);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, '');
  assert.equal(
    run.stderr,
    'mfx: a query ran on the offline adapter, which builds the routes and the OpenAPI document without a database (mfx openapi does): ' +
      'query the database from hooks, actions or readiness checks, not while setting the app up, or open one with openSqlite/openPostgres\n',
  );
});
