// Singleton models: routes, lazy creation from defaults, upserting PATCH, validation, scoped rows.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('singletons', (backend) => {
  const server = useServer(backend, {
    fixture: 'lifecycle',
    setup(app) {
      // Plays a tenancy / force-filter hook at the DB step: x-tenant scopes the row; x-bad-scope sends shapes a singleton refuses.
      app.use('db', async (ctx, next) => {
        const tenant = ctx.req.headers['x-tenant'];
        if (typeof tenant === 'string') ctx.scope.push({ field: 'tenant', value: tenant });
        const bad = ctx.req.headers['x-bad-scope'];
        if (bad === 'in') ctx.scope.push({ field: 'tenant', value: ['a', 'b'] });
        if (bad === 'join') ctx.scope.push({ field: 'company.name', value: 'acme' });
        await next();
      }, { models: ['TenantSettings'] });
    },
  });

  const rows = async (table: string) => server.app.db.raw(`SELECT * FROM ${table} ORDER BY created_at`);

  it('GET creates the row lazily from the column defaults, with id "singleton"', async () => {
    assert.equal((await rows('settings')).length, 0);
    const res = await server.request('GET', '/settings');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, 'singleton');
    assert.equal(res.body.data.siteName, 'My site');
    assert.equal(res.body.data.maxUsers, 10);
    assert.equal(res.body.data.theme, 'light');
    assert.equal(res.body.data.region, null);
    assert.equal((await server.request('GET', '/settings')).body.data.created_at, res.body.data.created_at);
    assert.equal((await rows('settings')).length, 1);
  });

  it('PATCH upserts and validates', async () => {
    const res = await server.request('PATCH', '/settings', { body: { siteName: 'Renamed', maxUsers: 50 } });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, 'singleton');
    assert.equal(res.body.data.siteName, 'Renamed');
    assert.equal((await server.request('GET', '/settings')).body.data.maxUsers, 50);
    const bad = await server.request('PATCH', '/settings', { body: { maxUsers: 0, theme: 'neon' } });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(bad.body.error.details.map((d: { field: string }) => d.field).sort(), ['maxUsers', 'theme']);
    const immutable = await server.request('PATCH', '/settings', { body: { region: 'eu' } });
    assert.equal(immutable.status, 200);
    assert.equal(immutable.body.data.region, null, 'immutable fields are stripped on update');
    const [row] = await rows('settings');
    assert.equal(row.maxUsers, 50);
    assert.equal(row.theme, 'light');
  });

  it('PATCH before any GET creates the row', async () => {
    const res = await server.request('PATCH', '/tenant_settings', { body: { timezone: 'Europe/Berlin' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, 'singleton');
    assert.equal(res.body.data.timezone, 'Europe/Berlin');
  });

  it('POST, DELETE, and the id routes answer 405', async () => {
    assert.equal((await server.request('PATCH', '/settings', { body: { siteName: 'Renamed' } })).status, 200);
    for (const [method, path] of [
      ['POST', '/settings'],
      ['DELETE', '/settings'],
      ['GET', '/settings/singleton'],
      ['PATCH', '/settings/singleton'],
      ['DELETE', '/settings/singleton'],
    ]) {
      const res = await server.request(method, path, method === 'POST' || method === 'PATCH' ? { body: { siteName: 'x' } } : {});
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.body.error.code, 'METHOD_NOT_ALLOWED');
    }
    assert.equal((await rows('settings')).length, 1);
    assert.equal((await rows('settings'))[0].siteName, 'Renamed');
  });

  it('scoped: one row per scope value with an ordinary id; no scope value reaches the global row', async () => {
    assert.equal((await server.request('PATCH', '/tenant_settings', { body: { timezone: 'Europe/Berlin' } })).status, 200);
    const acme = await server.request('GET', '/tenant_settings', { headers: { 'x-tenant': 'acme' } });
    assert.equal(acme.status, 200);
    assert.notEqual(acme.body.data.id, 'singleton');
    assert.equal(acme.body.data.tenant, 'acme');
    assert.equal(acme.body.data.timezone, 'UTC', 'each tenant gets a fresh row, not the global one');
    const patched = await server.request('PATCH', '/tenant_settings', { body: { timezone: 'Asia/Tokyo', tenant: 'globex' }, headers: { 'x-tenant': 'acme' } });
    assert.equal(patched.body.data.id, acme.body.data.id);
    assert.equal(patched.body.data.tenant, 'acme', 'the scope column cannot be moved');
    const globex = await server.request('GET', '/tenant_settings', { headers: { 'x-tenant': 'globex' } });
    assert.notEqual(globex.body.data.id, acme.body.data.id);
    assert.equal(globex.body.data.timezone, 'UTC');
    const global = await server.request('GET', '/tenant_settings');
    assert.equal(global.body.data.id, 'singleton');
    assert.equal(global.body.data.timezone, 'Europe/Berlin');
  });

  it('scoped: concurrent first accesses create one row; the losers read the winner’s', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => server.request('GET', '/tenant_settings', { headers: { 'x-tenant': 'initech' } })));
    assert.deepEqual(results.map((r) => r.status), Array(10).fill(200));
    assert.equal(new Set(results.map((r) => r.body.data.id)).size, 1);
    const count = await server.app.db.raw('SELECT COUNT(*) AS n FROM tenant_settings WHERE tenant = ?', ['initech']);
    assert.equal(Number(count[0].n), 1);
  });

  it('refuses an in filter or a filter on another table as a singleton scope (500, logged, nothing written)', async () => {
    const before = (await rows('tenant_settings')).length;
    for (const bad of ['in', 'join']) {
      const res = await server.request('GET', '/tenant_settings', { headers: { 'x-bad-scope': bad } });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body.error, { code: 'INTERNAL', message: 'internal server error' });
    }
    assert.ok(server.logs.some((l) => l.message === 'singleton scope refused' && String(l.fields.err).includes('not an in filter')));
    assert.ok(server.logs.some((l) => l.message === 'singleton scope refused' && String(l.fields.err).includes('plain equality on one of its own columns')));
    assert.equal((await rows('tenant_settings')).length, before);
  });
});
