// App.handOver: a started app hands its listener to an app built from
// another manifest on the same database (what `mfx serve --watch` does on
// each new manifest). Requests in flight finish where they started, and a
// shutdown waits for those of both.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type App, createServer, describeHook } from '@mfx/runtime';
import { sharedDatabase } from '../../runtime/src/cli/reload.js';
import { loadFixture } from '../support/fixtures.js';
import { memoryLogger, request, startServer } from '../support/server.js';
import { eachBackend } from '../support/suite.js';
import { gate, Recorder } from '../support/wait.js';

/** A Service hook that holds requests sent with `x-hold`, telling `reached` which app holds them. */
function holding(app: App, name: string, reached: Recorder<string>, opened: Promise<void>): void {
  app.use('service', async (ctx, next) => {
    if (ctx.req.headers['x-hold']) {
      reached.push(name);
      await opened;
    }
    await next();
  });
}

/** A hook whose setup registers a starter (with its undo) and a closer, each telling `events` what ran. */
function starting(name: string, events: Recorder<string>) {
  return describeHook((_ctx, next) => next(), {
    role: 'other',
    label: `starting(${name})`,
    setup({ onStart, onStop }) {
      onStart(
        () => void events.push(`${name} started`),
        () => void events.push(`${name} stopped`),
      );
      onStop(() => void events.push(`${name} closed`));
    },
  });
}

eachBackend('App.handOver', (backend) => {
  it('the listener serves the next app; a shutdown waits for the requests in flight on both, then stops', async () => {
    const held = gate();
    const reached = new Recorder<string>();
    const first = await startServer(backend, { setup: (app) => holding(app, 'first', reached, held.opened) });
    try {
      assert.equal((await first.request('POST', '/tags', { body: { name: 'before the hand-over' } })).status, 201);
      const onFirst = request(`${first.url}/tags`, 'GET', { headers: { 'x-hold': 'yes' } });
      await reached.next((name) => name === 'first');

      const next = createServer({ logger: memoryLogger(), handleSignals: false, documentation: { public: true } });
      next.register(await loadFixture('blog'));
      holding(next, 'next', reached, held.opened);
      next.action({ name: 'generation', method: 'GET', path: '/generation', public: true, handler: async () => ({ generation: 2 }) });
      next.setDB(sharedDatabase(first.app.db, next.registry));
      next.handler();
      await next.migrate();
      first.app.handOver(next);

      // The same port answers with the next app's routes, over the same database.
      assert.deepEqual((await request(`${first.url}/generation`, 'GET')).body, { data: { generation: 2 } });
      assert.deepEqual((await request(`${first.url}/tags`, 'GET')).body.data.map((t: { name: string }) => t.name), ['before the hand-over']);
      assert.equal((await request(`${first.url}/ready`, 'GET')).status, 200);
      const onNext = request(`${first.url}/tags`, 'GET', { headers: { 'x-hold': 'yes' } });
      await reached.next((name) => name === 'next');

      let stopped = false;
      const stopping = first.app.stop().then(() => (stopped = true));
      const draining = await first.logLine((line) => line.message === 'draining: no longer accepting connections');
      assert.deepEqual(draining.fields, { inflight: 2 });
      assert.equal(stopped, false);
      held.open();
      const [a, b] = await Promise.all([onFirst, onNext]);
      for (const answer of [a, b]) {
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get('connection'), 'close');
      }
      await stopping;
      assert.ok(first.logs.some((line) => line.message === 'stopped'));
      // The database the apps shared is closed once, by the app that opened it.
      await assert.rejects(first.app.db.all('SELECT 1 AS one'));
    } finally {
      held.open();
      await first.close();
    }
  });

  it('only a started app hands over, and only to an app never started', async () => {
    const first = await startServer(backend);
    try {
      const idle = createServer({ logger: memoryLogger(), handleSignals: false });
      assert.throws(() => idle.handOver(createServer({ logger: memoryLogger(), handleSignals: false })), {
        name: 'ConfigError',
        message: 'mfx: handOver needs a started app that is not stopping',
      });
      assert.throws(() => first.app.handOver(first.app), { name: 'ConfigError', message: 'mfx: handOver takes an app that was never started' });
      // Still serving its own routes.
      assert.equal((await first.request('GET', '/tags')).status, 200);
    } finally {
      await first.close();
    }
  });

  it('stops what the app handed over from started before the next app starts its own; the shutdown closes every app', async () => {
    const events = new Recorder<string>();
    const first = await startServer(backend, { setup: (app) => void app.use('service', starting('first', events)) });
    try {
      assert.deepEqual(events.seen, ['first started']);
      const nextApp = async (name: string) => {
        const next = createServer({ logger: memoryLogger(), handleSignals: false, documentation: { public: true } });
        next.register(await loadFixture('blog'));
        next.use('service', starting(name, events));
        next.setDB(sharedDatabase(first.app.db, next.registry));
        next.handler();
        await next.migrate();
        return next;
      };
      await first.app.handOver(await nextApp('second'));
      assert.deepEqual(events.seen, ['first started', 'first stopped', 'second started']);
      assert.equal((await request(`${first.url}/tags`, 'GET')).status, 200);
      await first.app.handOver(await nextApp('third'));
      assert.deepEqual(events.seen, ['first started', 'first stopped', 'second started', 'second stopped', 'third started']);
      await first.app.stop();
      // Closers run at shutdown only (a module's shared resources must outlive a hand-over): the serving app's first.
      assert.deepEqual(events.seen.slice(5), ['third closed', 'first closed', 'second closed']);
    } finally {
      await first.close();
    }
  });
});
