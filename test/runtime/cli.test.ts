// `mfx serve` and `mfx migrate` as a user runs them.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { freshSchema } from '../support/backends.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { request } from '../support/server.js';
import { postgres } from '../support/suite.js';

const root = resolve(import.meta.dirname, '../..');
const mfx = join(root, 'bin/mfx.mjs');

async function sqlOn(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [mfx, 'serve', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /mfx serving (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`mfx serve exited with ${code}: ${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url, exited, output: () => output };
}

describe('mfx serve', () => {
  it('serves the manifest, logs structured lines, and stops gracefully on SIGTERM', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = serve(['--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--app', 'fixtures/blog/app.ts']);
    const url = await server.url;
    assert.match(url, /^http:\/\/localhost:\d+\/api$/);
    // The blog app: sign-up is public, other writes need a token from POST /auth/login.
    const base = url.replace('localhost', '127.0.0.1');
    const signup = await request(`${base}/users`, 'POST', { body: { name: 'Cli User', email: 'cli@example.com', password: 'long enough' } });
    assert.equal(signup.status, 201);
    assert.equal((await request(`${base}/tags`, 'POST', { body: { name: 'cli' } })).status, 401);
    const login = await request(`${base}/auth/login`, 'POST', { body: { email: 'cli@example.com', password: 'long enough' } });
    assert.equal(login.status, 200);
    const created = await request(`${base}/tags`, 'POST', { body: { name: 'cli' }, headers: { authorization: `Bearer ${login.body.data.token}` } });
    assert.equal(created.status, 201);
    const listed = await request(`${base}/tags`, 'GET');
    assert.equal(listed.body.meta.total, 1);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    const lines = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    const access = lines.find((l) => l.msg === 'request' && l.method === 'POST' && l.path === '/api/tags' && l.status === 201);
    assert.equal(access.status, 201);
    assert.equal(access.path, '/api/tags');
    assert.ok(access.requestId);
    assert.ok(lines.some((l) => l.msg === 'stopped'));
  });

  it('takes the port and the database from the environment under the flags', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = serve(['--manifest', manifest, '--port', '0'], { DB_WRITE_URL: 'sqlite::memory:', SERVICE_NAME: 'from-env' });
    const url = await server.url;
    const res = await request(`${url.replace('localhost', '127.0.0.1')}/tags`, 'GET');
    assert.equal(res.headers.get('x-service-name'), 'from-env');
    server.child.kill('SIGINT');
    assert.equal(await server.exited, 0);
  });

  it('serves PostgreSQL from --db, and from DB_WRITE_URL with reads on DB_READ_URL', { skip: postgres.skip }, async () => {
    const manifest = await fixtureManifestDir('blog');
    const primary = await freshSchema();
    const replica = await freshSchema();
    try {
      const flagged = serve(['--manifest', manifest, '--port', '0', '--db', primary.url]);
      const url = (await flagged.url).replace('localhost', '127.0.0.1');
      assert.equal((await request(`${url}/tags`, 'POST', { body: { name: 'from-flag' } })).status, 201);
      assert.equal((await request(`${url}/tags`, 'GET')).body.meta.total, 1);
      flagged.child.kill('SIGTERM');
      assert.equal(await flagged.exited, 0);

      // The replica gets the schema (a real one would by replication), not the rows.
      const migrated = spawnSync(process.execPath, [mfx, 'migrate', '--manifest', manifest, '--db', replica.url], { cwd: root, encoding: 'utf8' });
      assert.equal(migrated.status, 0, migrated.stderr);
      const fromEnv = serve(['--manifest', manifest, '--port', '0'], { DB_WRITE_URL: primary.url, DB_READ_URL: replica.url });
      const envUrl = (await fromEnv.url).replace('localhost', '127.0.0.1');
      const created = await request(`${envUrl}/tags`, 'POST', { body: { name: 'from-env' } });
      assert.equal(created.status, 201);
      // Reads outside a transaction go to the read URL, which has no rows.
      assert.equal((await request(`${envUrl}/tags`, 'GET')).body.meta.total, 0);
      fromEnv.child.kill('SIGTERM');
      assert.equal(await fromEnv.exited, 0);
      const rows = await sqlOn(primary.url, 'SELECT name FROM tags ORDER BY name');
      assert.deepEqual(rows.map((r) => r.name), ['from-env', 'from-flag']);
    } finally {
      await primary.drop();
      await replica.drop();
    }
  });

  it('--production serves an app whose every route has an authenticator or a public declaration', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = serve(['--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--app', 'fixtures/blog/app.ts', '--production']);
    const url = (await server.url).replace('localhost', '127.0.0.1');
    assert.equal((await request(`${url}/posts`, 'GET')).status, 200);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });

  it('--production refuses to start with unprotected routes and lists them', async () => {
    {
      const dir = await fixtureManifestDir('blog');
      const refused = spawnSync(process.execPath, [mfx, 'serve', '--manifest', dir, '--db', 'sqlite::memory:', '--port', '0', '--production'], { cwd: root, encoding: 'utf8' });
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /production validation failed \(31 problems\)/);
      assert.match(refused.stderr, /Post create \(POST \/api\/posts\) has neither an authenticator nor a public declaration/);
      assert.match(refused.stderr, /User history \(GET \/api\/users\/:id\/history\)/);
    }
  });

  it('fails with a one-line message for a bad environment value or flag', () => {
    const bad = spawnSync(process.execPath, [mfx, 'serve', '--manifest', 'nowhere'], { cwd: root, env: { ...process.env, PORT: 'eighty' }, encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /environment variable PORT="eighty" must be a whole number/);
    const flag = spawnSync(process.execPath, [mfx, 'serve', '--bogus', 'x'], { cwd: root, encoding: 'utf8' });
    assert.equal(flag.status, 2);
    assert.match(flag.stderr, /unknown flag --bogus/);
    const missing = spawnSync(process.execPath, [mfx, 'serve', '--manifest', join(tmpdir(), 'missing-manifest')], { cwd: root, encoding: 'utf8' });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /no manifest at .*mfx build/);
  });
});

describe('mfx migrate', () => {
  it('prints what it created, then that the schema is up to date', async () => {
    const manifest = await fixtureManifestDir('blog');
    const db = join(mkdtempSync(join(tmpdir(), 'mfx-migrate-')), 'blog.db');
    const first = spawnSync(process.execPath, [mfx, 'migrate', '--manifest', manifest, '--db', `sqlite:${db}`], { cwd: root, encoding: 'utf8' });
    assert.equal(first.status, 0, first.stderr);
    for (const table of ['companies', 'users', 'posts', 'comments', 'tags', 'post_tags']) assert.match(first.stdout, new RegExp(`created table ${table}\\n`));
    const second = spawnSync(process.execPath, [mfx, 'migrate', '--manifest', manifest, '--db', `sqlite:${db}`], { cwd: root, encoding: 'utf8' });
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.stdout, 'schema is up to date\n');
  });
});
