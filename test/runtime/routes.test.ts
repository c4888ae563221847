// One route table per model: the router mounts its rows, OPTIONS and 405
// take Allow from them, production validation names them and the OpenAPI
// document describes exactly them, for a plain, a versioned, a singleton
// (versioned, yet without a history route), a headless model and one with
// the optional routes still to come.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type App, Registry } from '@mfx/runtime';
import { modelRoutes, type RouteRow } from '../../runtime/src/registry/model-routes.js';
import { loadFixture } from '../support/fixtures.js';
import { productionProblems as problems } from '../support/production.js';
import { eachBackend, useServer } from '../support/suite.js';

const describeRow = (r: RouteRow) => `${r.method} ${r.pattern} ${r.kind}${r.op === r.kind ? '' : `/${r.op}`}${r.served ? '' : ' (not served)'}`;

describe('the route table of a model', () => {
  let registry: Registry;
  before(async () => {
    registry = new Registry();
    registry.register(await loadFixture('routes'));
  });
  const rows = (name: string) => modelRoutes(registry.require(name, 'the test')).rows.map(describeRow);
  const crud = (table: string) => [
    `GET /${table} list`,
    `HEAD /${table} list`,
    `POST /${table} create`,
    `GET /${table}/:id read`,
    `HEAD /${table}/:id read`,
    `PATCH /${table}/:id update`,
    `DELETE /${table}/:id delete`,
    `OPTIONS /${table} options`,
    `OPTIONS /${table}/:id options`,
  ];

  it('gives a plain model the CRUD routes, HEAD mirroring GET, and OPTIONS on both paths', () => {
    assert.deepEqual(rows('Plain'), crud('plains'));
    assert.equal(modelRoutes(registry.require('Plain', 'the test')).allow('/plains'), 'GET, HEAD, POST, OPTIONS');
    assert.equal(modelRoutes(registry.require('Plain', 'the test')).allow('/plains/:id'), 'GET, HEAD, PATCH, DELETE, OPTIONS');
  });

  it('adds history to a versioned model', () => {
    assert.deepEqual(rows('Journal'), [...crud('journals'), 'GET /journals/:id/history history', 'HEAD /journals/:id/history history']);
  });

  it('gives a singleton GET, HEAD, PATCH and OPTIONS on the table path, no history, and closes the id subtree', () => {
    const routes = modelRoutes(registry.require('Preferences', 'the test'));
    assert.deepEqual(routes.rows.map(describeRow), ['GET /preferences read', 'HEAD /preferences read', 'PATCH /preferences update', 'OPTIONS /preferences options']);
    assert.deepEqual(routes.closed, [{ pattern: '/preferences/:id', instead: 'GET or PATCH', at: '/preferences' }]);
  });

  it('gives a headless model no routes', () => {
    assert.deepEqual(rows('Ledger'), []);
    assert.deepEqual(modelRoutes(registry.require('Ledger', 'the test')).closed, []);
  });

  it('lists aggregate and export (run as list), both served', () => {
    assert.deepEqual(rows('Metric'), [
      ...crud('metrics'),
      'GET /metrics/aggregate aggregate/list',
      'HEAD /metrics/aggregate aggregate/list',
      'GET /metrics/export export/list',
      'HEAD /metrics/export export/list',
    ]);
  });

  it('is computed once per model', () => {
    const model = registry.require('Plain', 'the test');
    assert.equal(modelRoutes(model), modelRoutes(model));
  });
});

/** The served rows of every model of the app. */
const servedRows = (app: App) => app.registry.all().flatMap((model) => modelRoutes(model).rows.filter((r) => r.served).map((row) => ({ model, row })));

const bodies: Record<string, unknown> = { Plain: { name: 'a' }, Journal: { entry: 'first' }, Metric: { value: 1 }, Preferences: { theme: 'dark' } };

