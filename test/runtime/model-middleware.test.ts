// Issue 20, item 4: the spec's `Middleware` model option, given in code at
// registration (`app.register(loaded, { Model: { middleware } })`): per-step
// hook lists scoped to that model, run after the app's hooks on each step
// and position; a model's replacement wins over the app's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type App, createServer, type Hook, type ModelOverrides, validate } from '@mfx/runtime';
import { loadFixture } from '../support/fixtures.js';
import { memoryLogger } from '../support/server.js';
import { eachBackend, useServer } from '../support/suite.js';

const seen: string[] = [];
const mark = (name: string): Hook => async (_ctx, next) => {
  seen.push(name);
  await next();
};

const overrides: Record<string, ModelOverrides> = {
  Event: {
    middleware: {
      auth: [mark('event:auth')],
      validate: [mark('event:validate'), validate.forbidden({ field: 'title', values: ['forbidden'] }), { hook: mark('event:validate:after'), position: 'after' }],
      service: [{ hook: mark('event:service:create'), ops: ['create'] }],
      response: [
        {
          hook: async (ctx) => {
            seen.push('event:response:replace');
            ctx.respond(ctx.op === 'create' ? 201 : 200, { data: { replaced: 'by the model' } });
          },
          position: 'replace',
          ops: ['read'],
        },
      ],
    },
  },
};

function appHooks(app: App): void {
  // Registered after app.register, yet they run before the model's own on the same step and position.
  app.use('auth', mark('app:auth'));
  app.use('validate', mark('app:validate'));
  app.use('validate', mark('app:validate:after'), { position: 'after' });
  app.use('response', async (ctx) => {
    seen.push('app:response:replace');
    ctx.respond(200, { data: { replaced: 'by the app' } });
  }, { position: 'replace', ops: ['read'] });
}

eachBackend('model middleware', (backend) => {
  const server = useServer(backend, { fixture: 'validation', overrides, setup: appHooks, validateResponses: false });
  const run = async (method: string, path: string, body?: unknown) => {
    seen.length = 0;
    const res = await server.request(method, path, body === undefined ? {} : { body });
    return { res, seen: [...seen] };
  };

  it('the model\'s hooks run after the app\'s on each step and position, and only for its ops', async () => {
    const { res, seen: order } = await run('POST', '/events', { title: 'Launch' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(order, ['app:auth', 'event:auth', 'app:validate', 'event:validate', 'app:validate:after', 'event:validate:after', 'event:service:create']);
    const updated = await run('PATCH', `/events/${res.body.data.id}`, { title: 'Launch 2' });
    assert.equal(updated.res.status, 200);
    assert.ok(!updated.seen.includes('event:service:create'), 'scoped to create');
  });

  it('they run only for their model', async () => {
    const { res, seen: order } = await run('POST', '/members', { email: 'm@example.com', name: 'M' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(order, ['app:auth', 'app:validate', 'app:validate:after']);
  });

  it('a ready-made validation hook works as model middleware (its 422, nothing written)', async () => {
    const before = Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM events'))[0]!.n);
    const { res } = await run('POST', '/events', { title: 'forbidden' });
    assert.deepEqual([res.status, res.body], [422, { error: { code: 'VALIDATION_ERROR', message: 'the Event is not valid; see details', details: [{ field: 'title', message: 'must not be forbidden' }] } }]);
    assert.equal(Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM events'))[0]!.n), before);
  });

  it('a model\'s replace hook wins over the app\'s; other models keep the app\'s', async () => {
    const created = (await run('POST', '/events', { title: 'Replaced' })).res.body.data;
    const own = await run('GET', `/events/${created.id}`);
    assert.deepEqual(own.res.body, { data: { replaced: 'by the model' } });
    assert.ok(!own.seen.includes('app:response:replace'));
    const member = (await run('POST', '/members', { email: 'r@example.com', name: 'R' })).res.body.data;
    assert.deepEqual((await run('GET', `/members/${member.id}`)).res.body, { data: { replaced: 'by the app' } });
  });
});

describe('model middleware at registration', () => {
  const register = async (middleware: unknown) => {
    const app = createServer({ logger: memoryLogger(), handleSignals: false });
    try {
      app.register(await loadFixture('validation'), { Event: { middleware } as ModelOverrides });
    } finally {
      assert.deepEqual(app.registry.all(), [], 'nothing was registered');
    }
  };

  it('an unknown step, a hook that is not a function or a bad op is refused naming the model, and nothing is registered', async () => {
    await assert.rejects(register({ authn: [mark('x')] }), { message: 'mfx: the middleware of model Event names step "authn"; steps are auth, deserialize, validate, service, db, response' });
    await assert.rejects(register({ auth: mark('x') }), { message: 'mfx: the middleware of model Event at step auth must be a list of hooks' });
    await assert.rejects(register({ auth: [mark('x'), 'nope'] }), { message: 'mfx: the middleware of model Event at auth[1] must be a hook (ctx, next) => Promise<void> or { hook, position?, ops? }' });
    await assert.rejects(register({ auth: [{ hook: mark('x'), ops: ['publish'] }] }), { message: /unknown operation "publish" in a auth hook scope/ });
  });

  it('middleware for a model the manifest does not declare is refused', async () => {
    const app = createServer({ logger: memoryLogger(), handleSignals: false });
    await assert.rejects(
      (async () => app.register(await loadFixture('validation'), { Ghost: { middleware: { auth: [mark('x')] } } }))(),
      { message: /overrides name model Ghost, which .* does not declare/ },
    );
  });
});
