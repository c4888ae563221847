// Startup order, sealing, auto-migration and manifest warnings.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type App, ConfigError, createServer, loadManifest, offlineAdapter, openSqlite, RegistrationClosedError } from '@mfx/runtime';
import { fixtureManifestDir, loadFixture } from '../support/fixtures.js';
import { memoryLogger, request } from '../support/server.js';
import { eachBackend } from '../support/suite.js';

describe('sealing', () => {
  it('seals on the first handler build: later registrations fail and change nothing', async () => {
    const app = createServer({ handleSignals: false, logger: memoryLogger() });
    app.register(await loadFixture('blog'));
    app.setDB(openSqlite(':memory:', app.registry));
    const names = app.registry.modelNames();
    const again = loadManifest(await fixtureManifestDir('blog'));
    app.handler();
    assert.equal(app.sealed, true);
    assert.throws(() => app.register(again), RegistrationClosedError);
    assert.throws(() => app.use('auth', async (_c, n) => n()), RegistrationClosedError);
    assert.throws(() => app.httpMiddleware((_q, _s, n) => n()), RegistrationClosedError);
    assert.throws(() => app.setDB(openSqlite(':memory:', app.registry)), RegistrationClosedError);
    assert.deepEqual(app.registry.modelNames(), names);
    assert.equal(app.handler(), app.handler(), 'the handler is built once');
  });

  it('plugins: run at once, awaited by ready() and start(), refused once sealed; an unfinished one stops a synchronous handler build', async () => {
    const app = createServer({ handleSignals: false, logger: memoryLogger() });
    app.register(await loadFixture('blog'));
    app.setDB(offlineAdapter(app.registry));
    const order: string[] = [];
    await app.plugin(function first(given: App) {
      assert.equal(given, app);
      order.push('first');
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = app.plugin(async function slowOne() {
      await released;
      order.push('slow');
    });
    assert.throws(() => app.handler(), (error: Error) => error instanceof ConfigError && error.message === 'mfx: the plugin "slowOne" has not finished: await app.plugin(...) before building the handler, or let app.start() wait for it');
    assert.equal(app.sealed, false, 'the refused build sealed nothing');
    assert.throws(() => app.plugin('not a function' as never), (error: Error) => error instanceof ConfigError && /a plugin is a function \(app\) => void \| Promise<void>, got string/.test(error.message));
    release();
    await app.ready();
    await slow;
    assert.deepEqual(order, ['first', 'slow']);
    app.handler();
    assert.throws(() => app.plugin(function late() {}), RegistrationClosedError);
  });

  it('a plugin that throws is a ConfigError naming it, from plugin() itself or, when asynchronous, from ready()', async () => {
    const app = createServer({ handleSignals: false, logger: memoryLogger() });
    assert.throws(() => app.plugin(function broken() { throw new Error('missing option'); }), { name: 'ConfigError', message: 'mfx: the plugin "broken" failed: missing option' });
    // Not awaited: no unhandled rejection, ready() reports it.
    void app.plugin(async () => { throw new Error('late failure'); });
    await assert.rejects(app.ready(), { name: 'ConfigError', message: 'mfx: the plugin (anonymous) failed: late failure' });
  });

  it('refuses a default_locale outside locales.supported, naming the model or field, its source and the directive', async () => {
    const app = createServer({ handleSignals: false, logger: memoryLogger(), locales: { supported: ['en', 'de'] } });
    app.register(await loadFixture('i18n'));
    app.setDB(offlineAdapter(app.registry));
    assert.throws(
      () => app.handler(),
      (error: Error) => error instanceof ConfigError && /^mfx: Article\.motto \(\S*fixtures\/i18n\/models\.ts:16:3\): default_locale:fr is not in locales\.supported \(en, de\); add it there or change the directive$/.test(error.message),
    );
    assert.equal(app.sealed, false);
    const fine = createServer({ handleSignals: false, logger: memoryLogger(), locales: { supported: ['en', 'de', 'fr'] } });
    fine.register(await loadFixture('i18n'));
    fine.setDB(offlineAdapter(fine.registry));
    fine.handler();
  });

  it('refuses to start when a model was registered after the adapter was opened', async () => {
    const app = createServer({ handleSignals: false, logger: memoryLogger() });
    const dir = await fixtureManifestDir('blog');
    const loaded = loadManifest(dir);
    const early = { ...loaded, manifest: { ...loaded.manifest, models: loaded.manifest.models.filter((m) => m.name !== 'Tag' && m.name !== 'PostTag') } };
    const late = { ...loaded, manifest: { ...loaded.manifest, models: loaded.manifest.models.filter((m) => m.name === 'Tag' || m.name === 'PostTag') } };
    app.register(early);
    app.setDB(openSqlite(':memory:', app.registry));
    app.register(late);
    assert.throws(() => app.handler(), /PostTag, Tag were registered after the database adapter was opened/);
  });

  it('refuses hook scopes that name unknown models when sealing', async () => {
    const app = createServer({ handleSignals: false, logger: memoryLogger() });
    app.register(await loadFixture('blog'));
    app.use('auth', async (_c, n) => n(), { models: ['Postt'] });
    app.setDB(openSqlite(':memory:', app.registry));
    assert.throws(() => app.handler(), /a hook scope names model Postt, which is not registered/);
  });

  it('refuses unknown steps, positions and operations at registration', () => {
    const app = createServer({ handleSignals: false });
    assert.throws(() => app.use('auht' as never, async () => {}), /unknown pipeline step "auht"/);
    assert.throws(() => app.use('auth', async () => {}, { position: 'around' as never }), /unknown hook position "around"/);
    assert.throws(() => app.use('auth', async () => {}, { ops: ['lsit' as never] }), /unknown operation "lsit"/);
  });
});

eachBackend('migration', (backend) => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('building the handler alone does not migrate; start does', async () => {
    const app = createServer({ port: 0, host: '127.0.0.1', handleSignals: false, logger: memoryLogger() });
    app.register(await loadFixture('blog'));
    const { adapter, drop } = await backend.open(app.registry);
    cleanups.push(drop);
    app.setDB(adapter);
    app.handler();
    assert.equal((await adapter.introspect()).has('posts'), false);
    const { port } = await app.start();
    assert.equal((await adapter.introspect()).has('posts'), true);
    const res = await request(`http://127.0.0.1:${port}/api/posts`, 'GET');
    assert.equal(res.status, 200);
    await app.stop();
  });

  it('disableAutoMigrate skips the migration on start', async () => {
    const app = createServer({ port: 0, host: '127.0.0.1', handleSignals: false, disableAutoMigrate: true, logger: memoryLogger() });
    app.register(await loadFixture('blog'));
    const { adapter, drop } = await backend.open(app.registry);
    cleanups.push(drop);
    app.setDB(adapter);
    await app.start();
    assert.equal((await adapter.introspect()).has('posts'), false);
    await app.stop();
  });

  it('adds missing columns, never drops, and warns about drift naming table and column', async () => {
    const logger = memoryLogger();
    const app = createServer({ handleSignals: false, logger });
    app.register(await loadFixture('blog'));
    const { adapter, drop } = await backend.open(app.registry);
    cleanups.push(drop);
    app.setDB(adapter);
    await adapter.init(logger);
    // An older schema: tags without created_at's sibling column "name", plus a column no model declares.
    await adapter.exec(
      `CREATE TABLE tags (id TEXT PRIMARY KEY, created_at ${backend.name === 'postgres' ? 'timestamptz' : 'TEXT'} NOT NULL, updated_at ${backend.name === 'postgres' ? 'timestamptz' : 'TEXT'} NOT NULL, legacy TEXT, name INTEGER)`,
    );
    await adapter.exec(`INSERT INTO tags (id, created_at, updated_at, legacy, name) VALUES ('t1', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z', 'kept', 5)`);
    const report = await app.migrate();
    assert.ok(report.createdTables.includes('posts'));
    assert.equal(report.createdTables.includes('tags'), false);
    assert.ok(report.warnings.some((w) => w.includes('tags.legacy') && w.includes('never drops')), report.warnings.join('\n'));
    assert.ok(report.warnings.some((w) => w.includes('tags.name') && /declares text/.test(w)), report.warnings.join('\n'));
    assert.ok(logger.lines.some((l) => l.level === 'warn' && String(l.message).includes('tags.legacy')));
    const legacy = await adapter.raw('SELECT legacy FROM tags');
    assert.deepEqual(legacy.map((r) => r.legacy), ['kept']);

    // A column the model gained since: dropped here, added back by the next migration with its default.
    await adapter.exec('DROP TABLE "comments"');
    await adapter.exec(
      `CREATE TABLE comments (id TEXT PRIMARY KEY, body TEXT NOT NULL DEFAULT '', "postId" TEXT NOT NULL DEFAULT '', "userId" TEXT, created_at ${backend.name === 'postgres' ? 'timestamptz' : 'TEXT'} NOT NULL, updated_at ${backend.name === 'postgres' ? 'timestamptz' : 'TEXT'} NOT NULL, deleted_at ${backend.name === 'postgres' ? 'timestamptz' : 'TEXT'})`,
    );
    await adapter.exec(`INSERT INTO comments (id, body, "postId", created_at, updated_at) VALUES ('c1', 'old', 'p', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z')`);
    const second = await app.migrate();
    assert.deepEqual(second.addedColumns, ['comments.approved']);
    if (backend.name === 'postgres') {
      assert.ok(second.warnings.some((w) => w.includes('comments.postId has rows whose parent does not exist')), second.warnings.join('\n'));
    }
    const rows = await adapter.raw('SELECT approved FROM comments');
    assert.equal(Boolean(rows[0].approved), true, 'the added NOT NULL column takes its default on existing rows');
    await adapter.exec(`DELETE FROM comments WHERE id = 'c1'`);
    const third = await app.migrate();
    assert.deepEqual(third.addedColumns, [], 'migration is idempotent');
    assert.deepEqual(third.warnings.filter((w) => w.includes('parent does not exist')), [], 'the constraint validates once the orphan is gone');
    assert.deepEqual(third.createdTables, []);
    await adapter.close();
  });
});

describe('manifest warnings', () => {
  it('warns when the manifest is older than its sources or from another compiler version', async () => {
    const work = mkdtempSync(join(tmpdir(), 'mfx-stale-'));
    const source = await fixtureManifestDir('blog');
    cpSync(source, join(work, '.mfx'), { recursive: true });
    const manifestPath = join(work, '.mfx', 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    assert.deepEqual(loadManifest(source).warnings, [], 'a fresh build has no warnings');

    manifest.sources = manifest.sources.map((s: { file: string; sha256: string }) => ({ ...s, sha256: '0'.repeat(64) }));
    manifest.compiler.version = '0.0.0-other';
    writeFileSync(manifestPath, JSON.stringify(manifest));
    const warnings = loadManifest(join(work, '.mfx')).warnings;
    assert.ok(warnings.some((w) => /older than its sources/.test(w) && /mfx build/.test(w)), warnings.join('\n'));
    assert.ok(warnings.some((w) => /0\.0\.0-other/.test(w)), warnings.join('\n'));

    const logger = memoryLogger();
    const app = createServer({ handleSignals: false, logger });
    app.register(loadManifest(join(work, '.mfx')));
    assert.ok(logger.lines.some((l) => l.level === 'warn' && /older than its sources/.test(String(l.message))));
  });

  it('explains a missing manifest', () => {
    assert.throws(() => loadManifest(join(tmpdir(), 'definitely-not-here')), /no manifest at .*run `mfx build/);
  });
});
