// The job queue contract (runtime/src/jobs/types.ts), one suite for every
// adapter: memoryQueue, sqlQueue on each database, redisQueue. Time moves
// with node:test's mocked Date (due times, delays and leases are compared
// with Date.now()).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type ClaimedJob, JobCancelError, type JobQueue } from '@mfx/runtime';

export interface QueueUnderTest {
  queue: JobQueue;
  /** Releases what the factory opened (database, connection). */
  close(): Promise<void>;
}

const LEASE = { limit: 10, leaseMs: 60_000 };

/**
 * Defines the contract's tests for the queues `open` makes (a fresh, empty queue per test).
 *
 * @example
 * queueContract('memoryQueue', async () => ({ queue: memoryQueue(), close: async () => {} }));
 */
export function queueContract(title: string, open: () => Promise<QueueUnderTest>, options: { skip?: string | false } = {}): void {
  describe(`job queue contract: ${title}`, { skip: options.skip ?? false }, () => {
    let under: QueueUnderTest;
    let queue: JobQueue;
    beforeEach(async () => {
      under = await open();
      queue = under.queue;
    });
    afterEach(async () => {
      await queue.close();
      await under.close();
    });
    const ids = (jobs: readonly ClaimedJob[]) => jobs.map((j) => j.id);

    it('enqueues one job and a batch, keeping caller ids and order, and hands them out oldest first', async () => {
      const [one] = await queue.enqueue([{ type: 'mail.send', payload: { to: 'a@example.com', n: [1, 2] }, actorId: 'u1', tenantId: 't1', traceId: 'trace-1' }]);
      assert.match(one!, /^[0-9a-f-]{36}$/);
      const batch = await queue.enqueue([{ type: 'a', id: 'job-a' }, { type: 'b' }, { type: 'c', id: 'job-c', maxRetry: 5 }]);
      assert.equal(batch.length, 3);
      assert.equal(batch[0], 'job-a');
      assert.equal(batch[2], 'job-c');
      const claimed = await queue.claim(LEASE);
      assert.deepEqual(ids(claimed), [one, ...batch]);
      const first = claimed[0]!;
      assert.deepEqual(
        { type: first.type, payload: first.payload, actorId: first.actorId, tenantId: first.tenantId, traceId: first.traceId, maxRetry: first.maxRetry, attempts: first.attempts, requeues: first.requeues },
        { type: 'mail.send', payload: { to: 'a@example.com', n: [1, 2] }, actorId: 'u1', tenantId: 't1', traceId: 'trace-1', maxRetry: 3, attempts: 1, requeues: 0 },
      );
      assert.equal(claimed[3]!.maxRetry, 5);
      assert.equal(claimed[1]!.payload, null);
    });

    it('refuses an id already in the queue, and a batch repeating one, storing nothing of the batch', async () => {
      await queue.enqueue([{ type: 'a', id: 'same' }]);
      await assert.rejects(queue.enqueue([{ type: 'a', id: 'same' }]), { name: 'DuplicateJobError', message: 'a job with id same is already in the queue; give each job its own id or leave id out' });
      await assert.rejects(queue.enqueue([{ type: 'b', id: 'x' }, { type: 'b', id: 'x' }]), { name: 'DuplicateJobError' });
      assert.deepEqual(ids(await queue.claim(LEASE)), ['same']);
    });

    it('refuses a job without a type', async () => {
      await assert.rejects(queue.enqueue([{ type: '' }]), { name: 'TypeError', message: 'a job needs a type (a non-empty string that selects its handler)' });
      assert.deepEqual(await queue.claim(LEASE), []);
    });

    it('withholds a job until its notBefore time', async (t) => {
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
      const due = new Date(Date.now() + 60_000);
      await queue.enqueue([{ type: 'later', id: 'later', notBefore: due }, { type: 'now', id: 'now' }]);
      assert.deepEqual(ids(await queue.claim(LEASE)), ['now']);
      t.mock.timers.tick(59_000);
      assert.deepEqual(await queue.claim(LEASE), []);
      t.mock.timers.tick(1000);
      const [later] = await queue.claim(LEASE);
      assert.equal(later!.id, 'later');
      assert.equal(later!.notBefore?.toISOString(), due.toISOString());
    });

    it('hands a claimed job to no one else while its lease holds, and again once it expired (the old claim is then refused)', async (t) => {
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
      await queue.enqueue([{ type: 'a', id: 'leased' }]);
      const [first] = await queue.claim({ limit: 1, leaseMs: 1000 });
      assert.deepEqual(await queue.claim(LEASE), []);
      t.mock.timers.tick(900);
      assert.equal(await queue.renew(first!, 1000), true);
      t.mock.timers.tick(900);
      assert.deepEqual(await queue.claim(LEASE), [], 'renewed: still held');
      t.mock.timers.tick(200);
      const [again] = await queue.claim(LEASE);
      assert.equal(again!.id, 'leased');
      assert.equal(again!.attempts, 2);
      assert.notEqual(again!.token, first!.token);
      assert.equal(await queue.ack(first!), false, 'the expired claim no longer finishes the job');
      assert.equal(await queue.renew(first!, 1000), false);
      assert.equal(await queue.nack(first!), false);
      assert.equal(await queue.ack(again!), true);
      assert.deepEqual(await queue.claim(LEASE), []);
    });

    it('forgets an acked job', async () => {
      await queue.enqueue([{ type: 'a', id: 'done' }]);
      const [job] = await queue.claim(LEASE);
      assert.equal(await queue.ack(job!), true);
      assert.equal(await queue.ack(job!), false);
      assert.deepEqual(await queue.claim(LEASE), []);
      await assert.rejects(queue.cancel('done'), { name: 'JobCancelError', reason: 'unknown' });
    });

    it('puts a nacked job back after its delay, keeping its attempts; a refunded nack gives the attempt back', async (t) => {
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
      await queue.enqueue([{ type: 'a', id: 'retry' }]);
      const [first] = await queue.claim(LEASE);
      assert.equal(await queue.nack(first!, { delayMs: 5000 }), true);
      t.mock.timers.tick(4999);
      assert.deepEqual(await queue.claim(LEASE), []);
      t.mock.timers.tick(1);
      const [second] = await queue.claim(LEASE);
      assert.deepEqual([second!.attempts, second!.requeues], [2, 0]);
      assert.equal(await queue.nack(second!, { refund: true }), true);
      const [third] = await queue.claim(LEASE);
      assert.deepEqual([third!.attempts, third!.requeues], [2, 1]);
    });

    it('runs one job of a group at a time, in order, while other groups and ungrouped jobs run', async () => {
      await queue.enqueue([
        { type: 'a', id: 'g1-first', groupKey: 'g1' },
        { type: 'a', id: 'g1-second', groupKey: 'g1' },
        { type: 'a', id: 'g2', groupKey: 'g2' },
        { type: 'a', id: 'free' },
      ]);
      const claimed = await queue.claim(LEASE);
      assert.deepEqual(ids(claimed), ['g1-first', 'g2', 'free']);
      assert.deepEqual(await queue.claim(LEASE), [], 'g1 has a running job');
      await queue.ack(claimed[0]!);
      assert.deepEqual(ids(await queue.claim(LEASE)), ['g1-second']);
    });

    it('claims no more than the limit', async () => {
      await queue.enqueue([{ type: 'a', id: '1' }, { type: 'a', id: '2' }, { type: 'a', id: '3' }]);
      assert.deepEqual(ids(await queue.claim({ limit: 2, leaseMs: 60_000 })), ['1', '2']);
      assert.deepEqual(ids(await queue.claim({ limit: 2, leaseMs: 60_000 })), ['3']);
    });

    it('cancels an enqueued job, refuses a running one and an unknown id', async () => {
      await queue.enqueue([{ type: 'a', id: 'run' }, { type: 'a', id: 'wait', notBefore: new Date(Date.now() + 3_600_000) }]);
      const [running] = await queue.claim(LEASE);
      assert.equal(running!.id, 'run');
      await assert.rejects(queue.cancel('run'), (error: unknown) => {
        assert.ok(error instanceof JobCancelError);
        assert.equal(error.reason, 'running');
        assert.equal(error.message, 'job run is running and cannot be cancelled: a running job must finish or fail first');
        return true;
      });
      await queue.cancel('wait');
      await assert.rejects(queue.cancel('wait'), { name: 'JobCancelError', reason: 'unknown', message: 'no enqueued job has id wait (it was never enqueued, or it has finished)' });
      await assert.rejects(queue.cancel('never'), { name: 'JobCancelError', reason: 'unknown' });
      assert.equal(await queue.ack(running!), true, 'the running job was left alone');
    });

    it('refuses work once closed', async () => {
      await queue.close();
      await assert.rejects(queue.enqueue([{ type: 'a' }]), /closed/);
    });
  });
}
