// Real writes reaching realtime clients: publishEvents on the in-process bus
// feeds realtime(bus), and an SSE and a WebSocket client each receive the
// events of HTTP writes as {id, type, model, record_id, data}, with hidden,
// writeonly and encrypted columns (and the blind index) never on the wire.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import WebSocket from 'ws';
import { bearer, memoryBus, publishEvents, realtime, transaction } from '@mfx/runtime';
import { SECRET, token } from '../../support/auth.js';
import { openSse } from '../../support/sse.js';
import { eachBackend, useServer } from '../../support/suite.js';
import { Recorder } from '../../support/wait.js';
import { assertRedacted, eventsConfig, PASSWORD, SSN } from './support.js';

const caller = token({ org: 't1' });

eachBackend('realtime fed by publishEvents', (backend) => {
  const bus = memoryBus();
  const server = useServer(backend, {
    fixture: 'events',
    config: eventsConfig(),
    async setup(app) {
      app.use('auth', bearer({ secret: SECRET }));
      app.use('service', transaction(), { ops: ['create', 'update', 'delete'] });
      app.use('db', publishEvents(bus), { position: 'after' });
      await app.plugin(realtime(bus));
    },
  });
  const auth = { authorization: `Bearer ${caller}` };

  it('sends the events of a create, an update and a delete to SSE and WebSocket clients, redacted', async () => {
    const sse = await openSse(`${server.url}/realtime/sse?subscribe=account.*`, auth);
    assert.equal(sse.status, 200);
    await sse.frames.next((f) => f.comment === 'connected');

    const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/realtime/ws`, { headers: auth });
    const wsMessages = new Recorder<any>();
    const wsRaw: string[] = [];
    ws.on('message', (data) => {
      wsRaw.push(String(data));
      wsMessages.push(JSON.parse(String(data)));
    });
    await new Promise<void>((resolve, reject) => {
      ws.on('open', resolve);
      ws.on('error', reject);
    });
    ws.send(JSON.stringify({ type: 'subscribe', id: 1, patterns: ['account.*'] }));
    await wsMessages.next((m) => m.type === 'ack');

    const created = await server.request('POST', '/accounts', { body: { name: 'Ada', password: PASSWORD, ssn: SSN }, headers: auth });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    const updated = await server.request('PATCH', `/accounts/${id}`, { body: { name: 'Ada L.' }, headers: auth });
    assert.equal(updated.status, 200, updated.text);
    const deleted = await server.request('DELETE', `/accounts/${id}`, { headers: auth });
    assert.equal(deleted.status, 204, deleted.text);

    const frames = await sse.frames.count(3, (f) => f.data !== undefined);
    const sseMessages = frames.map((f) => JSON.parse(f.data!));
    assert.deepEqual(sseMessages.map((m) => [m.type, m.model, m.record_id]), [
      ['account.created', 'Account', id],
      ['account.updated', 'Account', id],
      ['account.deleted', 'Account', id],
    ]);
    assert.deepEqual(Object.keys(sseMessages[0]).sort(), ['data', 'id', 'model', 'record_id', 'type']);
    assert.equal(sseMessages[0].data.name, 'Ada');
    assert.equal(sseMessages[1].data.name, 'Ada L.');
    assert.deepEqual(frames.map((f) => f.id), sseMessages.map((m) => m.id));

    const wsEvents = await wsMessages.count(3, (m) => m.type === 'event');
    assert.deepEqual(wsEvents.map((m) => m.event), sseMessages);

    for (const frame of frames) assertRedacted(frame.data!, 'an SSE frame');
    for (const text of wsRaw) assertRedacted(text, 'a WebSocket message');

    sse.close();
    ws.close();
  });
});
