// `mfx serve` and `mfx migrate` as a user runs them.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { freshSchema } from '../support/backends.js';
import { runMfx, servingUrl, startMfx } from '../support/cli.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { request } from '../support/server.js';
import { postgres } from '../support/suite.js';

async function sqlOn(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('mfx serve', () => {
  it('serves the manifest, logs structured lines, and stops gracefully on SIGTERM', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = startMfx(['serve', '--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--app', 'fixtures/blog/app.ts']);
    const url = (await server.line(/^mfx serving /)).split(' ')[2];
    assert.match(url, /^http:\/\/localhost:\d+\/api$/);
    // The blog app: sign-up is public, other writes need a token from POST /auth/login.
    const base = await servingUrl(server);
    const signup = await request(`${base}/users`, 'POST', { body: { name: 'Cli User', email: 'cli@example.com', password: 'long enough' } });
    assert.equal(signup.status, 201);
    assert.equal((await request(`${base}/tags`, 'POST', { body: { name: 'cli' } })).status, 401);
    const login = await request(`${base}/auth/login`, 'POST', { body: { email: 'cli@example.com', password: 'long enough' } });
    assert.equal(login.status, 200);
    const created = await request(`${base}/tags`, 'POST', { body: { name: 'cli' }, headers: { authorization: `Bearer ${login.body.data.token}` } });
    assert.equal(created.status, 201);
    const listed = await request(`${base}/tags`, 'GET');
    assert.equal(listed.body.meta.total, 1);
    assert.equal((await server.stop()).code, 0);
    const lines = server.logs();
    const access = lines.find((l) => l.msg === 'request' && l.method === 'POST' && l.path === '/api/tags' && l.status === 201);
    assert.ok(access, server.output());
    assert.equal(access.status, 201);
    assert.equal(access.path, '/api/tags');
    assert.ok(access.requestId);
    assert.ok(lines.some((l) => l.msg === 'stopped'));
  });

  it('takes the port and the database from the environment under the flags', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = startMfx(['serve', '--manifest', manifest, '--port', '0'], { env: { DB_WRITE_URL: 'sqlite::memory:', SERVICE_NAME: 'from-env' } });
    const res = await request(`${await servingUrl(server)}/tags`, 'GET');
    assert.equal(res.headers.get('x-service-name'), 'from-env');
    assert.equal((await server.stop('SIGINT')).code, 0);
  });

  it('serves PostgreSQL from --db, and from DB_WRITE_URL with reads on DB_READ_URL', { skip: postgres.skip }, async () => {
    const manifest = await fixtureManifestDir('blog');
    const primary = await freshSchema();
    const replica = await freshSchema();
    try {
      const flagged = startMfx(['serve', '--manifest', manifest, '--port', '0', '--db', primary.url]);
      const url = await servingUrl(flagged);
      assert.equal((await request(`${url}/tags`, 'POST', { body: { name: 'from-flag' } })).status, 201);
      assert.equal((await request(`${url}/tags`, 'GET')).body.meta.total, 1);
      assert.equal((await flagged.stop()).code, 0);

      // The replica gets the schema (a real one would by replication), not the rows.
      const migrated = await runMfx(['migrate', '--manifest', manifest, '--db', replica.url]);
      assert.equal(migrated.code, 0, migrated.stderr);
      const fromEnv = startMfx(['serve', '--manifest', manifest, '--port', '0'], { env: { DB_WRITE_URL: primary.url, DB_READ_URL: replica.url } });
      const envUrl = await servingUrl(fromEnv);
      const created = await request(`${envUrl}/tags`, 'POST', { body: { name: 'from-env' } });
      assert.equal(created.status, 201);
      // Reads outside a transaction go to the read URL, which has no rows.
      assert.equal((await request(`${envUrl}/tags`, 'GET')).body.meta.total, 0);
      assert.equal((await fromEnv.stop()).code, 0);
      const rows = await sqlOn(primary.url, 'SELECT name FROM tags ORDER BY name');
      assert.deepEqual(rows.map((r) => r.name), ['from-env', 'from-flag']);
    } finally {
      await primary.drop();
      await replica.drop();
    }
  });

  it('--production serves an app whose every route has an authenticator or a public declaration', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = startMfx(['serve', '--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--app', 'fixtures/blog/app.ts', '--production']);
    assert.equal((await request(`${await servingUrl(server)}/posts`, 'GET')).status, 200);
    assert.equal((await server.stop()).code, 0);
  });

  it('--production refuses to start with unprotected routes and lists them', async () => {
    {
      const dir = await fixtureManifestDir('blog');
      const refused = await runMfx(['serve', '--manifest', dir, '--db', 'sqlite::memory:', '--port', '0', '--production']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /production validation failed \(31 problems\)/);
      assert.match(refused.stderr, /Post create \(POST \/api\/posts\) has neither an authenticator nor a public declaration/);
      assert.match(refused.stderr, /User history \(GET \/api\/users\/:id\/history\)/);
    }
  });

  it('fails with a one-line message for a bad environment value or flag', async () => {
    const bad = await runMfx(['serve', '--manifest', 'nowhere'], { env: { PORT: 'eighty' } });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /environment variable PORT="eighty" must be a whole number/);
    const flag = await runMfx(['serve', '--bogus', 'x']);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /unknown flag --bogus/);
    const missing = await runMfx(['serve', '--manifest', join(tmpdir(), 'missing-manifest')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no manifest at .*mfx build/);
  });
});

describe('mfx migrate', () => {
  it('prints what it created, then that the schema is up to date', async () => {
    const manifest = await fixtureManifestDir('blog');
    const db = join(mkdtempSync(join(tmpdir(), 'mfx-migrate-')), 'blog.db');
    const first = await runMfx(['migrate', '--manifest', manifest, '--db', `sqlite:${db}`]);
    assert.equal(first.code, 0, first.stderr);
    for (const table of ['companies', 'users', 'posts', 'comments', 'tags', 'post_tags']) assert.match(first.stdout, new RegExp(`created table ${table}\\n`));
    const second = await runMfx(['migrate', '--manifest', manifest, '--db', `sqlite:${db}`]);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'schema is up to date\n');
  });
});
