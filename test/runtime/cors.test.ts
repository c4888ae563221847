// CORS as router-level middleware: explicit origins, preflights answered 204
// before the pipeline, no CORS headers for other origins.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearer, cors } from '@mfx/runtime';
import { SECRET } from '../support/auth.js';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

const APP = 'https://app.example.com';

eachBackend('cors', (backend) => {
  let authRuns = 0;
  const server = useServer(backend, {
    setup(app) {
      app.httpMiddleware(cors({ origins: [APP], credentials: true }));
      app.use('auth', async (_ctx, next) => {
        authRuns++;
        await next();
      });
      app.use('auth', bearer({ secret: SECRET }), { models: ['Tag'] });
    },
  });

  const preflight = (origin: string, method = 'POST', headers = 'authorization, content-type') =>
    server.request('OPTIONS', '/tags', { headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });

  it('answers a valid preflight 204 before the pipeline (Auth does not run)', async () => {
    const runs = authRuns;
    const res = await preflight(APP);
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), APP);
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    assert.match(res.headers.get('access-control-allow-methods')!, /POST/);
    assert.match(res.headers.get('access-control-allow-headers')!, /Authorization/);
    assert.equal(res.headers.get('vary'), 'Origin');
    assert.ok(res.headers.get('x-request-id'));
    assert.equal(authRuns, runs);
  });

  it('lets a browser send X-Read-Primary (reads after its own write) by default', async () => {
    const res = await preflight(APP, 'GET', 'authorization, x-read-primary');
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), APP);
    assert.match(res.headers.get('access-control-allow-headers')!, /X-Read-Primary/);
  });

  it('adds CORS headers to actual requests from an allowed origin, 401s included', async () => {
    const res = await server.request('GET', '/tags', { headers: { origin: APP } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('access-control-allow-origin'), APP);
    assert.match(res.headers.get('access-control-expose-headers')!, /X-Request-Id/);
  });

  it('gives a disallowed origin no CORS headers (preflight falls through to the route)', async () => {
    const res = await preflight('https://evil.example.com');
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.equal(res.headers.get('access-control-allow-credentials'), null);
    const actual = await server.request('GET', '/companies', { headers: { origin: 'https://evil.example.com' } });
    assert.equal(actual.status, 200);
    assert.equal(actual.headers.get('access-control-allow-origin'), null);
  });

  it('refuses a preflight for a method or header it does not allow', async () => {
    assert.equal((await preflight(APP, 'PUT')).headers.get('access-control-allow-origin'), null);
    assert.equal((await preflight(APP, 'POST', 'x-secret-header')).headers.get('access-control-allow-origin'), null);
  });

  it('leaves requests without Origin alone', async () => {
    const res = await server.request('GET', '/companies');
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });
});

describe('cors configuration', () => {
  it('needs explicit origins and refuses a wildcard with credentials', () => {
    assert.throws(() => cors({ origins: [] }), /cors\(\) needs explicit origins/);
    assert.throws(() => cors({ origins: ['*'], credentials: true }), /a wildcard origin with credentials is refused/);
    assert.throws(() => cors({ origins: ['*', APP] }), /"\*" cannot be combined with explicit origins/);
    assert.throws(() => cors({ origins: ['https://app.example.com/'] }), /must be scheme:\/\/host\[:port\] with no path or trailing slash/);
    assert.doesNotThrow(() => cors({ origins: ['*'] }));
  });

  it('answers * to any origin when the wildcard is allowed without credentials', async () => {
    const server = await startServer(sqlite, { setup: (app) => void app.httpMiddleware(cors({ origins: ['*'] })) });
    try {
      const res = await server.request('GET', '/companies', { headers: { origin: 'https://anywhere.example' } });
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.equal(res.headers.get('access-control-allow-credentials'), null);
    } finally {
      await server.close();
    }
  });
});
