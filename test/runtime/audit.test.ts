// Audit log: one record per write with model, operation, actor, tenant,
// request id, trace id and the diff; the sink never fails the request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AuditRecord, audit, bearer, transaction } from '@mfx/runtime';
import { SECRET, bearerHeader, token } from '../support/auth.js';
import { backends } from '../support/backends.js';
import { startServer, type TestServer } from '../support/server.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const TRACE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

for (const backend of await backends()) {
  describe(`audit on ${backend.name}`, { skip: backend.skip }, () => {
    let server: TestServer;
    const records: AuditRecord[] = [];
    const headers = { ...bearerHeader(token({ sub: 'alice', org: 'acme' })), traceparent: TRACE, 'x-request-id': 'req-audit-1' };

    before(async () => {
      server = await startServer(backend, {
        fixture: 'tenancy',
        setup(app) {
          app.use('auth', bearer({ secret: SECRET, tenantClaim: 'org' }), { models: ['Project'] });
          app.use('service', transaction(), { ops: ['create', 'update', 'delete'] });
          app.use('db', audit({ sink: (record) => void records.push(record) }), { models: ['Project'] });
          // Labels: a sink that throws, and one that rejects.
          app.use('db', audit({ sink: () => { throw new Error('sink down'); } }), { models: ['Label'] });
          app.use('db', audit({ sink: () => Promise.reject(new Error('sink rejected')) }), { models: ['Label'] });
        },
      });
    });
    after(async () => server?.close());

    it('records a create with every non-null field, the actor, tenant, request and trace ids', async () => {
      const created = await server.request('POST', '/projects', { headers, body: { name: 'Rocket', tenantId: 'acme', secret: 's3cret' } });
      assert.equal(created.status, 201);
      await settle();
      const record = records.at(-1)!;
      assert.equal(record.model, 'Project');
      assert.equal(record.operation, 'create');
      assert.equal(record.recordId, created.body.data.id);
      assert.equal(record.actor, 'alice');
      assert.equal(record.tenant, 'acme');
      assert.equal(record.requestId, 'req-audit-1');
      assert.equal(record.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
      assert.deepEqual(record.diff.name, { old: null, new: 'Rocket' });
      assert.deepEqual(record.diff.tenantId, { old: null, new: 'acme' });
      assert.equal('secret' in record.diff, false, 'writeonly fields never reach the audit log');
      assert.equal('id' in record.diff, false);
      assert.equal('ownerId' in record.diff, false, 'null fields are left out of a create');
    });

    it('records only the changed fields of an update, from the pre-image', async () => {
      const id = records.at(-1)!.recordId!;
      await server.request('PATCH', `/projects/${id}`, { headers, body: { name: 'Rocket 2', tenantId: 'acme' } });
      await settle();
      const record = records.at(-1)!;
      assert.equal(record.operation, 'update');
      assert.deepEqual(record.diff.name, { old: 'Rocket', new: 'Rocket 2' });
      assert.equal('tenantId' in record.diff, false);
    });

    it('records every field of a delete as old value and new null', async () => {
      const id = records.at(-1)!.recordId!;
      assert.equal((await server.request('DELETE', `/projects/${id}`, { headers })).status, 204);
      await settle();
      const record = records.at(-1)!;
      assert.equal(record.operation, 'delete');
      assert.equal(record.recordId, id);
      assert.deepEqual(record.diff.name, { old: 'Rocket 2', new: null });
    });

    it('writes nothing to the sink for a failed write or a read', async () => {
      const count = records.length;
      const missing = await server.request('PATCH', '/projects/00000000-0000-4000-8000-000000000000', { headers, body: { name: 'x' } });
      assert.equal(missing.status, 404);
      const invalid = await server.request('POST', '/projects', { headers, body: {} });
      assert.equal(invalid.status, 422);
      await server.request('GET', '/projects', { headers });
      await settle();
      assert.equal(records.length, count);
    });

    it('never fails the request when the sink throws or rejects; the error is logged', async () => {
      const res = await server.request('POST', '/labels', { body: { name: 'shared' } });
      assert.equal(res.status, 201);
      await settle();
      const failures = server.logs.filter((l) => l.message === 'audit sink failed');
      assert.equal(failures.length, 2);
      assert.equal((await server.request('GET', '/labels')).body.meta.total, 1);
    });
  });
}

for (const backend of await backends()) {
  describe(`audit of the rows a delete cascades to on ${backend.name}`, { skip: backend.skip }, () => {
    let server: TestServer;
    const records: AuditRecord[] = [];
    before(async () => {
      server = await startServer(backend, {
        fixture: 'tenancy',
        setup: (app) => void app.use('db', audit({ sink: (record) => void records.push(record) }), { ops: ['delete'] }),
      });
    });
    after(async () => server?.close());

    it('records the deleted row and every row its onDelete cascade removed, each with its own diff', async () => {
      const project = (await server.request('POST', '/projects', { body: { name: 'Doomed', tenantId: 'acme' } })).body.data.id;
      const tasks: string[] = [];
      for (const title of ['one', 'two']) tasks.push((await server.request('POST', '/tasks', { body: { title, tenantId: 'acme', projectId: project } })).body.data.id);
      assert.equal(records.length, 0, 'creates are outside the hook scope');
      assert.equal((await server.request('DELETE', `/projects/${project}`)).status, 204);
      assert.deepEqual(records.map((r) => `${r.model}:${r.operation}:${r.recordId}`).sort(), [`Project:delete:${project}`, ...tasks.map((id) => `Task:delete:${id}`)].sort());
      const one = records.find((r) => r.recordId === tasks[0])!;
      assert.deepEqual(one.diff.title, { old: 'one', new: null });
      assert.deepEqual(one.diff.projectId, { old: project, new: null });
    });
  });
}

describe('audit at startup', () => {
  it('must run at the db step, position before', async () => {
    const [sqlite] = await backends();
    await assert.rejects(
      startServer(sqlite, { fixture: 'tenancy', setup: (app) => void app.use('db', audit({ sink: () => {} }), { position: 'after' }) }),
      /audit\(\) belongs at the db step, position before: it reads the record before the write/,
    );
    assert.throws(() => audit({} as never), /audit\(\) needs \{ sink: \(record\) => void \}/);
  });
});
