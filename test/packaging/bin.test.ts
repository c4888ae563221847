// The `mfx` command as @mfx/compiler ships it (dist/bin.js), installed in an
// app outside the repository and run under plain node: it builds and serves
// without tsx, loads tsx only for an `--app` written in TypeScript, and
// `mfx --version` names both packages' versions.
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runMfx } from '../support/cli.js';
import { type AppDir, appDir, buildPackages, node, root, startNode } from './support.js';

const consumer = join(root, 'test/packaging/consumer');
const mfx = 'node_modules/@mfx/compiler/dist/bin.js';
const version = (pkg: string) => (JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')) as { version: string }).version;

/** An app with the runtime, its SQLite driver and the compiler installed, but not tsx; its models built by the installed mfx. */
let app: AppDir;
before(() => {
  buildPackages();
  app = appDir(consumer, ['better-sqlite3'], { compiler: true });
  const built = node([mfx, 'build', 'models.ts', '--out', '.mfx'], { cwd: app.dir });
  assert.equal(built.code, 0, built.stdout + built.stderr);
});
after(() => app?.remove());

describe('the installed mfx command under plain node', () => {
  it('mfx --version and mfx -v print the versions of @mfx/compiler and @mfx/runtime', async () => {
    const expected = `@mfx/compiler ${version('compiler')}\n@mfx/runtime ${version('runtime')}\n`;
    for (const flag of ['--version', '-v']) {
      const run = node([mfx, flag], { cwd: app.dir });
      assert.deepEqual(run, { code: 0, stdout: expected, stderr: '' }, flag);
    }
    // The repository's development command says the same.
    assert.deepEqual(await runMfx(['--version']), { code: 0, signal: null, stdout: expected, stderr: '' });
  });

  it('mfx serve without --app starts where tsx is not installed at all', async () => {
    const server = await startNode([mfx, 'serve', '--manifest', '.mfx', '--db', 'sqlite::memory:', '--port', '0'], { cwd: app.dir, ready: /mfx serving (http:\/\/\S+)/ });
    try {
      const live = await fetch(`${server.url}/live`);
      assert.equal(live.status, 200);
      assert.deepEqual(await live.json(), { status: 'ok' });
    } finally {
      await server.stop();
    }
  });

  it('mfx serve --app app.ts loads tsx for the TypeScript file and runs its hooks and actions', async () => {
    const withTsx = appDir(consumer, ['better-sqlite3', 'tsx'], { compiler: true });
    symlinkSync(app.path('.mfx'), withTsx.path('.mfx'), 'dir');
    const server = await startNode([mfx, 'serve', '--manifest', '.mfx', '--db', 'sqlite::memory:', '--port', '0', '--app', 'app.ts'], {
      cwd: withTsx.dir,
      ready: /mfx serving (http:\/\/\S+)/,
    });
    try {
      const hello = await fetch(`${server.url}/hello`);
      assert.equal(hello.status, 200);
      assert.deepEqual(await hello.json(), { data: { hello: 'from app' } });
    } finally {
      await server.stop();
      withTsx.remove();
    }
  });

  it('mfx openapi prints the document in a PostgreSQL-only app, without better-sqlite3 and without a database', () => {
    const postgresOnly = appDir(consumer, ['pg', 'pg-cursor'], { compiler: true });
    try {
      symlinkSync(app.path('.mfx'), postgresOnly.path('.mfx'), 'dir');
      const run = node([mfx, 'openapi', '--manifest', '.mfx'], { cwd: postgresOnly.dir });
      assert.equal(run.stderr, '');
      assert.equal(run.code, 0);
      const document = JSON.parse(run.stdout) as { openapi: string; paths: Record<string, unknown> };
      assert.equal(document.openapi, '3.1.0');
      assert.ok(document.paths['/teams'] && document.paths['/teams/{id}'], Object.keys(document.paths).join(', '));
    } finally {
      postgresOnly.remove();
    }
  });
});
