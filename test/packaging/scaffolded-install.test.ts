// mfx as a new user gets it: every package of this repository packed with
// `npm pack`, a project scaffolded by the packed create-mfx (through npm exec,
// as `npm create mfx` does) in a temporary directory outside the repository,
// the tarballs installed there (third-party packages from the npm registry),
// built with tspc, started with plain node (no loader), called over HTTP and
// through the typed client, and the project's own `npm test` run; then the
// packed @mfx/admin installed beside them serves the app's list page. Reports the
// install footprint of the SQLite-only and the PostgreSQL-only app.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, it, type TestContext } from 'node:test';
// Before suite.js: these load openapi-typescript and TypeScript, which would block the event
// loop for seconds while suite.js waits on its PostgreSQL probe (and skip the PostgreSQL half).
import { appDatabase, checkClientTypes, childEnv, root, runOk, startApp } from '../create-mfx/support.js';
import { walkthrough } from '../create-mfx/typed-client/app-client.js';
import { eachBackend } from '../support/suite.js';

const work = mkdtempSync(join(tmpdir(), 'mfx-packed-'));
after(() => rmSync(work, { recursive: true, force: true }));

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const workspaces = (): string[] => {
  const packages = join(root, 'packages');
  return ['runtime', 'compiler', ...readdirSync(packages).map((name) => `packages/${name}`)].filter((dir) => existsSync(join(root, dir, 'package.json')));
};

/**
 * The environment of npm in the scaffolded project: none of the npm_* variables
 * of the `npm test` running this file (they describe this repository), and
 * better-sqlite3's prebuilt addon from a local directory (see `prebuilds`).
 */
function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(childEnv()).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD'));
  return { ...env, npm_config_better_sqlite3_local_prebuilds: join(work, 'prebuilds'), npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false', ...extra };
}
const npm = (cwd: string, args: string[], env?: NodeJS.ProcessEnv) => runOk('npm', args, { cwd, env: npmEnv(env) });

interface Packed {
  /** Package name → tarball path. */
  tarballs: Map<string, string>;
}

let packing: Promise<Packed> | undefined;
/** Packs every workspace package once for the whole file. */
function packed(): Promise<Packed> {
  packing ??= (async () => {
    const out = join(work, 'tarballs');
    mkdirSync(out, { recursive: true });
    const args = ['pack', '--json', '--pack-destination', out, ...workspaces().flatMap((dir) => ['--workspace', dir])];
    const listed = JSON.parse(await runOk('npm', args, { cwd: root, env: childEnv() }).then((text) => text.slice(text.indexOf('['))));
    const tarballs = new Map<string, string>(listed.map((entry: { name: string; filename: string }) => [entry.name, join(out, entry.filename)]));
    localPrebuild();
    return { tarballs };
  })();
  return packing;
}

/**
 * better-sqlite3 downloads its prebuilt addon from GitHub at install, which
 * this machine cannot reach (it then compiles for minutes). prebuild-install
 * also looks in `npm_config_better_sqlite3_local_prebuilds` first: this puts
 * the addon this repository's install built there, in the release's archive
 * layout, so the scaffolded app installs it as a user's machine would.
 */
