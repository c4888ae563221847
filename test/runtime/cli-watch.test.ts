// `mfx build --watch` and `mfx serve --watch`, as a developer runs them side
// by side: every wait is on a line the command prints, never on the clock.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { build } from '@mfx/compiler';
import { tempProject } from '../compiler/support.js';
import { cliSuite, type Running, servingUrl, startMfx } from '../support/cli.js';
import { sqliteFileBackend } from '../support/backends.js';
import { request } from '../support/server.js';
import { eachBackend, postgres, sqlite } from '../support/suite.js';

// The model's base lives in a file of its own, which the watcher must follow too (beside the tsconfig.json).
const reviewedV1 = `export interface Reviewed {\n  reviewer: string | null;\n}\n`;
const reviewedV2 = `export interface Reviewed {\n  reviewer: string | null;\n  score: number;\n}\n`;
const notes = (extra = '') => `import type { Model } from '@mfx/runtime';
import type { Reviewed } from './reviewed.js';

export interface Note extends Model, Reviewed {
  /** @mfx required */
  title: string;${extra}
}
`;
/** A throwaway project of ES modules (an --app module is imported as one). */
const esmProject = (files: Record<string, string>) => tempProject({ 'package.json': '{ "type": "module" }\n', ...files });

describe('mfx build --watch', () => {
  const projects: { remove(): void }[] = [];
  const running: Running[] = [];
  after(async () => {
    await Promise.all(running.map((r) => r.stop()));
    for (const project of projects) project.remove();
  });
  const watch = (files: Record<string, string>) => {
    const made = esmProject(files);
    projects.push(made);
    const build = startMfx(['build', 'src/notes.ts', '--out', 'out', '--watch'], { cwd: made.dir });
    running.push(build);
    const fields = () => (JSON.parse(readFileSync(made.path('out/manifest.json'), 'utf8')).models[0].fields as { name: string }[]).map((f) => f.name);
    return { project: made, build, fields };
  };

  it('builds again when a file the models import changes, keeps going after an error, and exits 0 on SIGINT', async () => {
    const { project, build, fields } = watch({ 'src/notes.ts': notes(), 'src/reviewed.ts': reviewedV1 });
    await build.line(/^mfx build: watching 3 files for changes \(Ctrl-C stops\)$/);
    assert.deepEqual(build.lines.seen.slice(0, 1), ['mfx build: 1 model → out']);
    assert.deepEqual(fields(), ['id', 'reviewer', 'title', 'created_at', 'updated_at']);

    writeFileSync(project.path('src/reviewed.ts'), reviewedV2);
    await build.line(/^mfx build: src\/reviewed\.ts changed, building again$/);
    await build.lines.count(2, (line) => line === 'mfx build: 1 model → out');
    assert.deepEqual(fields(), ['id', 'reviewer', 'score', 'title', 'created_at', 'updated_at']);

    // An error: reported, nothing written, still watching.
    writeFileSync(project.path('src/notes.ts'), notes('\n  /** @mfx min:1 */\n  body: string;'));
    await build.line(/^mfx build: src\/notes\.ts changed, building again$/);
    assert.match(await build.line(/: error: /), /^src\/notes\.ts:\d+:\d+: error: Note\.body: 'min' does not apply to a string field/);
    await build.line(/^mfx build: 1 error, nothing written$/);
    assert.equal(fields().includes('body'), false);

    writeFileSync(project.path('src/notes.ts'), notes('\n  /** @mfx minlen:1 */\n  body: string;'));
    await build.lines.count(3, (line) => line === 'mfx build: 1 model → out');
    assert.equal(fields().includes('body'), true);

    assert.deepEqual(await build.stop('SIGINT'), { code: 0, signal: null });
  });

  it('one rebuild for changes made together, and exits 0 on SIGTERM', async () => {
    const { project, build, fields } = watch({ 'src/notes.ts': notes(), 'src/reviewed.ts': reviewedV1 });
    await build.line(/^mfx build: watching 3 files/);
    writeFileSync(project.path('src/reviewed.ts'), reviewedV2);
    writeFileSync(project.path('src/notes.ts'), notes('\n  summary: string | null;'));
    await build.line(/^mfx build: src\/notes\.ts, src\/reviewed\.ts changed, building again$/);
    await build.lines.count(2, (line) => line === 'mfx build: 1 model → out');
    assert.deepEqual(fields(), ['id', 'reviewer', 'score', 'title', 'summary', 'created_at', 'updated_at']);
    assert.deepEqual(await build.stop('SIGTERM'), { code: 0, signal: null });
    assert.equal(build.lines.seen.filter((line) => line.endsWith('changed, building again')).length, 1);
  });
});

