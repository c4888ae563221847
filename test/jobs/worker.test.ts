// Background jobs end to end on both databases: a server with app.jobs on
// the SQL queue, every status transition read back through /job_statuses
// over HTTP, retries with a real (small) backoff, dead jobs and their
// dead-letter type, groupKey exclusivity, cancellation (and its race with
// the worker), a worker that dies mid-job, transactional enqueue, visibility.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Adapter, allowAnonymous, ApiError, apiKey, type App, type JobContext, type JobTransition, type QueuedJob, sqlQueue, transaction } from '@mfx/runtime';
import type { EventBus, MfxEvent } from '../../runtime/src/events/types.js';
import { type Backend } from '../support/backends.js';
import { eachBackend, useServer } from '../support/suite.js';
import { type Gate, gate, Recorder } from '../support/wait.js';

const KEYS = { 'key-user-one-0123456789': { userId: 'u1' }, 'key-user-two-0123456789': { userId: 'u2' }, 'key-admin-0123456789ab': { userId: 'boss', roles: ['admin'] } };
const as = (key: keyof typeof KEYS) => ({ headers: { 'x-api-key': key } });

interface Seen {
  transition: JobTransition;
  at: number;
}

/** What the handlers do is told by the payload: succeed, fail the first N runs, wait on a gate, or fail always. */
interface Behaviour {
  mode: 'ok' | 'fail' | 'hold' | 'crash';
  failures?: number;
  gate?: string;
}

function jobsHarness() {
  const transitions = new Recorder<Seen>();
  const runs = new Recorder<{ job: QueuedJob; ctx: JobContext }>();
  const gates = new Map<string, Gate>();
  const events: MfxEvent[] = [];
  const published = new Recorder<MfxEvent>();
  const bus: EventBus = {
    kind: 'recording',
    async publish(list) {
      for (const event of list) {
        events.push(event);
        published.push(event);
      }
    },
    async subscribe() {
      throw new Error('not used');
    },
    async close() {},
  };
  const hold = (name: string) => {
    const g = gate();
    gates.set(name, g);
    return g;
  };
  const handler = async (job: QueuedJob, ctx: JobContext) => {
    runs.push({ job, ctx });
    const behaviour = (job.payload ?? { mode: 'ok' }) as Behaviour;
    if (behaviour.mode === 'hold') await gates.get(behaviour.gate!)!.opened;
    if (behaviour.mode === 'fail' && ctx.attempt <= (behaviour.failures ?? Infinity)) throw new Error(`run ${ctx.attempt} failed on purpose`);
    if (behaviour.mode === 'crash') throw { not: 'an Error' };
    return { url: `https://files.example.com/${job.id}.pdf`, output: { attempt: ctx.attempt } };
  };
  const setup = (app: App, adapter: Adapter) => {
    app.jobs({
      queue: sqlQueue(adapter),
      handlers: { work: handler, 'jobs.dead': handler },
      concurrency: 4,
      dlqType: 'jobs.dead',
      bus,
      backoff: { baseMs: 40, capMs: 80 },
      pollMs: 10,
      leaseMs: 5000,
      maxRequeues: 3,
      onTransition: (transition) => transitions.push({ transition, at: Date.now() }),
    });
    app.use('auth', allowAnonymous(), { models: ['JobStatus'] });
    app.use('auth', apiKey({ keys: KEYS }), { models: ['JobStatus'] });
    app.use('service', transaction(), { models: ['Tag'], ops: ['create'] });
    // A tag's create enqueues a job in its transaction; a name starting with "refuse" fails the request after the write.
    app.use(
      'db',
      async (ctx, next) => {
        await next();
        const name = String(ctx.body?.name ?? '');
        ctx.headers['x-job-id'] = await app.enqueue({ type: 'work', id: `tag-${name}`, payload: { mode: 'ok' } }, ctx);
        if (name.startsWith('refuse')) throw new ApiError('CONFLICT', 'refused after the write, on purpose');
      },
      { models: ['Tag'], ops: ['create'], position: 'after' },
    );
  };
  /** Holds the worker's four slots with running jobs (so it claims nothing); opening the returned gates frees them. */
  const occupy = async (app: App, label: string): Promise<Gate[]> => {
    const ids = [0, 1, 2, 3].map((n) => `${label}-fill-${n}`);
    const held = ids.map((id) => hold(id));
    for (const id of ids) await app.enqueue({ type: 'work', id, payload: { mode: 'hold', gate: id } });
    await Promise.all(ids.map((id) => transitions.next((s) => s.transition.id === id && s.transition.status === 'running')));
    return held;
  };
  const statuses = (id: string) => transitions.seen.filter((s) => s.transition.id === id).map((s) => s.transition.status);
  const reached = (id: string, status: string) => transitions.next((s) => s.transition.id === id && s.transition.status === status);
  return { transitions, runs, events, published, hold, occupy, setup, statuses, reached };
}

