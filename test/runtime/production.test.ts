// Production validation (startup rule 7): every generated operation needs an
// authenticator or a scoped public declaration; actions and standalone routes
// need their access flag; HTTPAccessControlled needs real access middleware.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type App, allowAnonymous, apiKey, bearer, block, cors, createServer, loadManifest } from '@mfx/runtime';
import setupBlog from '../../fixtures/blog/app.js';
import { SECRET } from '../support/auth.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { productionProblems as problems } from '../support/production.js';

async function blogApp(setup: (app: App) => void = () => {}, config: Parameters<typeof createServer>[0] = {}): Promise<App> {
  const app = createServer({ handleSignals: false, ...config });
  app.register(loadManifest(await fixtureManifestDir('blog')));
  setup(app);
  return app;
}

describe('production validation', () => {
  it('passes the blog app: public reads and sign-up declared, writes behind bearer, login public', async () => {
    const app = await blogApp(setupBlog);
    assert.doesNotThrow(() => app.validateProduction());
  });

  it('lists every generated operation with neither an authenticator nor a public declaration', async () => {
    const app = await blogApp();
    const found = problems(app);
    // 6 models × list, read, create, update, delete, plus User history (versioned).
    assert.equal(found.length, 31);
    assert.ok(found.includes(
      "Tag delete (DELETE /api/tags/:id) has neither an authenticator nor a public declaration: scope one onto it, e.g. app.use('auth', bearer({...}), { models: ['Tag'], ops: ['delete'] }), or declare it public with app.use('auth', allowAnonymous(), { models: ['Tag'], ops: ['delete'] })",
    ));
    assert.throws(() => app.validateProduction(), /^ConfigError: mfx: production validation failed \(31 problems\):/);
  });

  it('counts authenticators, scoped anonymous declarations and blocks; nothing else', async () => {
    const app = await blogApp((a) => {
      a.use('auth', allowAnonymous(), { ops: ['list', 'read', 'history'] });
      a.use('auth', bearer({ secret: SECRET }), { models: ['User', 'Post', 'Comment'] });
      a.use('auth', apiKey({ keys: { 'key-0123456789abcdef': {} } }), { models: ['Tag', 'PostTag'], ops: ['create', 'update'] });
      a.use('auth', block('delete'), { models: ['Tag', 'PostTag', 'Company'] });
      // Not an authenticator: does not count.
      a.use('auth', async (_ctx, next) => next(), { models: ['Company'] });
    });
    assert.deepEqual(problems(app).map((p) => p.split(' has ')[0]), ['Company create (POST /api/companies)', 'Company update (PATCH /api/companies/:id)']);
  });

  it('lists actions without an access flag; public ones and ones with an authenticator pass', async () => {
    const app = await blogApp((a) => {
      a.use('auth', allowAnonymous(), { ops: ['list', 'read', 'create', 'update', 'delete', 'history'] });
      a.action({ method: 'POST', path: '/reports/run', handler: () => 1 });
      a.action({ method: 'GET', path: '/health/deep', public: true, handler: () => 1 });
      a.action({ method: 'POST', path: '/posts/:id/publish', auth: [bearer({ secret: SECRET })], handler: () => 1 });
    });
    assert.deepEqual(problems(app), ['action POST /api/reports/run has no access flag: give it an authenticator (auth: [bearer({...})]) or declare it public: true']);
  });

  it('lists standalone routes (search, files) registered without their access flag', async () => {
    const app = await blogApp((a) => {
      a.use('auth', allowAnonymous(), { ops: ['list', 'read', 'create', 'update', 'delete', 'history'] });
      a.standaloneRoutes.push({ kind: 'search', method: 'GET', path: '/api/search' }, { kind: 'files', method: 'POST', path: '/api/files', access: 'authenticated' });
    });
    assert.deepEqual(problems(app), ['search route GET /api/search has no access flag: declare it public or put an authenticator in front of it']);
  });

  it('accepts HTTPAccessControlled backed by access middleware, and refuses it backed only by CORS', async () => {
    const guarded = await blogApp((a) => a.httpMiddleware((_req, _res, next) => next()), { httpAccessControlled: true });
    assert.deepEqual(problems(guarded), []);
    const corsOnly = await blogApp((a) => a.httpMiddleware(cors({ origins: ['https://app.example.com'] })), { httpAccessControlled: true });
    const found = problems(corsOnly);
    assert.equal(found[0], 'httpAccessControlled is set but no access-controlling HTTP middleware is registered (CORS does not count); add it with app.httpMiddleware(...) or unset httpAccessControlled');
    assert.equal(found.length, 32);
  });

  it('reports a bearer secret shorter than 32 bytes', async () => {
    const app = await blogApp((a) => {
      a.use('auth', allowAnonymous(), { ops: ['list', 'read', 'history'] });
      a.use('auth', bearer({ secret: 'short' }), { ops: ['create', 'update', 'delete'] });
    });
    assert.deepEqual(problems(app), ['bearer() secret is 5 bytes; use at least 32 random bytes (HS256 is only as strong as its secret)']);
  });

  it('describes the security of every operation as plain data', async () => {
    const app = await blogApp(setupBlog);
    const security = app.describeSecurity();
    assert.deepEqual(security.schemes, { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } });
    const postCreate = security.operations.find((o) => o.model === 'Post' && o.op === 'create')!;
    assert.deepEqual(postCreate, { model: 'Post', op: 'create', security: ['bearerAuth'], publicDeclared: false, blocked: false });
    const signUp = security.operations.find((o) => o.model === 'User' && o.op === 'create')!;
    assert.equal(signUp.publicDeclared, true);
    const login = security.actions.find((a) => a.name === 'login')!;
    assert.equal(login.path, '/auth/login');
    assert.equal(login.public, true);
  });
});
