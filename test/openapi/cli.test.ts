// `mfx serve` publishes /openapi.json (unless --no-docs); `mfx openapi` prints the same document.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { usage } from '../../runtime/src/cli/args.js';
import { root, runMfx, servingUrl, startMfx } from '../support/cli.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { request } from '../support/server.js';

describe('mfx and the OpenAPI document', () => {
  it('mfx serve publishes /openapi.json, and mfx openapi prints the same document', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = startMfx(['serve', '--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--app', 'fixtures/blog/app.ts']);
    try {
      const url = await servingUrl(server);
      const served = await request(`${url}/openapi.json`, 'GET');
      assert.equal(served.status, 200);
      assert.equal((await new Validator().validate(served.body)).valid, true);

      const printed = await runMfx(['openapi', '--manifest', manifest, '--app', 'fixtures/blog/app.ts']);
      assert.equal(printed.code, 0, printed.stderr);
      assert.deepEqual(JSON.parse(printed.stdout), served.body);
    } finally {
      await server.stop();
    }
  });

  it('mfx serve --no-docs mounts no spec route', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = startMfx(['serve', '--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--no-docs']);
    try {
      const res = await request(`${await servingUrl(server)}/openapi.json`, 'GET');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { error: { code: 'NOT_FOUND', message: 'no route for GET /api/openapi.json' } });
    } finally {
      await server.stop();
    }
  });

  it('mfx openapi follows --prefix and refuses unknown flags and missing manifests', async () => {
    const manifest = await fixtureManifestDir('blog');
    const prefixed = await runMfx(['openapi', '--manifest', manifest, '--prefix', '/v2']);
    assert.equal(prefixed.code, 0, prefixed.stderr);
    assert.deepEqual(JSON.parse(prefixed.stdout).servers, [{ url: '/v2' }]);

    const unknown = await runMfx(['openapi', '--db', 'sqlite::memory:']);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr, `mfx openapi: unknown flag --db (known: --manifest, --prefix, --app, --files)\n\n${usage('openapi')}`);

    const missing = await runMfx(['openapi', '--manifest', 'nowhere']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim(), `mfx: no manifest at ${join(root, 'nowhere/manifest.json')}; run \`mfx build <models.ts> --out nowhere\` first`);
  });
});
