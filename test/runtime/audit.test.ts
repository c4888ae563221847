// Audit log: one record per write with model, operation, actor, tenant,
// request id, trace id and the diff; the sink never fails the request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AuditRecord, audit, bearer, transaction } from '@mfx/runtime';
import { SECRET, bearerHeader, token } from '../support/auth.js';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

const TRACE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

// The sink runs once the write has committed and before the response is written:
// a synchronous sink has already run when the response arrives, so no test waits for it.
eachBackend('audit', (backend) => {
  const records: AuditRecord[] = [];
  const headers = { ...bearerHeader(token({ sub: 'alice', org: 'acme' })), traceparent: TRACE, 'x-request-id': 'req-audit-1' };

  const server = useServer(backend, {
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

  it('records a create with every non-null field, the actor, tenant, request and trace ids', async () => {
    const created = await server.request('POST', '/projects', { headers, body: { name: 'Rocket', tenantId: 'acme', secret: 's3cret' } });
    assert.equal(created.status, 201);
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

  const createProject = async (name: string): Promise<string> => {
    const created = await server.request('POST', '/projects', { headers, body: { name, tenantId: 'acme' } });
    assert.equal(created.status, 201, created.text);
    return created.body.data.id;
  };

  it('records only the changed fields of an update, from the pre-image', async () => {
    const id = await createProject('Rocket');
    await server.request('PATCH', `/projects/${id}`, { headers, body: { name: 'Rocket 2', tenantId: 'acme' } });
    const record = records.at(-1)!;
    assert.equal(record.operation, 'update');
    assert.deepEqual(record.diff.name, { old: 'Rocket', new: 'Rocket 2' });
    assert.equal('tenantId' in record.diff, false);
  });

  it('records every field of a delete as old value and new null', async () => {
    const id = await createProject('Rocket 2');
    assert.equal((await server.request('DELETE', `/projects/${id}`, { headers })).status, 204);
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
    assert.equal(records.length, count);
  });

  it('never fails the request when the sink throws or rejects; the error is logged', async () => {
    const res = await server.request('POST', '/labels', { body: { name: 'shared' } });
    assert.equal(res.status, 201);
    // The rejection is logged when the sink's promise settles, which the response does not wait for.
    for (const err of ['sink down', 'sink rejected']) await server.logLine((l) => l.message === 'audit sink failed' && String(l.fields.err).includes(err));
    const failures = server.logs.filter((l) => l.message === 'audit sink failed');
    assert.equal(failures.length, 2);
    assert.equal((await server.request('GET', '/labels')).body.meta.total, 1);
  });
});

eachBackend('audit of the rows a delete cascades to', (backend) => {
  const records: AuditRecord[] = [];
  const server = useServer(backend, {
    fixture: 'tenancy',
    setup: (app) => void app.use('db', audit({ sink: (record) => void records.push(record) }), { ops: ['delete'] }),
  });

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

describe('audit at startup', () => {
  it('must run at the db step, position before', async () => {
    await assert.rejects(
      startServer(sqlite, { fixture: 'tenancy', setup: (app) => void app.use('db', audit({ sink: () => {} }), { position: 'after' }) }),
      /audit\(\) belongs at the db step, position before: it reads the record before the write/,
    );
    assert.throws(() => audit({} as never), /audit\(\) needs \{ sink: \(record\) => void \}/);
  });
});
