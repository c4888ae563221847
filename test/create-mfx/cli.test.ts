// create-mfx, the command behind `npm create mfx@latest my-app`: what it writes
// for each database, and what it refuses (with nothing written).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'packages/create-mfx/bin/create-mfx.js');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

/** Runs create-mfx in `cwd` with plain node, never installing unless asked. */
function create(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every file under `dir`, relative, sorted. */
function tree(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? tree(dir, join(prefix, e.name)) : [join(prefix, e.name)]))
    .sort();
}

const FILES = [
  '.gitignore',
  'README.md',
  'package.json',
  'scripts/dev.mjs',
  'src/app.ts',
  'src/database.ts',
  'src/models.ts',
  'src/seed.ts',
  'src/server.ts',
  'test/api.test.ts',
  'tsconfig.json',
];

describe('create-mfx', () => {
  let cwd = '';
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'create-mfx-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('writes a SQLite project by default, with only the SQLite driver', () => {
    const run = create(cwd, ['my-app', '--no-install']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Created my-app \(sqlite\): \.gitignore, README\.md, package\.json/);
    assert.match(run.stdout, /Next:\n {2}cd my-app\n {2}npm install\n {2}npm run dev\n/);
    const dir = join(cwd, 'my-app');
    assert.deepEqual(tree(dir), FILES);

    const pkg = readJson(join(dir, 'package.json'));
    assert.equal(pkg.name, 'my-app');
    assert.equal(pkg.type, 'module');
    assert.deepEqual(Object.keys(pkg.scripts), ['dev', 'build', 'start', 'seed', 'test']);
    assert.equal(pkg.scripts.start, 'node --max-semi-space-size=2 dist/src/server.js');
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['@mfx/runtime', 'better-sqlite3']);
    assert.deepEqual(Object.keys(pkg.devDependencies).sort(), ['@mfx/compiler', '@types/node', 'ts-patch', 'typescript']);

    const tsconfig = readJson(join(dir, 'tsconfig.json'));
    assert.deepEqual(tsconfig.compilerOptions.plugins, [
      { transform: '@mfx/compiler/transform', transformProgram: true, entries: ['src/models.ts'], outDir: '.mfx' },
    ]);
    const database = readFileSync(join(dir, 'src/database.ts'), 'utf8');
    assert.match(database, /openSqlite/);
    assert.doesNotMatch(database, /openPostgres/);
    assert.match(database, /DATABASE_URL = 'sqlite:\.\/app\.db'/);
    assert.match(readFileSync(join(dir, 'scripts/dev.mjs'), 'utf8'), /\['--db', 'sqlite:\.\/app\.db'\]/);
    assert.equal(readFileSync(join(dir, '.gitignore'), 'utf8').split('\n').includes('.mfx/'), true);
  });

  it('writes a PostgreSQL project with --db postgres, with pg and no SQLite driver', () => {
    const run = create(cwd, ['shop', '--db', 'postgres', '--no-install']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\(postgres\)/);
    assert.match(run.stdout, /PostgreSQL database named in src\/database\.ts/);
    const dir = join(cwd, 'shop');
    assert.deepEqual(tree(dir), FILES);
    const pkg = readJson(join(dir, 'package.json'));
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['@mfx/runtime', 'pg', 'pg-cursor']);
    assert.equal(JSON.stringify(pkg).includes('sqlite'), false);
    const database = readFileSync(join(dir, 'src/database.ts'), 'utf8');
    assert.match(database, /openPostgres/);
    assert.doesNotMatch(database, /openSqlite/);
    assert.match(database, /DATABASE_URL = 'postgres:\/\/postgres@127\.0\.0\.1:5432\/shop'/);
    assert.match(database, /TEST_DATABASE_URL = 'postgres:\/\/postgres@127\.0\.0\.1:5432\/shop_test'/);
  });

  it('takes --db from npm_config_db, which npm sets for `npm create mfx my-app --db postgres` without --', () => {
    const run = create(cwd, ['shop', '--no-install'], { npm_config_db: 'postgres' });
    assert.equal(run.code, 0, run.stderr);
    assert.ok('pg' in readJson(join(cwd, 'shop/package.json')).dependencies);
  });

  it('depends on the versions this repository builds and tests with', () => {
    assert.equal(create(cwd, ['a', '--no-install']).code, 0);
    assert.equal(create(cwd, ['b', '--db', 'postgres', '--no-install']).code, 0);
    const sqliteApp = readJson(join(cwd, 'a/package.json'));
    const pgApp = readJson(join(cwd, 'b/package.json'));
    const rootPkg = readJson(join(root, 'package.json'));
    const runtimePkg = readJson(join(root, 'runtime/package.json'));
    const compilerPkg = readJson(join(root, 'compiler/package.json'));
    // Wherever the runtime lists a driver (a dependency, or an optional peer), the app asks for the same range.
    const runtimeRange = (name: string) =>
      runtimePkg.peerDependencies?.[name] ?? runtimePkg.dependencies?.[name] ?? runtimePkg.devDependencies?.[name] ?? rootPkg.devDependencies?.[name];
    assert.equal(sqliteApp.dependencies['@mfx/runtime'], `^${runtimePkg.version}`);
    assert.equal(sqliteApp.devDependencies['@mfx/compiler'], `^${compilerPkg.version}`);
    assert.equal(sqliteApp.dependencies['better-sqlite3'], runtimeRange('better-sqlite3'));
    assert.equal(pgApp.dependencies.pg, runtimeRange('pg'));
    assert.equal(pgApp.dependencies['pg-cursor'], runtimeRange('pg-cursor'));
    for (const name of ['typescript', 'ts-patch', '@types/node']) assert.equal(sqliteApp.devDependencies[name], rootPkg.devDependencies[name], name);
    assert.deepEqual(sqliteApp.engines, runtimePkg.engines, 'a new project runs where the runtime does');
    const own = readJson(join(root, 'packages/create-mfx/package.json'));
    assert.deepEqual(own.engines, runtimePkg.engines);
    assert.equal(own.version, runtimePkg.version, 'create-mfx is released with the mfx packages');
  });

  it('fills in every placeholder, with a development API key of its own per project', () => {
    assert.equal(create(cwd, ['a', '--no-install']).code, 0);
    assert.equal(create(cwd, ['b', '--no-install']).code, 0);
    for (const app of ['a', 'b']) {
      for (const file of tree(join(cwd, app))) assert.doesNotMatch(readFileSync(join(cwd, app, file), 'utf8'), /\{\{\w+\}\}/, `${app}/${file}`);
    }
    const key = (app: string) => /const DEV_API_KEY = '([^']+)'/.exec(readFileSync(join(cwd, app, 'src/app.ts'), 'utf8'))?.[1];
    assert.match(key('a') ?? '', /^dev-[A-Za-z0-9_-]{24}$/);
    assert.notEqual(key('a'), key('b'));
  });

  it('writes into an existing empty directory, and into . when it is empty', () => {
    mkdirSync(join(cwd, 'empty'));
    const run = create(cwd, ['empty', '--no-install']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(tree(join(cwd, 'empty')), FILES);

    mkdirSync(join(cwd, 'here'));
    const inPlace = create(join(cwd, 'here'), ['.', '--no-install']);
    assert.equal(inPlace.code, 0, inPlace.stderr);
    assert.match(inPlace.stdout, /^Created \. \(sqlite\)/);
    assert.doesNotMatch(inPlace.stdout, /cd /);
    assert.equal(readJson(join(cwd, 'here/package.json')).name, 'here');
  });

  it('makes an npm package name of the directory name', () => {
    assert.equal(create(cwd, ['My Cool_App!', '--no-install']).code, 0);
    assert.equal(readJson(join(cwd, 'My Cool_App!/package.json')).name, 'my-cool_app');
    assert.match(readFileSync(join(cwd, 'My Cool_App!/src/database.ts'), 'utf8'), /TEST_DATABASE_URL = 'sqlite::memory:'/);
  });

  it('refuses a directory that is not empty, and writes nothing', () => {
    mkdirSync(join(cwd, 'taken'));
    writeFileSync(join(cwd, 'taken/notes.txt'), 'mine');
    const run = create(cwd, ['taken', '--no-install']);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, 'create-mfx: taken is not empty (it holds notes.txt); name a new directory, or empty this one first\n');
    assert.equal(run.stdout, '');
    assert.deepEqual(tree(join(cwd, 'taken')), ['notes.txt']);
    assert.equal(readFileSync(join(cwd, 'taken/notes.txt'), 'utf8'), 'mine');
  });

  it('refuses a file in the way, and writes nothing', () => {
    writeFileSync(join(cwd, 'app'), 'a file');
    const run = create(cwd, ['app', '--no-install']);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, 'create-mfx: app exists and is not a directory\n');
    assert.deepEqual(tree(cwd), ['app']);
  });

  /** A stand-in for a package manager on PATH that records where and how it ran, and exits with `code`. */
  function fakeManager(name: string, code: number): { path: string; calls: () => string[] } {
    const dir = join(cwd, '.bin');
    mkdirSync(dir, { recursive: true });
    const log = join(cwd, `${name}.log`);
    writeFileSync(join(dir, name), `#!/bin/sh\necho "$PWD $*" >> "${log}"\nexit ${code}\n`, { mode: 0o755 });
    return { path: `${dir}:${process.env.PATH}`, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
  }

  it('installs the dependencies with npm unless --no-install', () => {
    const npm = fakeManager('npm', 0);
    const run = create(cwd, ['my-app'], { PATH: npm.path });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(npm.calls(), [`${join(cwd, 'my-app')} install`]);
    assert.match(run.stdout, /Installing dependencies with npm install…/);
    assert.match(run.stdout, /Next:\n {2}cd my-app\n {2}npm run dev\n/);
  });

  it('installs with the package manager that ran it (pnpm create mfx)', () => {
    const pnpm = fakeManager('pnpm', 0);
    const run = create(cwd, ['my-app'], { PATH: pnpm.path, npm_config_user_agent: 'pnpm/9.1.0 npm/? node/v20.20.2 linux x64' });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(pnpm.calls(), [`${join(cwd, 'my-app')} install`]);
    assert.match(run.stdout, /Next:\n {2}cd my-app\n {2}pnpm dev\n/);
  });

  it('keeps the files and exits 1 when the install fails', () => {
    const npm = fakeManager('npm', 1);
    const run = create(cwd, ['my-app'], { PATH: npm.path });
    assert.equal(run.code, 1);
    assert.equal(run.stderr, 'create-mfx: npm install failed in my-app; the files are written, fix the cause and run it again\n');
    assert.deepEqual(tree(join(cwd, 'my-app')), FILES);
  });

  for (const flag of ['--help', '-h']) {
    it(`${flag} prints the usage and writes nothing`, () => {
      const run = create(cwd, [flag]);
      assert.equal(run.code, 0);
      assert.match(run.stdout, /^usage: npm create mfx@latest <directory> \[-- --db sqlite\|postgres\]\n/);
      assert.match(run.stdout, /--no-install/);
      assert.equal(run.stderr, '');
      assert.deepEqual(readdirSync(cwd), []);
    });
  }

  it('--help wins over a directory given with it', () => {
    const run = create(cwd, ['my-app', '--help']);
    assert.equal(run.code, 0);
    assert.deepEqual(readdirSync(cwd), []);
  });

  it('--version prints the version', () => {
    const run = create(cwd, ['--version']);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, `${readJson(join(root, 'packages/create-mfx/package.json')).version}\n`);
  });

  const mistakes: [string, string[], string][] = [
    ['no directory', [], 'create-mfx: name the directory to create, e.g. npm create mfx@latest my-app\n'],
    ['two directories', ['a', 'b'], 'create-mfx: one directory at a time; got "a", "b"\n'],
    ['an unknown database', ['a', '--db', 'mysql'], 'create-mfx: --db must be one of sqlite, postgres; got "mysql"\n'],
    ['--db without a value', ['a', '--db'], "create-mfx: Option '--db <value>' argument missing\n"],
    ['an unknown option', ['a', '--typo'], "create-mfx: Unknown option '--typo'"],
  ];
  for (const [what, args, message] of mistakes) {
    it(`refuses ${what} with exit 2 and writes nothing`, () => {
      const run = create(cwd, args);
      assert.equal(run.code, 2);
      assert.ok(run.stderr.startsWith(message), run.stderr);
      assert.equal(run.stdout, '');
      assert.deepEqual(readdirSync(cwd), []);
    });
  }
});
