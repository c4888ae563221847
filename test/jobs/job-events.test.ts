// Job events of dotted job types on both databases: `job.*.completed` and `job.*.failed` match
// job.email.send.completed and job.email.bounce.check.failed (the `*` stands for the whole job type),
// published by the worker on the bus's one pattern matcher; one-segment types still match as before.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type App, memoryBus, type MfxEvent, sqlQueue } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';
import { Recorder } from '../support/wait.js';

eachBackend('job events of dotted job types', (backend) => {
  const bus = memoryBus();
  const completed = new Recorder<MfxEvent>();
  const failed = new Recorder<MfxEvent>();
  let app: App;
  useServer(backend, {
    setup: (a) => void (app = a),
    prepare: async (adapter) => {
      await bus.subscribe({ name: 'completed', patterns: ['job.*.completed'], handler: (e) => completed.push(e) });
      await bus.subscribe({ name: 'failed', patterns: ['job.*.failed'], handler: (e) => failed.push(e) });
      app.jobs({
        queue: sqlQueue(adapter),
        bus,
        pollMs: 10,
        handlers: {
          'email.send': async () => ({ output: { sent: true } }),
          'email.bounce.check': async () => {
            throw new Error('bounced on purpose');
          },
          work: async () => ({}),
        },
      });
    },
  });

  it('matches job.*.completed and job.*.failed whatever the number of segments of the type', async () => {
    await app.enqueue({ type: 'email.send', id: 'mail-1' });
    await app.enqueue({ type: 'email.bounce.check', id: 'bounce-1', maxRetry: 0 });
    await app.enqueue({ type: 'work', id: 'work-1' });
    const done = await completed.count(2);
    const dead = await failed.next();
    assert.deepEqual(done.map((e) => [e.type, e.recordId]).sort(), [['job.email.send.completed', 'mail-1'], ['job.work.completed', 'work-1']]);
    assert.deepEqual([dead.type, dead.recordId, dead.data], ['job.email.bounce.check.failed', 'bounce-1', { id: 'bounce-1', type: 'email.bounce.check', status: 'dead', attempts: 1 }]);
    await bus.close();
  });
});
