// Job type names (docs/jobs.md, "Job type names"): dotted segments of letters, digits, '_' or '-'. A bad
// name is refused where it is first given: a ConfigError at app.jobs({ handlers, dlqType }) and
// app.every(); a TypeError from app.enqueue without a request and from a queue's enqueue; in a request
// (a hook enqueueing), 500 INVALID_JOB_TYPE with the reason logged, nothing enqueued and the request's
// transaction rolled back. Never a silent accept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type App, createServer, jobTypeProblem, memoryQueue, silentLogger, sqlQueue, transaction } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';

const RULE = `a job type is dotted segments of letters, digits, '_' or '-', such as "email.send" (it names the events job.<type>.completed and job.<type>.failed, which subscribers match by pattern)`;
const EMPTY = 'a job needs a type (a non-empty string that selects its handler)';

/** Every bad name and the exact reason given for it. */
const BAD: ReadonlyArray<[string, string]> = [
  ['', EMPTY],
  ['email..send', `the job type "email..send" has an empty segment: ${RULE}`],
  ['.email', `the job type ".email" has an empty segment: ${RULE}`],
  ['email.', `the job type "email." has an empty segment: ${RULE}`],
  ['.', `the job type "." has an empty segment: ${RULE}`],
  ['email send', `the job type "email send" has the character " ": ${RULE}`],
  [' email', `the job type " email" has the character " ": ${RULE}`],
  ['email\tsend', `the job type "email\\tsend" has the character "\\t": ${RULE}`],
  ['email\nsend', `the job type "email\\nsend" has the character "\\n": ${RULE}`],
  ['email.*', `the job type "email.*" has the character "*": ${RULE}`],
  ['*', `the job type "*" has the character "*": ${RULE}`],
  ['email.>', `the job type "email.>" has the character ">": ${RULE}`],
  ['email.#', `the job type "email.#" has the character "#": ${RULE}`],
  ['email/send', `the job type "email/send" has the character "/": ${RULE}`],
  ['email:send', `the job type "email:send" has the character ":": ${RULE}`],
  ['émail', `the job type "émail" has the character "é": ${RULE}`],
];

const GOOD = ['email', 'email.send', 'report-build', 'billing.invoice_v2', 'Report.Build', 'a.b.c.d', '2fa.sms', 'mfx.scheduled.sweep'];

describe('job type names', () => {
  it('accepts dotted segments of letters, digits, _ and -', () => {
    for (const type of GOOD) assert.equal(jobTypeProblem(type), null, type);
    const app = createServer({ logger: silentLogger, handleSignals: false });
    app.jobs({ queue: memoryQueue(), handlers: Object.fromEntries(GOOD.filter((t) => t !== 'mfx.scheduled.sweep').map((t) => [t, async () => ({})])), dlqType: 'jobs.dead' });
    for (const type of GOOD) app.every('1m', { type });
  });

  it('refuses each bad name in app.jobs() handlers with a ConfigError saying why', () => {
    for (const [type, reason] of BAD) {
      const app = createServer({ logger: silentLogger, handleSignals: false });
      assert.throws(() => app.jobs({ queue: memoryQueue(), handlers: { ok: async () => ({}), [type]: async () => ({}) } }), { name: 'ConfigError', message: `mfx: app.jobs() handlers: ${reason}` }, JSON.stringify(type));
    }
  });

  it('refuses each bad dlqType in app.jobs() with a ConfigError', () => {
    for (const [type, reason] of BAD) {
      const app = createServer({ logger: silentLogger, handleSignals: false });
      assert.throws(() => app.jobs({ queue: memoryQueue(), handlers: {}, dlqType: type }), { name: 'ConfigError', message: `mfx: app.jobs() dlqType: ${reason}` }, JSON.stringify(type));
    }
  });

  it('refuses each bad name in app.every() with a ConfigError', () => {
    const app = createServer({ logger: silentLogger, handleSignals: false });
    for (const [type, reason] of BAD) {
      const message = type === '' ? "mfx: app.every() needs a job with a type: app.every('5m', { type: 'cache.refresh' })" : `mfx: app.every(): ${reason}`;
      assert.throws(() => app.every('1m', { type }), { name: 'ConfigError', message }, JSON.stringify(type));
    }
  });

  it('rejects each bad name from app.enqueue() without a request and from a queue, with a TypeError saying why', async () => {
    const queue = memoryQueue();
    const app = createServer({ logger: silentLogger, handleSignals: false });
    app.jobs({ queue, handlers: {}, statusRoutes: false });
    for (const [type, reason] of BAD) {
      await assert.rejects(app.enqueue({ type }), { name: 'TypeError', message: reason }, JSON.stringify(type));
      await assert.rejects(queue.enqueue([{ type }]), { name: 'TypeError', message: reason }, JSON.stringify(type));
    }
    assert.deepEqual(await queue.claim({ limit: 100, leaseMs: 1000 }), [], 'nothing was enqueued');
  });
});

eachBackend('a bad job type enqueued in a request', (backend) => {
  let app!: App;
  const server = useServer(backend, {
    setup: (a) => void (app = a),
    prepare: async (adapter) => {
      // No handler: jobs stay enqueued for the test to find.
      app.jobs({ queue: sqlQueue(adapter), handlers: {} });
      app.use('service', transaction(), { models: ['Tag'], ops: ['create'] });
      app.use(
        'db',
        async (ctx, next) => {
          await next();
          const type = ctx.req.headers['x-job-type'];
          if (typeof type === 'string') await app.enqueue({ type: decodeURIComponent(type) }, ctx);
        },
        { models: ['Tag'], ops: ['create'], position: 'after' },
      );
    },
  });
  const count = async (sql: string, params: unknown[]) => Number((await app.db.raw(sql, params))[0]!.n);

  it('answers 500 INVALID_JOB_TYPE for each bad name, logs why, enqueues nothing and rolls the write back', async () => {
    for (const [i, [type, reason]] of BAD.entries()) {
      const name = `bad-type-${i}`;
      const res = await server.request('POST', '/tags', { body: { name }, headers: { 'x-job-type': encodeURIComponent(type) } });
      assert.equal(res.status, 500, `${JSON.stringify(type)}: ${res.text}`);
      assert.deepEqual(res.body, { error: { code: 'INVALID_JOB_TYPE', message: 'internal server error' } });
      // Each reason is a different text: the line of this request.
      const line = await server.logLine((l) => l.message === `a job was enqueued with a bad type, so the request fails: ${reason}`);
      assert.deepEqual([line.level, line.fields.type, line.fields.model, line.fields.op], ['error', type, 'Tag', 'create']);
      assert.equal(await count('SELECT COUNT(*) AS n FROM tags WHERE name = ?', [name]), 0, 'the write rolled back');
    }
    assert.equal(await count('SELECT COUNT(*) AS n FROM mfx_jobs', []), 0, 'no job');
    assert.equal(await count('SELECT COUNT(*) AS n FROM job_statuses', []), 0, 'no status row');
  });

  it('enqueues a good name in the same request', async () => {
    const res = await server.request('POST', '/tags', { body: { name: 'good-type' }, headers: { 'x-job-type': 'email.send' } });
    assert.equal(res.status, 201, res.text);
    const [row] = await app.db.raw('SELECT type, status FROM job_statuses');
    assert.deepEqual([row?.type, row?.status], ['email.send', 'enqueued']);
  });
});