// The --app module: a request with `x-hold: yes` waits in a Service hook until POST /release.
// Its state lives in the module, so every app a reload builds shares it.
const appModule = `import type { App } from '@mfx/runtime';

let release!: () => void;
const released = new Promise<void>((resolve) => (release = resolve));

export default function setup(app: App): void {
  app.use('service', async (ctx, next) => {
    if (ctx.req.headers['x-hold'] === 'yes') {
      ctx.log.info({ requestId: ctx.requestId }, 'held');
      await released;
    }
    await next();
  });
  app.action({ name: 'release', method: 'POST', path: '/release', public: true, handler: async () => {
    release();
    return { released: true };
  } });
}
`;
const modelsV1 = `import type { Model } from '@mfx/runtime';

export interface Note extends Model {
  /** @mfx required */
  title: string;
}
`;
const modelsV2 = `import type { Model } from '@mfx/runtime';

export interface Note extends Model {
  /** @mfx required */
  title: string;
  /** @mfx default:3 */
  stars: number;
}

export interface Label extends Model {
  /** @mfx required */
  name: string;
}
`;

// The --app module of the relay test: publishEvents through an outbox whose relay ships to an in-process bus;
// each app a reload builds has its own outbox, and its relay logs its start, its stop and what it ships.
const relayModule = `import { type App, memoryBus, outboxBus, publishEvents } from '@mfx/runtime';

let built = 0;

export default async function setup(app: App): Promise<void> {
  const generation = ++built;
  const relayTo = memoryBus();
  await relayTo.subscribe({
    name: 'relayed',
    patterns: ['*.*'],
    handler: (event) => void app.log.info({ generation, type: event.type, recordId: event.recordId }, 'relayed'),
  });
  const outbox = outboxBus(() => app.db, { relayTo, interval: '20ms' });
  const start = outbox.start.bind(outbox);
  const stop = outbox.stop.bind(outbox);
  outbox.start = () => {
    start();
    app.log.info({ generation }, 'relay started');
  };
  outbox.stop = async () => {
    await stop();
    app.log.info({ generation }, 'relay stopped');
  };
  app.use('db', publishEvents(outbox), { position: 'after' });
}
`;

