// Tenancy and force filters: every read and write confined to the caller's
// tenant, creates stamped, cross-tenant access 404, no tenant 403.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { bearer, forceFilter, tenancy } from '@mfx/runtime';
import { SECRET, bearerHeader, token } from '../support/auth.js';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

const as = (tenant: string | null, user = 'u-1') => bearerHeader(token({ sub: user, ...(tenant ? { org: tenant } : {}) }));
const ACME = as('acme');
const GLOBEX = as('globex');

eachBackend('tenancy', (backend) => {
  let acmeProject: { id: string };
  let globexProject: { id: string };

  const server = useServer(backend, {
    fixture: 'tenancy',
    setup(app) {
      app.use('auth', bearer({ secret: SECRET, tenantClaim: 'org' }), { models: ['Project', 'Task'] });
      app.use('db', tenancy({ column: 'tenantId' }), { models: ['Project', 'Task'] });
    },
  });
  before(async () => {
    acmeProject = (await server.request('POST', '/projects', { headers: ACME, body: { name: 'Rocket' } })).body.data;
    globexProject = (await server.request('POST', '/projects', { headers: GLOBEX, body: { name: 'Doomsday' } })).body.data;
  });

  it('stamps creates with the caller tenant, whatever the body says', async () => {
    assert.equal((acmeProject as { tenantId?: string }).tenantId, 'acme');
    const planted = await server.request('POST', '/projects', { headers: ACME, body: { name: 'Planted', tenantId: 'globex' } });
    assert.equal(planted.status, 201);
    assert.equal(planted.body.data.tenantId, 'acme');
    const globexList = await server.request('GET', '/projects', { headers: GLOBEX });
    assert.deepEqual(globexList.body.data.map((p: { name: string }) => p.name), ['Doomsday']);
  });

  it('lists only the caller tenant rows', async () => {
    const acme = await server.request('GET', '/projects', { headers: ACME });
    assert.equal(acme.status, 200);
    assert.ok(acme.body.data.every((p: { tenantId: string }) => p.tenantId === 'acme'));
    assert.equal(acme.body.meta.total, acme.body.data.length);
    assert.ok(!acme.body.data.some((p: { id: string }) => p.id === globexProject.id));
  });

  it('answers 404 for another tenant record on read, update and delete, and changes nothing', async () => {
    const read = await server.request('GET', `/projects/${globexProject.id}`, { headers: ACME });
    assert.equal(read.status, 404);
    assert.equal(read.body.error.code, 'NOT_FOUND');
    const update = await server.request('PATCH', `/projects/${globexProject.id}`, { headers: ACME, body: { name: 'Hijacked' } });
    assert.equal(update.status, 404);
    assert.equal(update.body.error.code, 'NOT_FOUND');
    const remove = await server.request('DELETE', `/projects/${globexProject.id}`, { headers: ACME });
    assert.equal(remove.status, 404);
    const still = await server.request('GET', `/projects/${globexProject.id}`, { headers: GLOBEX });
    assert.equal(still.status, 200);
    assert.equal(still.body.data.name, 'Doomsday');
  });

  it('cannot move a row to another tenant by update', async () => {
    const moved = await server.request('PATCH', `/projects/${acmeProject.id}`, { headers: ACME, body: { tenantId: 'globex', name: 'Rocket 2' } });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.data.tenantId, 'acme');
    assert.equal(moved.body.data.name, 'Rocket 2');
    assert.equal((await server.request('GET', `/projects/${acmeProject.id}`, { headers: GLOBEX })).status, 404);
  });

  it('serves own records on read, update and delete', async () => {
    const task = await server.request('POST', '/tasks', { headers: ACME, body: { title: 'Launch', projectId: acmeProject.id } });
    assert.equal(task.status, 201);
    assert.equal(task.body.data.tenantId, 'acme');
    assert.equal((await server.request('GET', `/tasks/${task.body.data.id}`, { headers: ACME })).status, 200);
    assert.equal((await server.request('GET', `/tasks/${task.body.data.id}`, { headers: GLOBEX })).status, 404);
    assert.equal((await server.request('DELETE', `/tasks/${task.body.data.id}`, { headers: GLOBEX })).status, 404);
    assert.equal((await server.request('DELETE', `/tasks/${task.body.data.id}`, { headers: ACME })).status, 204);
  });

  it('answers 403 FORBIDDEN when the tenant cannot be determined, and writes nothing', async () => {
    const before = (await server.request('GET', '/projects', { headers: ACME })).body.meta.total;
    const res = await server.request('POST', '/projects', { headers: as(null), body: { name: 'Nobody' } });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body.error, { code: 'FORBIDDEN', message: 'the tenant could not be determined: the credential carries no tenant' });
    assert.equal((await server.request('GET', '/projects', { headers: as(null) })).status, 403);
    assert.equal((await server.request('GET', '/projects', { headers: ACME })).body.meta.total, before);
  });

  it('leaves models outside the scope alone', async () => {
    assert.equal((await server.request('POST', '/labels', { body: { name: 'shared' } })).status, 201);
    assert.equal((await server.request('GET', '/labels')).body.meta.total, 1);
  });

  it('confines includes to the tenant', async () => {
    const task = await server.request('POST', '/tasks', { headers: ACME, body: { title: 'Countdown', projectId: acmeProject.id } });
    assert.equal(task.status, 201);
    const res = await server.request('GET', `/tasks?include=project`, { headers: ACME });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.data.length >= 1);
    assert.ok(res.body.data.every((t: { project: { tenantId: string } | null }) => !t.project || t.project.tenantId === 'acme'));
    const projects = await server.request('GET', `/projects?include=tasks`, { headers: GLOBEX });
    assert.ok(projects.body.data.every((p: { tasks: { tenantId: string }[] }) => p.tasks.every((t) => t.tenantId === 'globex')));
  });
  it('confines nested filters to the tenant', async () => {
    // An acme task pointing at globex's project (planted under the API): the nested filter
    // must not see the foreign project, so it cannot be used to probe globex's names.
    const now = new Date().toISOString();
    await server.app.db.raw('INSERT INTO tasks (id, title, "tenantId", "projectId", created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [
      'planted-task',
      'Probe',
      'acme',
      globexProject.id,
      now,
      now,
    ]);
    const res = await server.request('GET', `/tasks?filter=project.name:eq:Doomsday`, { headers: ACME });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.meta.total, 0);
    const own = await server.request('GET', `/tasks?filter=project.name:eq:Doomsday`, { headers: GLOBEX });
    assert.equal(own.status, 200);
    assert.ok(own.body.data.every((t: { tenantId: string }) => t.tenantId === 'globex'));
  });
  it('answers 404 for another tenant history and serves the own one', async () => {
    const foreign = await server.request('GET', `/projects/${globexProject.id}/history`, { headers: ACME });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'NOT_FOUND');
    const own = await server.request('GET', `/projects/${acmeProject.id}/history`, { headers: ACME });
    assert.equal(own.status, 200);
    assert.ok(own.body.data.length >= 1);
    assert.ok(own.body.data.every((h: { record_id: string }) => h.record_id === acmeProject.id));
  });
});

