// A project written by create-mfx, inside this workspace (the @mfx packages
// resolve to the workspace's own, tsx loads its TypeScript): its files
// type-check under its own tsconfig, and on SQLite and PostgreSQL its own test
// and seed script pass and the typed client works against its server.
// test/packaging/scaffolded-install.test.ts does it from packed tarballs, outside the repository.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build } from '@mfx/compiler';
import ts from 'typescript';
// Before suite.js: these load openapi-typescript, which would block the event loop
// while suite.js waits on its PostgreSQL probe (and skip the PostgreSQL half).
import { appDatabase, checkClientTypes, childEnv, createMfxBin, devApiKey, root, run, SOURCE_FLAGS, SOURCE_OPTIONS, startApp } from './support.js';
import { walkthrough } from './typed-client/app-client.js';
import { eachBackend } from '../support/suite.js';

/** The project's tsconfig (its options, resolving `@mfx/runtime` to this workspace's sources, and its files). */
function projectConfig(dir: string): { options: ts.CompilerOptions; fileNames: string[] } {
  const config = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  assert.ok(config);
  assert.deepEqual(config.errors, []);
  return { options: { ...config.options, ...SOURCE_OPTIONS }, fileNames: config.fileNames };
}

/**
 * Writes a project with create-mfx into a temporary directory whose
 * node_modules is this repository's (so the workspace's @mfx packages and tsx
 * resolve), and compiles its models; returns its directory.
 */
async function scaffold(db: 'sqlite' | 'postgres'): Promise<string> {
  const parent = mkdtempSync(join(tmpdir(), 'mfx-scaffold-'));
  const created = spawnSync(process.execPath, [createMfxBin, 'app', '--db', db, '--no-install'], { cwd: parent, encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  const dir = join(parent, 'app');
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const result = await build({ entries: [join(dir, 'src/models.ts')], outDir: join(dir, '.mfx'), cwd: dir, compilerOptions: projectConfig(dir).options });
  assert.deepEqual(result.diagnostics, []);
  return dir;
}

const removeScaffold = (dir: string) => dir && rmSync(join(dir, '..'), { recursive: true, force: true });

const tsx = (dir: string, args: string[], env: NodeJS.ProcessEnv) => run(process.execPath, [...SOURCE_FLAGS, ...args], { cwd: dir, env: childEnv(env) });

describe('a scaffolded project, type-checked', () => {
  let dir = '';
  before(async () => {
    dir = await scaffold('sqlite');
  });
  after(() => removeScaffold(dir));

  it('has no type errors in its own files under its tsconfig', () => {
    const { options, fileNames } = projectConfig(dir);
    assert.equal(options.strict, true);
    assert.equal(fileNames.length, 6);
    const program = ts.createProgram(fileNames, { ...options, noEmit: true });
    // Only the project's own files: the workspace's @mfx packages resolve to their sources, which this repository's tsconfig checks.
    const own = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName.startsWith(`${dir}/`))
      .map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    assert.deepEqual(own, []);
  });
});

eachBackend('a scaffolded project', (backend) => {
  let dir = '';
  const dropped: (() => Promise<void>)[] = [];
  before(async () => {
    dir = await scaffold(backend.name === 'postgres' ? 'postgres' : 'sqlite');
  });
  after(async () => {
    for (const drop of dropped) await drop();
    removeScaffold(dir);
  });
  async function database(name: string): Promise<string> {
    const db = await appDatabase(backend, dir, name);
    dropped.push(db.drop);
    return db.url;
  }

  it('depends on its own database driver only', () => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    assert.equal('pg' in pkg.dependencies, backend.name === 'postgres');
    assert.equal('better-sqlite3' in pkg.dependencies, backend.name !== 'postgres');
  });

  it('passes its own test', async () => {
    const ran = await tsx(dir, ['--test', '--test-reporter=tap', 'test/api.test.ts'], { TEST_DB_URL: await database('test') });
    assert.equal(ran.code, 0, ran.output);
    assert.match(ran.output, /^# pass 7$/m);
    assert.match(ran.output, /^# fail 0$/m);
  });

  it('seeds sample data through the API, once', async () => {
    const env = { DB_WRITE_URL: await database('seed') };
    const first = await tsx(dir, ['src/seed.ts'], env);
    assert.equal(first.code, 0, first.output);
    assert.equal(first.output, 'Website relaunch: created with 3 tasks\nQuarterly report: created with 2 tasks\n');
    const again = await tsx(dir, ['src/seed.ts'], env);
    assert.equal(again.code, 0, again.output);
    assert.equal(again.output, 'Website relaunch: already there\nQuarterly report: already there\n');
  });

  it('serves what the typed client expects', async () => {
    const app = await startApp([...SOURCE_FLAGS, 'src/server.ts'], { cwd: dir, env: { DB_WRITE_URL: await database('client') } });
    try {
      await checkClientTypes(app.url);
      const result = await walkthrough(app.url, devApiKey(dir));
      assert.deepEqual(result.refused, { status: 401, code: 'UNAUTHORIZED' });
      assert.match(result.project.slug, /^typed-\d+$/);
      assert.deepEqual(result.listed.map((t) => ('title' in t ? t.title : undefined)), ['Write', 'Outline']);
      assert.equal(result.listedTotal, 2);
      assert.equal(result.includedProjectName, result.project.name);
      assert.equal(result.updated.status, 'done');
      assert.equal(result.deleteStatus, 204);
      assert.deepEqual(result.afterDelete, { status: 404, code: 'NOT_FOUND' });
    } finally {
      assert.equal(await app.stop(), 0, app.output());
    }
  });
});
