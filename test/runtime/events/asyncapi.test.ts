// GET /asyncapi.json: an AsyncAPI 3.0 document of the event types publishEvents is registered
// for, validated with a third-party parser (@asyncapi/parser); 404 when nothing publishes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Parser } from '@asyncapi/parser';
import { memoryBus, publishEvents } from '@mfx/runtime';
import { startServer } from '../../support/server.js';
import { eachBackend, sqlite, useServer } from '../../support/suite.js';
import { eventsConfig } from './support.js';

eachBackend('AsyncAPI document', (backend) => {
  const server = useServer(backend, {
    fixture: 'events',
    config: eventsConfig(),
    setup(app) {
      // One hook registered under two scopes: both are described.
      const publish = publishEvents(memoryBus());
      app.use('db', publish, { position: 'after', models: ['Account'] });
      app.use('db', publish, { position: 'after', models: ['Order'], ops: ['create'] });
    },
  });

  it('describes each published event type and its payload, and passes the AsyncAPI parser', async () => {
    const res = await server.request('GET', '/asyncapi.json', { unchecked: true });
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^application\/json/);
    const doc = res.body;
    assert.equal(doc.asyncapi, '3.0.0');
    assert.deepEqual(Object.keys(doc.channels).sort(), ['account.created', 'account.deleted', 'account.updated', 'order.created']);
    assert.equal(doc.channels['account.created'].address, 'account.created');
    const data = doc.components.schemas['Account.data'];
    const column = (field: string) => server.app.registry.get('Account')!.fields.find((f) => f.name === field)!.column;
    assert.deepEqual(Object.keys(data.properties).sort(), ['created_at', 'id', 'name', 'updated_at'].map(column).sort(), 'redacted fields are not described');
    assert.equal(doc.components.schemas['account.created'].properties.type.const, 'account.created');

    const { document, diagnostics } = await new Parser().parse(res.text);
    const errors = diagnostics.filter((d) => d.severity === 0);
    assert.deepEqual(errors.map((d) => `${d.path.join('.')}: ${d.message}`), []);
    assert.ok(document);
    assert.deepEqual(document.channels().all().map((c) => c.address()).sort(), ['account.created', 'account.deleted', 'account.updated', 'order.created']);
    const payload = document.messages().all().find((m) => m.name() === 'account.created')!.payload()!;
    assert.equal(payload.properties()!.data!.properties()!.name!.type(), 'string');
  });
});

describe('AsyncAPI document without publishEvents', () => {
  it('is a 404', async () => {
    const server = await startServer(sqlite, { fixture: 'events', config: eventsConfig() });
    try {
      const res = await server.request('GET', '/asyncapi.json', { unchecked: true });
      assert.equal(res.status, 404);
    } finally {
      await server.close();
    }
  });
});