eachBackend('forceFilter', (backend) => {
  const server = useServer(backend, {
    fixture: 'tenancy',
    setup(app) {
      app.use('auth', bearer({ secret: SECRET, tenantClaim: 'org' }), { models: ['Project'] });
      // Owners see their own projects; callers without a user id see everything.
      app.use('db', forceFilter((ctx) => ({ ownerId: ctx.identity?.userId === 'root' ? null : ctx.identity?.userId })), { models: ['Project'] });
    },
  });

  it('applies the returned equality, and none for a nil value', async () => {
    const alice = as('acme', 'alice');
    const bob = as('acme', 'bob');
    const created = await server.request('POST', '/projects', { headers: alice, body: { name: 'Alice project', tenantId: 'acme' } });
    assert.equal(created.body.data.ownerId, 'alice');
    await server.request('POST', '/projects', { headers: bob, body: { name: 'Bob project', tenantId: 'acme' } });
    assert.deepEqual((await server.request('GET', '/projects', { headers: alice })).body.data.map((p: { name: string }) => p.name), ['Alice project']);
    assert.equal((await server.request('GET', `/projects/${created.body.data.id}`, { headers: bob })).status, 404);
    assert.equal((await server.request('GET', '/projects', { headers: as('acme', 'root') })).body.meta.total, 2);
  });
});

describe('tenancy at startup', () => {
  it('refuses a scoped model without the column, and a column no model has', async () => {
    await assert.rejects(
      startServer(sqlite, { fixture: 'tenancy', setup: (app) => void app.use('db', tenancy({ column: 'tenantId' }), { models: ['Project', 'Label'] }) }),
      /tenancy\(\{ column: 'tenantId' \}\) is scoped to Label, which has no field or column tenantId/,
    );
    await assert.rejects(startServer(sqlite, { fixture: 'tenancy', setup: (app) => void app.use('db', tenancy({ column: 'orgId' })) }), /no registered model has a field or column orgId/);
  });
});