eachBackend(
  'mfx serve --watch',
  (backend) => {
    const projects: { remove(): void }[] = [];
    const cli = cliSuite(backend);
    // Registered after cliSuite's hook, so the projects go once the commands using them have stopped.
    after(() => {
      for (const project of projects) project.remove();
    });

    it('serves each new manifest on the same port, the rows kept; requests in flight finish on the old one; a broken manifest is logged and the old one serves on', async () => {
      const made = esmProject({ 'src/models.ts': modelsV1, 'src/app.ts': appModule });
      projects.push(made);
      const compile = () => {
        const result = build({ entries: ['src/models.ts'], outDir: 'out', cwd: made.dir });
        assert.equal(result.ok, true, JSON.stringify(result.diagnostics));
      };
      compile();
      let url = 'sqlite::memory:';
      if (backend.name !== 'sqlite') {
        url = (await cli.database()).url;
      }
      const serve = cli.start(['serve', '--watch', '--manifest', 'out', '--db', url, '--port', '0', '--app', 'src/app.ts'], { cwd: made.dir });
      const base = await servingUrl(serve);
      await serve.logLine({ msg: 'watching the manifest for changes' });

      const created = await request(`${base}/notes`, 'POST', { body: { title: 'kept' } });
      assert.equal(created.status, 201);
      const id = created.body.data.id;
      // A read held in its Service hook, in flight on the first app.
      const heldRead = request(`${base}/notes/${id}`, 'GET', { headers: { 'x-hold': 'yes' } });
      await serve.logLine({ msg: 'held' });

      writeFileSync(made.path('src/models.ts'), modelsV2);
      compile();
      const reloaded = await serve.logLine({ msg: 'manifest reloaded' });
      assert.equal(reloaded.generation, 2);
      assert.deepEqual(reloaded.createdTables, ['labels']);
      assert.deepEqual(reloaded.addedColumns, ['notes.stars']);

      // The same port serves the new models; the row written before the reload is there.
      const read = await request(`${base}/notes/${id}`, 'GET');
      assert.equal(read.status, 200);
      assert.equal(read.body.data.title, 'kept');
      assert.equal(read.body.data.stars, 3);
      assert.equal((await request(`${base}/labels`, 'POST', { body: { name: 'new model' } })).status, 201);

      // The held read ends on the app it started on: the first manifest's Note, without stars.
      assert.deepEqual((await request(`${base}/release`, 'POST')).body, { data: { released: true } });
      const held = await heldRead;
      assert.equal(held.status, 200);
      assert.equal(held.body.data.title, 'kept');
      assert.equal('stars' in held.body.data, false);

      // A manifest that does not load: logged, and the second one serves on.
      writeFileSync(made.path('out/manifest.json'), '{ "format": ');
      const failed = await serve.logLine({ msg: 'manifest reload failed; still serving the previous manifest' });
      assert.match(String(failed.err), /manifest\.json is not valid JSON/);
      assert.equal(failed.level, 50);
      assert.equal((await request(`${base}/notes/${id}`, 'GET')).body.data.stars, 3);

      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
      assert.equal(serve.lines.seen.filter((line) => line.includes('"msg":"manifest reloaded"')).length, 1);
    });

    it('a reloaded app runs its starters as a first start does: the outbox relay of the previous app stops, the new one starts and ships', async () => {
      const made = esmProject({ 'src/models.ts': modelsV1, 'src/app.ts': relayModule });
      projects.push(made);
      const compile = () => {
        const result = build({ entries: ['src/models.ts'], outDir: 'out', cwd: made.dir });
        assert.equal(result.ok, true, JSON.stringify(result.diagnostics));
      };
      compile();
      const url = backend.name === 'sqlite' ? 'sqlite::memory:' : (await cli.database()).url;
      const serve = cli.start(['serve', '--watch', '--manifest', 'out', '--db', url, '--port', '0', '--app', 'src/app.ts'], { cwd: made.dir });
      const base = await servingUrl(serve);
      await serve.logLine({ msg: 'watching the manifest for changes' });

      const before = await request(`${base}/notes`, 'POST', { body: { title: 'before the reload' } });
      assert.equal(before.status, 201);
      assert.equal((await serve.logLine({ msg: 'relayed', recordId: before.body.data.id })).generation, 1);

      writeFileSync(made.path('src/models.ts'), modelsV2);
      compile();
      await serve.logLine({ msg: 'manifest reloaded' });
      // The first relay stopped before the second started, both before the reload was reported.
      const lifecycle = () => serve.logs().filter((l) => ['relay started', 'relay stopped', 'manifest reloaded'].includes(String(l.msg))).map((l) => `${l.msg}${l.generation === undefined || l.msg === 'manifest reloaded' ? '' : ` ${l.generation}`}`);
      assert.deepEqual(lifecycle(), ['relay started 1', 'relay stopped 1', 'relay started 2', 'manifest reloaded']);

      const after = await request(`${base}/notes`, 'POST', { body: { title: 'after the reload' } });
      assert.equal(after.status, 201);
      assert.equal((await serve.logLine({ msg: 'relayed', recordId: after.body.data.id })).generation, 2);
      assert.equal((await request(`${base}/labels`, 'POST', { body: { name: 'new model' } })).status, 201);
      await serve.logLine({ msg: 'relayed', type: 'label.created', generation: 2 });

      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
      // Every event shipped once, by the relay running then; the shutdown stopped the second relay.
      const relayed = serve.logs().filter((l) => l.msg === 'relayed');
      assert.deepEqual(relayed.map((l) => l.generation), [1, 2, 2]);
      assert.ok(serve.logs().some((l) => l.msg === 'relay stopped' && l.generation === 2));
    });
  },
  [sqlite, sqliteFileBackend, postgres],
);