function jobServer(backend: Backend, harness: ReturnType<typeof jobsHarness>) {
  let app: App;
  return useServer(backend, {
    setup: (a) => void (app = a),
    prepare: async (adapter) => harness.setup(app, adapter),
  });
}

eachBackend('background jobs', (backend) => {
  const h = jobsHarness();
  const server = jobServer(backend, h);
  const status = async (id: string, init = {}) => server.request('GET', `/job_statuses/${id}`, init);

  it('writes every transition, read back over HTTP: enqueued while its group is busy, running, succeeded with result_url, output and completed_at', async () => {
    const held = h.hold('first');
    await server.app.enqueue({ type: 'work', id: 'g-first', groupKey: 'g-order', payload: { mode: 'hold', gate: 'first' } });
    await h.reached('g-first', 'running');
    await server.app.enqueue({ type: 'work', id: 'g-second', groupKey: 'g-order', payload: { mode: 'ok' } });
    const running = await status('g-first');
    assert.equal(running.status, 200);
    assert.deepEqual([running.body.data.status, running.body.data.attempts, running.body.data.completed_at], ['running', 1, null]);
    assert.match(running.body.data.started_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal('error' in running.body.data, false);
    const waiting = await status('g-second');
    assert.deepEqual([waiting.body.data.status, waiting.body.data.type, waiting.body.data.attempts, waiting.body.data.started_at], ['enqueued', 'work', 0, null]);
    held.open();
    await h.reached('g-second', 'succeeded');
    const done = await status('g-first');
    assert.equal(done.body.data.status, 'succeeded');
    assert.equal(done.body.data.result_url, 'https://files.example.com/g-first.pdf');
    assert.deepEqual(done.body.data.output, { attempt: 1 });
    assert.match(done.body.data.completed_at, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(h.statuses('g-first'), ['enqueued', 'running', 'succeeded']);
    assert.deepEqual(h.statuses('g-second'), ['enqueued', 'running', 'succeeded']);
    const second = h.transitions.seen.find((s) => s.transition.id === 'g-second' && s.transition.status === 'running')!;
    const first = h.transitions.seen.find((s) => s.transition.id === 'g-first' && s.transition.status === 'succeeded')!;
    assert.ok(second.at >= first.at, 'the second job of the group started after the first finished');
  });

  it('runs jobs of different groups at once', async () => {
    const a = h.hold('par-a');
    const b = h.hold('par-b');
    await server.app.enqueue({ type: 'work', id: 'par-a', groupKey: 'ga', payload: { mode: 'hold', gate: 'par-a' } });
    await server.app.enqueue({ type: 'work', id: 'par-b', groupKey: 'gb', payload: { mode: 'hold', gate: 'par-b' } });
    await Promise.all([h.reached('par-a', 'running'), h.reached('par-b', 'running')]);
    a.open();
    b.open();
    await Promise.all([h.reached('par-a', 'succeeded'), h.reached('par-b', 'succeeded')]);
  });

  it('retries a failing job after an exponential backoff, recording failed between runs, and succeeds', async () => {
    await server.app.enqueue({ type: 'work', id: 'flaky', payload: { mode: 'fail', failures: 2 } });
    await h.reached('flaky', 'succeeded');
    assert.deepEqual(h.statuses('flaky'), ['enqueued', 'running', 'failed', 'running', 'failed', 'running', 'succeeded']);
    const seen = h.transitions.seen.filter((s) => s.transition.id === 'flaky');
    const gap = (n: number) => seen.filter((s) => s.transition.status === 'running')[n]!.at - seen.filter((s) => s.transition.status === 'failed')[n - 1]!.at;
    assert.ok(gap(1) >= 40, `first retry after ≥ 40 ms (base), was ${gap(1)}`);
    assert.ok(gap(2) >= 80, `second retry after ≥ 80 ms (doubled), was ${gap(2)}`);
    const row = await status('flaky');
    assert.deepEqual([row.body.data.status, row.body.data.attempts, row.body.data.output], ['succeeded', 3, { attempt: 3 }]);
    assert.equal((await server.app.db.raw("SELECT error FROM job_statuses WHERE id = 'flaky'"))[0]!.error, null, 'a success clears the last error');
  });

  it('marks a job dead once its retries are spent, keeps the final error out of responses and re-routes it to the dead-letter type', async () => {
    await server.app.enqueue({ type: 'work', id: 'doomed', maxRetry: 1, payload: { mode: 'fail' } });
    await h.reached('doomed', 'dead');
    assert.deepEqual(h.statuses('doomed'), ['enqueued', 'running', 'failed', 'running', 'dead']);
    const row = await status('doomed');
    assert.deepEqual([row.body.data.status, row.body.data.attempts], ['dead', 2]);
    assert.match(row.body.data.completed_at, /^\d{4}-/);
    assert.equal('error' in row.body.data, false);
    assert.equal((await server.app.db.raw("SELECT error FROM job_statuses WHERE id = 'doomed'"))[0]!.error, 'run 2 failed on purpose');
    const rerouted = await h.runs.next((r) => r.job.type === 'jobs.dead' && (r.job.payload as { job: { id: string } }).job.id === 'doomed');
    assert.deepEqual(rerouted.job.payload, { job: { id: 'doomed', type: 'work', payload: { mode: 'fail' }, attempts: 2 }, error: 'run 2 failed on purpose' });
  });

  it('survives a handler that throws something other than an Error, and runs the next job', async () => {
    await server.app.enqueue({ type: 'work', id: 'crash', maxRetry: 0, payload: { mode: 'crash' } });
    await h.reached('crash', 'dead');
    assert.equal((await server.app.db.raw("SELECT error FROM job_statuses WHERE id = 'crash'"))[0]!.error, '{"not":"an Error"}');
    await server.app.enqueue({ type: 'work', id: 'after-crash' });
    await h.reached('after-crash', 'succeeded');
  });

  it('publishes job.<type>.completed and job.<type>.failed on terminal transitions only', async () => {
    await server.app.enqueue({ type: 'work', id: 'evt-ok', actorId: 'u1', tenantId: 't1' });
    await server.app.enqueue({ type: 'work', id: 'evt-dead', maxRetry: 1, payload: { mode: 'fail' } });
    const completed = await h.published.next((e) => e.recordId === 'evt-ok');
    assert.equal(completed.type, 'job.work.completed');
    assert.deepEqual([completed.actorId, completed.tenantId, completed.model], ['u1', 't1', null]);
    assert.deepEqual(completed.data, { id: 'evt-ok', type: 'work', status: 'succeeded', attempts: 1, result_url: 'https://files.example.com/evt-ok.pdf', output: { attempt: 1 } });
    const failed = await h.published.next((e) => e.recordId === 'evt-dead');
    assert.equal(failed.type, 'job.work.failed');
    assert.deepEqual(failed.data, { id: 'evt-dead', type: 'work', status: 'dead', attempts: 2 });
    assert.equal(h.events.filter((e) => e.recordId === 'evt-dead').length, 1, 'no event for the failed run between retries');
  });

  it('requeues a job whose type has no handler without spending attempts, then marks it dead after the bounded requeues', async () => {
    await server.app.enqueue({ type: 'nobody.handles', id: 'orphan' });
    await h.reached('orphan', 'dead');
    assert.deepEqual(h.statuses('orphan'), ['enqueued', 'dead']);
    const row = await status('orphan');
    assert.deepEqual([row.body.data.status, row.body.data.attempts], ['dead', 0]);
    assert.equal((await server.app.db.raw("SELECT error FROM job_statuses WHERE id = 'orphan'"))[0]!.error, 'no worker has a handler for job type nobody.handles (requeued 3 times)');
    await server.logLine((l) => l.message === 'no handler for this job type here: requeued for another worker' && l.fields.jobId === 'orphan');
    await server.logLine((l) => l.level === 'error' && l.fields.jobId === 'orphan' && l.message === 'no worker has a handler for job type nobody.handles (requeued 3 times): dead');
  });

  it('cancels an enqueued job, refuses a running one and an unknown id', async () => {
    await server.app.enqueue({ type: 'work', id: 'not-yet', notBefore: new Date(Date.now() + 3_600_000) });
    await server.app.cancelJob('not-yet');
    const cancelled = await status('not-yet');
    assert.equal(cancelled.body.data.status, 'cancelled');
    assert.match(cancelled.body.data.completed_at, /^\d{4}-/);
    const held = h.hold('busy');
    await server.app.enqueue({ type: 'work', id: 'busy', payload: { mode: 'hold', gate: 'busy' } });
    await h.reached('busy', 'running');
    await assert.rejects(server.app.cancelJob('busy'), { name: 'JobCancelError', reason: 'running', message: 'job busy is running and cannot be cancelled: a running job must finish or fail first' });
    assert.equal((await status('busy')).body.data.status, 'running');
    held.open();
    await h.reached('busy', 'succeeded');
    await assert.rejects(server.app.cancelJob('busy'), { name: 'JobCancelError', reason: 'unknown' });
    await assert.rejects(server.app.cancelJob('no-such-job'), { name: 'JobCancelError', reason: 'unknown' });
    assert.equal((await status('busy')).body.data.status, 'succeeded');
  });

  it('settles each job of a cancel racing the worker one way: cancelled and never run, or run and refused', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `race-${i}`);
    for (const id of ids) await server.app.enqueue({ type: 'work', id });
    const outcomes = await Promise.all(ids.map((id) => server.app.cancelJob(id).then(() => 'cancelled' as const, (e: { reason: string }) => e.reason)));
    for (const [i, id] of ids.entries()) {
      if (outcomes[i] === 'cancelled') {
        assert.equal((await status(id)).body.data.status, 'cancelled');
        assert.equal(h.runs.seen.some((r) => r.job.id === id), false, `${id} was cancelled, so never run`);
      } else {
        await h.reached(id, 'succeeded');
        assert.ok(['running', 'unknown'].includes(outcomes[i]!), `${id}: ${outcomes[i]}`);
        assert.equal((await status(id)).body.data.status, 'succeeded');
      }
    }
  });

  it('hands a dead worker’s job to a live one once its lease expires, and finishes it once', async () => {
    // The live worker busy, so the job goes to the worker that then dies.
    const held = await h.occupy(server.app, 'orphan');
    const dead = sqlQueue(server.app.db);
    await dead.enqueue([{ type: 'work', id: 'orphaned-run' }]);
    // A worker that claimed the job and died: it never renews, acks or nacks.
    const [claim] = await dead.claim({ limit: 1, leaseMs: 150 });
    assert.equal(claim!.id, 'orphaned-run');
    for (const gate of held) gate.open();
    const run = await h.runs.next((r) => r.job.id === 'orphaned-run');
    assert.equal(run.ctx.attempt, 2, 'the dead worker’s run counted as an attempt');
    assert.equal(await dead.ack(claim!), false, 'the dead worker can no longer finish it');
    await h.transitions.next((s) => s.transition.id === 'orphaned-run' && s.transition.status === 'succeeded');
    assert.equal(h.runs.seen.filter((r) => r.job.id === 'orphaned-run').length, 1);
  });

  it('marks dead, without running it again, a job whose last allowed run died with its worker, and re-routes it', async () => {
    // The live worker busy, so the job goes to the worker that then dies.
    const held = await h.occupy(server.app, 'cut');
    await server.app.enqueue({ type: 'work', id: 'last-run-cut', maxRetry: 0 });
    const dead = sqlQueue(server.app.db);
    const [claim] = await dead.claim({ limit: 1, leaseMs: 150 });
    assert.equal(claim!.id, 'last-run-cut');
    for (const gate of held) gate.open();
    await h.transitions.next((s) => s.transition.id === 'last-run-cut' && ['succeeded', 'dead'].includes(s.transition.status));
    assert.deepEqual(h.statuses('last-run-cut'), ['enqueued', 'dead']);
    assert.equal(h.runs.seen.some((r) => r.job.id === 'last-run-cut'), false, 'no second run');
    const row = await status('last-run-cut');
    assert.deepEqual([row.body.data.status, row.body.data.attempts], ['dead', 1]);
    const message = 'its last run (1 of 1) did not finish: the worker running it died or was stopped';
    assert.equal((await server.app.db.raw("SELECT error FROM job_statuses WHERE id = 'last-run-cut'"))[0]!.error, message);
    await server.logLine((l) => l.level === 'error' && l.fields.jobId === 'last-run-cut' && l.message === `${message}: dead`);
    const rerouted = await h.runs.next((r) => r.job.type === 'jobs.dead' && (r.job.payload as { job: { id: string } }).job.id === 'last-run-cut');
    assert.deepEqual(rerouted.job.payload, { job: { id: 'last-run-cut', type: 'work', payload: null, attempts: 1 }, error: message });
    const failed = await h.published.next((e) => e.recordId === 'last-run-cut');
    assert.deepEqual([failed.type, failed.data], ['job.work.failed', { id: 'last-run-cut', type: 'work', status: 'dead', attempts: 1 }]);
  });

  it('enqueues in the request transaction: the job and its status row roll back with the write, and commit with it', async () => {
    const refused = await server.request('POST', '/tags', { body: { name: 'refuse-me' } });
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body, { error: { code: 'CONFLICT', message: 'refused after the write, on purpose' } });
    assert.equal((await server.request('GET', '/tags?filter=name:eq:refuse-me')).body.meta.total, 0);
    assert.equal((await status('tag-refuse-me')).status, 404);
    assert.equal((await server.app.db.raw("SELECT COUNT(*) AS n FROM mfx_jobs WHERE id = 'tag-refuse-me'"))[0]!.n, 0);
    const created = await server.request('POST', '/tags', { body: { name: 'kept' }, headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('x-job-id'), 'tag-kept');
    const run = await h.runs.next((r) => r.job.id === 'tag-kept');
    assert.equal(run.ctx.traceId, '4bf92f3577b34da6a3ce929d0e0e4736', 'the request trace id reaches the handler');
    await h.reached('tag-kept', 'succeeded');
  });

  it('shows every row to an unauthenticated caller, their own to an authenticated one, all to the admin role', async () => {
    await server.app.enqueue({ type: 'work', id: 'mine-u1', actorId: 'u1', notBefore: new Date(Date.now() + 3_600_000) });
    await server.app.enqueue({ type: 'work', id: 'mine-u2', actorId: 'u2', notBefore: new Date(Date.now() + 3_600_000) });
    const ids = async (init = {}) => ((await server.request('GET', '/job_statuses?filter=id:in:mine-u1,mine-u2&sort=id', init)).body.data as { id: string }[]).map((r) => r.id);
    assert.deepEqual(await ids(), ['mine-u1', 'mine-u2']);
    assert.deepEqual(await ids(as('key-user-one-0123456789')), ['mine-u1']);
    assert.deepEqual(await ids(as('key-user-two-0123456789')), ['mine-u2']);
    assert.deepEqual(await ids(as('key-admin-0123456789ab')), ['mine-u1', 'mine-u2']);
    assert.equal((await status('mine-u1', as('key-user-one-0123456789'))).status, 200);
    const other = await status('mine-u2', as('key-user-one-0123456789'));
    assert.equal(other.status, 404);
    assert.equal(other.body.error.code, 'NOT_FOUND');
    assert.equal((await status('mine-u2', as('key-admin-0123456789ab'))).status, 200);
    assert.equal((await status('mine-u2', { headers: { 'x-api-key': 'wrong' } })).status, 401);
  });

  it('filters, sorts and paginates the list like any model', async () => {
    for (const id of ['list-a', 'list-b', 'list-c']) await server.app.enqueue({ type: 'listed', id, notBefore: new Date(Date.now() + 3_600_000) });
    const page = await server.request('GET', '/job_statuses?filter=type:eq:listed&filter=status:eq:enqueued&sort=id:desc&limit=2&page=1');
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.data.map((r: { id: string }) => r.id), ['list-c', 'list-b']);
    assert.deepEqual(page.body.meta, { total: 3, page: 1, limit: 2, pages: 2 });
    const bad = await server.request('GET', '/job_statuses?filter=error:eq:x');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'INVALID_QUERY');
  });

  it('refuses an id whose job is still queued, keeping its row, and starts a finished id afresh', async () => {
    await server.app.enqueue({ type: 'work', id: 'reused', actorId: 'u1', notBefore: new Date(Date.now() + 3_600_000) });
    await assert.rejects(server.app.enqueue({ type: 'other', id: 'reused' }), { name: 'DuplicateJobError', message: 'a job with id reused is already in the queue; give each job its own id or leave id out' });
    assert.deepEqual([(await status('reused')).body.data.type, (await status('reused')).body.data.actor_id], ['work', 'u1']);
    await server.app.cancelJob('reused');
    await server.app.enqueue({ type: 'work', id: 'reused' });
    await h.reached('reused', 'succeeded');
    const row = (await status('reused')).body.data;
    assert.deepEqual([row.status, row.actor_id, row.attempts], ['succeeded', null, 1]);
  });

  it('answers 405 to writes on job statuses, writing nothing', async () => {
    await server.app.enqueue({ type: 'listed', id: 'no-writes', notBefore: new Date(Date.now() + 3_600_000) });
    const post = await server.request('POST', '/job_statuses', { body: { type: 'x' } });
    assert.equal(post.status, 405);
    assert.equal(post.body.error.code, 'METHOD_NOT_ALLOWED');
    assert.equal(post.headers.get('allow'), 'GET, HEAD, OPTIONS');
    for (const method of ['PATCH', 'DELETE']) {
      const answer = await server.request(method, '/job_statuses/no-writes', { body: method === 'PATCH' ? { status: 'succeeded' } : undefined });
      assert.equal(answer.status, 405, method);
      assert.equal(answer.headers.get('allow'), 'GET, HEAD, OPTIONS');
    }
    assert.equal((await status('no-writes')).body.data.status, 'enqueued');
  });

  it('documents the job status routes without writes or the error field', async () => {
    const doc = server.app.document() as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    const writes = (path: string) => Object.keys(doc.paths[path]!).filter((m) => ['get', 'post', 'patch', 'put', 'delete'].includes(m));
    assert.deepEqual(writes('/job_statuses'), ['get']);
    assert.deepEqual(writes('/job_statuses/{id}'), ['get']);
    const schema = Object.entries(doc.components.schemas).find(([name]) => name === 'JobStatus')![1];
    assert.equal('error' in schema.properties, false);
    assert.ok('result_url' in schema.properties && 'completed_at' in schema.properties);
  });
});

