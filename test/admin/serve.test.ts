// `mfx serve --admin` as a user runs it: refused without a gate, mounted with the --app module's
// adminAuth, or without a gate when --admin-unauthenticated says so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runMfx, servingUrl, startMfx } from '../support/cli.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { request } from '../support/server.js';

describe('mfx serve --admin', () => {
  it('refuses to start without a gate, naming adminAuth and --admin-unauthenticated', async () => {
    const manifest = await fixtureManifestDir('blog');
    const ran = await runMfx(['serve', '--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--admin', '--app', 'fixtures/blog/app.ts']);
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(ran.stderr, /mfx serve --admin needs a gate: export const adminAuth = \[bearer\(\{ secret \}\), requireRole\('admin'\)\] \(or any Auth-step hooks\) from the --app module, or pass --admin-unauthenticated/);
    assert.doesNotMatch(ran.stdout, /mfx serving/);
  });

  it('mounts the panel behind the module\'s adminAuth: HTTP Basic against the users table', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = startMfx(['serve', '--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--admin', '--app', 'fixtures/blog/admin-app.ts']);
    const base = await servingUrl(server);
    const origin = new URL(base).origin;
    assert.equal((await request(`${base}/users`, 'POST', { body: { name: 'Root', email: 'root@example.com', password: 'long enough', role: 'admin' } })).status, 201);
    const refused = await fetch(`${origin}/admin/`);
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Basic realm="blog admin", charset="UTF-8"');
    const basic = `Basic ${Buffer.from('root@example.com:long enough').toString('base64')}`;
    const page = await fetch(`${origin}/admin/users`, { headers: { authorization: basic } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /root@example\.com/);
    assert.equal((await server.stop()).code, 0);
  });

  it('mounts the panel without a gate with --admin-unauthenticated, warning in the log', async () => {
    const manifest = await fixtureManifestDir('blog');
    const server = startMfx(['serve', '--manifest', manifest, '--db', 'sqlite::memory:', '--port', '0', '--admin', '--admin-unauthenticated']);
    const origin = new URL(await servingUrl(server)).origin;
    assert.equal((await fetch(`${origin}/admin/`)).status, 200);
    await server.line(/mounted without a gate/);
    assert.equal((await server.stop()).code, 0);
  });
});
