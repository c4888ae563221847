// `mfx serve` publishes /openapi.json (unless --no-docs); `mfx openapi` prints the same document.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { fixtureManifestDir } from '../support/fixtures.js';
import { request } from '../support/server.js';

const root = resolve(import.meta.dirname, '../..');
const mfx = join(root, 'bin/mfx.mjs');

/** Starts `mfx serve`, resolves its URL (127.0.0.1) once it listens. */
function serve(args: string[]) {
  const child = spawn(process.execPath, [mfx, 'serve', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /mfx serving (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1].replace('localhost', '127.0.0.1'));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`mfx serve exited with ${code}: ${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url, exited };
}

describe('mfx and the OpenAPI document', () => {
  it('mfx serve publishes /openapi.json, and mfx openapi prints the same document', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = serve(['--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--app', 'fixtures/blog/app.ts']);
    try {
      const url = await server.url;
      const served = await request(`${url}/openapi.json`, 'GET');
      assert.equal(served.status, 200);
      assert.equal((await new Validator().validate(served.body)).valid, true);

      const printed = spawnSync(process.execPath, [mfx, 'openapi', '--manifest', manifest, '--app', 'fixtures/blog/app.ts'], { cwd: root, encoding: 'utf8' });
      assert.equal(printed.status, 0, printed.stderr);
      assert.deepEqual(JSON.parse(printed.stdout), served.body);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('mfx serve --no-docs mounts no spec route', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = serve(['--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--no-docs']);
    try {
      const res = await request(`${await server.url}/openapi.json`, 'GET');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { error: { code: 'NOT_FOUND', message: 'no route for GET /api/openapi.json' } });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('mfx openapi follows --prefix and refuses unknown flags and missing manifests', async () => {
    const manifest = await fixtureManifestDir('blog');
    const prefixed = spawnSync(process.execPath, [mfx, 'openapi', '--manifest', manifest, '--prefix', '/v2'], { cwd: root, encoding: 'utf8' });
    assert.equal(prefixed.status, 0, prefixed.stderr);
    assert.deepEqual(JSON.parse(prefixed.stdout).servers, [{ url: '/v2' }]);

    const unknown = spawnSync(process.execPath, [mfx, 'openapi', '--db', 'sqlite::memory:'], { cwd: root, encoding: 'utf8' });
    assert.equal(unknown.status, 2);
    assert.equal(unknown.stderr.trim(), 'mfx openapi: unknown flag --db (known: --manifest, --prefix, --app)');

    const missing = spawnSync(process.execPath, [mfx, 'openapi', '--manifest', 'nowhere'], { cwd: root, encoding: 'utf8' });
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr.trim(), `mfx: no manifest at ${join(root, 'nowhere/manifest.json')}; run \`mfx build <models.ts> --out nowhere\` first`);
  });
});