eachBackend('background jobs between retries', (backend) => {
  const failed = new Recorder<JobTransition>();
  let app: App;
  const server = useServer(backend, {
    setup: (a) => void (app = a),
    prepare: async (adapter) =>
      void app.jobs({
        queue: sqlQueue(adapter),
        handlers: { flaky: () => Promise.reject(new Error('not today')) },
        backoff: { baseMs: 3_600_000 },
        pollMs: 10,
        onTransition: (t) => t.status === 'failed' && failed.push(t),
      }),
  });

  it('shows failed over HTTP while the retry waits, without the error, and cancels the waiting job', async () => {
    await server.app.enqueue({ type: 'flaky', id: 'waits-for-retry' });
    await failed.next((t) => t.id === 'waits-for-retry');
    const row = await server.request('GET', '/job_statuses/waits-for-retry');
    assert.deepEqual([row.body.data.status, row.body.data.attempts, row.body.data.completed_at], ['failed', 1, null]);
    assert.equal('error' in row.body.data, false);
    assert.equal((await server.app.db.raw("SELECT error FROM job_statuses WHERE id = 'waits-for-retry'"))[0]!.error, 'not today');
    await server.app.cancelJob('waits-for-retry');
    assert.equal((await server.request('GET', '/job_statuses/waits-for-retry')).body.data.status, 'cancelled');
  });
});