function localPrebuild(): void {
  const { version } = readJson(join(root, 'node_modules/better-sqlite3/package.json'));
  const stage = join(work, 'prebuilds/stage/build/Release');
  mkdirSync(stage, { recursive: true });
  const addon = join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  const archive = join(work, 'prebuilds', `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
  writeFileSync(join(stage, 'better_sqlite3.node'), readFileSync(addon));
  const tar = spawnSync('tar', ['-czf', archive, '-C', join(work, 'prebuilds/stage'), 'build'], { encoding: 'utf8' });
  assert.equal(tar.status, 0, `tar -czf the prebuilt addon: ${tar.stderr}`);
}

/** Every package directory installed under `dir/node_modules`, nested ones too. */
function installedPackages(dir: string): string[] {
  const found: string[] = [];
  const visit = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const path = join(modules, entry);
      if (entry.startsWith('@')) {
        for (const scoped of readdirSync(path)) visitPackage(join(path, scoped));
      } else visitPackage(path);
    }
  };
  const visitPackage = (path: string) => {
    if (!existsSync(join(path, 'package.json'))) return;
    found.push(path);
    visit(join(path, 'node_modules'));
  };
  visit(join(dir, 'node_modules'));
  return found;
}

/** Bytes of the files under `path` (symlinks not followed), leaving out `skip` directories. */
function bytes(path: string, skip: (path: string) => boolean = () => false): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  if (skip(path)) return 0;
  return readdirSync(path).reduce((sum, entry) => sum + bytes(join(path, entry), skip), 0);
}

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/** Package count and size of node_modules, all of it and what `npm install --omit=dev` keeps. */
async function footprint(dir: string): Promise<{ all: string; production: string }> {
  const all = installedPackages(dir);
  const listed = await npm(dir, ['ls', '--omit=dev', '--all', '--parseable']);
  const production = [...new Set(listed.trim().split('\n').slice(1))].filter((path) => path.includes('node_modules'));
  const productionBytes = production.reduce((sum, path) => sum + bytes(path, (p) => p !== path && p.endsWith('/node_modules')), 0);
  return {
    all: `${all.length} packages, ${mb(bytes(join(dir, 'node_modules')))}`,
    production: `${production.length} packages, ${mb(productionBytes)}`,
  };
}

/** The scaffolded app with the packed admin panel mounted, gated by an API key; plain node, no loader. */
const ADMIN_SERVER = `import { admin } from '@mfx/admin';
import { apiKey } from '@mfx/runtime';
import { createApp } from './dist/src/server.js';

const app = await createApp();
await app.plugin(admin({ title: 'Packed admin', secure: false, auth: [apiKey({ keys: { [process.env.ADMIN_KEY]: { userId: 'admin', roles: ['admin'] } } })] }));
const { url } = await app.start();
console.log(\`admin serving \${url}\`);
`;

eachBackend('a project from packed tarballs, outside the repository', (backend) => {
  const db = backend.name === 'postgres' ? 'postgres' : 'sqlite';

  it('scaffolds, installs, builds, serves with plain node, answers the typed client and passes its own npm test', { timeout: 10 * 60_000 }, async (t: TestContext) => {
    const started = Date.now();
    const step = (what: string) => t.diagnostic(`${((Date.now() - started) / 1000).toFixed(1)} s: ${what}`);
    const { tarballs } = await packed();
    step(`packed ${[...tarballs.keys()].join(', ')}`);
    assert.deepEqual([...tarballs.keys()].sort(), workspaces().map((dir) => readJson(join(root, dir, 'package.json')).name).sort());

    // npm create mfx@latest is npm exec create-mfx@latest; here the package is the packed tarball.
    const name = `app-${db}`;
    const base = join(work, db);
    mkdirSync(base, { recursive: true });
    await npm(base, ['exec', '--yes', `--package=${tarballs.get('create-mfx')}`, '--', 'create-mfx', name, '--db', db, '--no-install'], {
      npm_config_cache: join(work, 'npx-cache'),
    });
    const dir = join(base, name);
    assert.ok(relative(root, dir).startsWith('..'), 'the project is outside the repository');
    step('scaffolded with the packed create-mfx');

    const sqliteVersion = readJson(join(root, 'node_modules/better-sqlite3/package.json')).version;
    const driver = db === 'sqlite' ? [`better-sqlite3@${sqliteVersion}`] : [];
    await npm(dir, ['install', '--prefer-offline', tarballs.get('@mfx/runtime')!, tarballs.get('@mfx/compiler')!, ...driver]);
    const installed = installedPackages(dir).map((path) => relative(join(dir, 'node_modules'), path));
    const names = new Set(installed.map((path) => path.split('/node_modules/').at(-1)));
    const size = await footprint(dir);
    step(`installed: ${size.all}; production (--omit=dev): ${size.production}`);
    t.diagnostic(`install footprint of a ${db === 'sqlite' ? 'SQLite' : 'PostgreSQL'}-only app: ${size.all} (production: ${size.production})`);
    if (db === 'sqlite') {
      assert.ok(names.has('better-sqlite3'));
      for (const absent of ['pg', 'ioredis']) assert.ok(!names.has(absent), `${absent} is not installed in a SQLite-only app`);
    } else {
      assert.ok(names.has('pg'));
      for (const absent of ['better-sqlite3', 'prebuild-install', 'ioredis']) assert.ok(!names.has(absent), `${absent} is not installed in a PostgreSQL-only app`);
      assert.deepEqual(installed.filter((path) => existsSync(join(dir, 'node_modules', path, 'binding.gyp'))), [], 'no native addon is built');
    }

    // npm test builds first (tspc: type check, dist/ and the manifest), then runs the compiled tests with node:test.
    const testDb = await appDatabase(backend, dir, 'test');
    t.after(testDb.drop);
    const tested = await npm(dir, ['test'], { TEST_DB_URL: testDb.url });
    assert.match(tested, /^(#|ℹ) pass 7$/m);
    assert.match(tested, /^(#|ℹ) fail 0$/m);
    assert.ok(existsSync(join(dir, '.mfx/manifest.json')));
    assert.ok(existsSync(join(dir, 'dist/src/server.js')));
    step('npm test: built and passed');

    // npm start's own command (`node --max-semi-space-size=2 dist/src/server.js`): plain node, no loader, production mode with a key of its own.
    const start = (readJson(join(dir, 'package.json')).scripts.start as string).split(' ');
    assert.equal(start[0], 'node');
    const serveDb = await appDatabase(backend, dir, 'serve');
    t.after(serveDb.drop);
    const apiKey = `prod-${Date.now()}-0123456789abcdef`;
    const app = await startApp(start.slice(1), { cwd: dir, env: { DB_WRITE_URL: serveDb.url, NODE_ENV: 'production', API_KEY: apiKey } });
    try {
      step(`serving ${app.url}`);
      const send = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(app.url + path, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as any };
      };
      const project = await send('POST', '/projects', { name: 'Packed and shipped' });
      assert.equal(project.status, 201, JSON.stringify(project.body));
      assert.equal(project.body.data.slug, 'packed-and-shipped');
      const task = await send('POST', '/tasks', { title: 'Install from tarballs', projectId: project.body.data.id });
      assert.equal(task.status, 201, JSON.stringify(task.body));
      const projects = await send('GET', '/projects');
      assert.equal(projects.status, 200);
      assert.deepEqual(projects.body.data.map((p: { name: string }) => p.name), ['Packed and shipped']);
      const tasks = await send('GET', `/tasks?filter=projectId:eq:${project.body.data.id}&include=project`);
      assert.equal(tasks.body.meta.total, 1);
      assert.equal(tasks.body.data[0].project.name, 'Packed and shipped');

      await checkClientTypes(app.url);
      const typed = await walkthrough(app.url, apiKey);
      assert.deepEqual(typed.refused, { status: 401, code: 'UNAUTHORIZED' });
      assert.equal(typed.includedProjectName, typed.project.name);
      assert.equal(typed.updated.status, 'done');
      assert.deepEqual(typed.afterDelete, { status: 404, code: 'NOT_FOUND' });
      step('answered over HTTP and through the typed client');
    } finally {
      assert.equal(await app.stop(), 0, app.output());
    }

    // The packed @mfx/admin installed beside them, mounted on the same app, its list page served by plain node.
    await npm(dir, ['install', '--prefer-offline', tarballs.get('@mfx/admin')!]);
    assert.ok(existsSync(join(dir, 'node_modules/@mfx/admin/dist/index.js')));
    writeFileSync(join(dir, 'admin-server.mjs'), ADMIN_SERVER);
    const adminKey = `admin-${Date.now()}-0123456789abcdef`;
    const panel = await startApp(['admin-server.mjs'], { cwd: dir, env: { DB_WRITE_URL: serveDb.url, ADMIN_KEY: adminKey } });
    try {
      const origin = new URL(panel.url).origin;
      const page = (path: string, headers: Record<string, string> = { 'x-api-key': adminKey }) => fetch(origin + path, { headers });
      assert.equal((await page('/admin/projects', {})).status, 401, 'the gate refuses a visitor without the key');
      const list = await page('/admin/projects');
      assert.equal(list.status, 200);
      assert.match(list.headers.get('content-type') ?? '', /^text\/html/);
      const html = await list.text();
      assert.match(html, /<title>Projects · Packed admin<\/title>/);
      assert.match(html, />Packed and shipped<\/a>/);
      for (const asset of ['admin.css', 'admin.js']) assert.equal((await page(`/admin/static/${asset}`, {})).status, 200, `${asset} ships in the tarball`);
      step('the packed @mfx/admin served the list page');
    } finally {
      assert.equal(await panel.stop(), 0, panel.output());
    }
  });
});