eachBackend('the route table drives every consumer', (backend) => {
  const server = useServer(backend, { fixture: 'routes' });

  it('serves every served row (2xx), DELETE last, and mounts nothing for a row not served', async () => {
    const ids: Record<string, string> = {};
    for (const name of ['Plain', 'Journal', 'Metric']) {
      const created = await server.request('POST', `/${server.app.registry.require(name, 'the test').table}`, { body: bodies[name] });
      assert.equal(created.status, 201);
      ids[name] = created.body.data.id;
    }
    const rows = servedRows(server.app).sort((a, b) => Number(a.row.method === 'DELETE') - Number(b.row.method === 'DELETE'));
    assert.equal(rows.length, 9 + 11 + 6 + 11);
    for (const { model, row } of rows) {
      const path = row.pattern.replace(':id', ids[model.name] ?? '') + (row.kind === 'aggregate' ? '?aggregate=%7B%22select%22%3A%5B%7B%22op%22%3A%22count%22%7D%5D%7D' : '');
      const withBody = row.method === 'POST' || row.method === 'PATCH';
      const res = await server.request(row.method, path, withBody ? { body: bodies[model.name] } : {});
      assert.ok(res.status >= 200 && res.status < 300, `${row.method} ${path} (${row.kind}) answered ${res.status}: ${res.text}`);
    }
    const headless = await server.request('GET', '/ledgers');
    assert.equal(headless.status, 404);
    assert.equal(headless.body.error.message, 'no route for GET /api/ledgers');
  });

  it('answers OPTIONS and 405 with the methods the table serves at the path', async () => {
    const patterns = new Set(servedRows(server.app).map(({ model, row }) => `${model.name} ${row.pattern}`));
    for (const entry of patterns) {
      const [name, pattern] = entry.split(' ');
      const routes = modelRoutes(server.app.registry.require(name, 'the test'));
      const expected = routes.rows.filter((r) => r.served && r.pattern === pattern).map((r) => r.method).join(', ');
      assert.equal(routes.allow(pattern), expected);
      const path = pattern.replace(':id', 'any-id');
      if (routes.rows.some((r) => r.pattern === pattern && r.method === 'OPTIONS')) {
        const options = await server.request('OPTIONS', path);
        assert.equal(options.status, 204, `OPTIONS ${path}`);
        assert.equal(options.headers.get('allow'), expected, `OPTIONS ${path}`);
      }
      const put = await server.request('PUT', path);
      assert.equal(put.status, 405, `PUT ${path}`);
      assert.equal(put.headers.get('allow'), expected, `PUT ${path}`);
    }
    for (const path of ['/preferences/some-id', '/preferences/history']) {
      const closed = await server.request('GET', path);
      assert.equal(closed.status, 405);
      assert.equal(closed.headers.get('allow'), '');
      assert.equal(closed.body.error.message, 'preferences is a singleton: use GET or PATCH on /api/preferences');
    }
  });

  it('documents exactly the served rows', () => {
    const documented = Object.entries(server.app.document().paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => key !== 'parameters')
        .map((method) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    );
    const probes = ['live', 'ready', 'health', 'openapi.json', 'docs', 'docs/assets/:file'].flatMap((p) => [`GET /${p}`, `HEAD /${p}`]);
    const served = servedRows(server.app).map(({ row }) => `${row.method} ${row.pattern}`);
    assert.deepEqual(documented.sort(), [...served, ...probes].sort());
  });

  it('names in production validation every operation the table serves, with its route, and nothing else', () => {
    const expected = [
      ...new Set(servedRows(server.app).filter(({ row }) => row.op !== 'options' && row.method !== 'HEAD' && row.kind === row.op).map(({ model, row }) => `${model.name} ${row.op} (${row.method} /api${row.pattern})`)),
    ];
    const found = problems(server.app).map((p) => p.split(' has neither')[0]);
    assert.deepEqual(found.sort(), expected.sort());
    // A versioned singleton has no history route, so nothing asks to protect one.
    assert.deepEqual(
      found.filter((p) => p.startsWith('Preferences')),
      ['Preferences read (GET /api/preferences)', 'Preferences update (PATCH /api/preferences)'],
    );
    // Aggregate and export run as list: no operation of their own.
    assert.equal(found.filter((p) => p.startsWith('Metric list')).length, 1);
  });
});
