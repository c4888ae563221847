// The six-step pipeline: hook positions, scoping, short-circuits, errors, panics and request identity.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ApiError, type Context, type Hook } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';

const mark = (label: string): Hook => async (ctx, next) => {
  ((ctx.state.order ??= []) as string[]).push(label);
  await next();
};

const order = (ctx: Context) => ((ctx.state.order ?? []) as string[]).join(',');

eachBackend('pipeline hooks', (backend) => {
  const server = useServer(backend, {
    // Hooks here answer made-up statuses (401, 403, 418) and shapes on purpose; the document cannot list them.
    validateResponses: false,
    setup(app) {
      // Order: registered out of order on purpose; the step decides where each runs.
      app.use('service', mark('service-after'), { position: 'after' });
      app.use('service', mark('service-before'));
      app.use('auth', mark('auth'));
      app.use('db', mark('db-after'), { position: 'after' });
      app.use('validate', mark('validate'));
      app.use('response', async (ctx, next) => {
        await next();
        ctx.headers['X-Order'] = order(ctx);
      }, { position: 'after' });

      // Scoped hooks: inclusion-only.
      app.use('service', mark('tags-only'), { models: ['Tag'] });
      app.use('service', mark('create-only'), { ops: ['create'] });
      app.use('service', mark('tag-create-only'), { models: ['Tag'], ops: ['create'] });

      // Replace the DB step of Company reads with a canned record.
      app.use('db', async (ctx, next) => {
        ctx.result = { id: ctx.params.id, name: 'Canned', country: 'NZ', created_at: 'then', updated_at: 'now' };
        await next();
      }, { position: 'replace', models: ['Company'], ops: ['read'] });

      // Short-circuit and overwrite behaviour, switched by headers.
      app.use('auth', async (ctx, next) => {
        const mode = ctx.req.headers['x-test-mode'];
        if (mode === 'teapot') return ctx.respond(418, { stopped: true });
        if (mode === 'respond-and-continue') ctx.respond(418, { stopped: false });
        if (mode === 'error') throw new Error('secret hook failure detail');
        if (mode === 'type-error') (null as unknown as { x: { y: number } }).x.y = 1;
        if (mode === 'throw-string') throw 'a string';
        if (mode === 'api-error') throw new ApiError('FORBIDDEN', 'only editors may do this');
        if (mode === 'trace') ctx.headers['X-Trace-Id'] = ctx.traceId;
        await next();
      });

      // Service-step writes on create (spec rule 7).
      app.use('service', async (ctx, next) => {
        if (ctx.req.headers['x-test-mode'] === 'rewrite') {
          ctx.body!.body = 'set by hook';
          delete ctx.body!.approved;
        }
        if (ctx.req.headers['x-test-mode'] === 'nullify') ctx.body!.userId = null;
        await next();
      }, { models: ['Comment'], ops: ['create'] });
    },
  });

  it('runs hooks per step in order: before, default, after', async () => {
    const res = await server.request('GET', '/users');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-order'), 'auth,validate,service-before,service-after,db-after');
    const created = await server.request('POST', '/companies', { body: { name: 'Ordered' } });
    assert.equal(created.headers.get('x-order'), 'auth,validate,service-before,create-only,service-after,db-after');
  });

  it('scopes hooks by model and operation, inclusion-only', async () => {
    const tagList = await server.request('GET', '/tags');
    assert.equal(tagList.headers.get('x-order'), 'auth,validate,service-before,tags-only,service-after,db-after');
    const tagCreate = await server.request('POST', '/tags', { body: { name: 'scoped' } });
    assert.equal(tagCreate.headers.get('x-order'), 'auth,validate,service-before,tags-only,create-only,tag-create-only,service-after,db-after');
  });

  it('replaces a default step with a replace hook', async () => {
    const res = await server.request('GET', '/companies/any-id');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { id: 'any-id', name: 'Canned', country: 'NZ', created_at: 'then', updated_at: 'now' });
  });

  it('ends the chain when a hook responds without calling next; nothing is written', async () => {
    const before = Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM tags'))[0].n);
    const res = await server.request('POST', '/tags', { body: { name: 'never' }, headers: { 'x-test-mode': 'teapot' } });
    assert.equal(res.status, 418);
    assert.deepEqual(res.body, { stopped: true });
    assert.ok(res.headers.get('x-request-id'));
    assert.equal(Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM tags'))[0].n), before);
  });

  it('lets later steps overwrite a response when the hook calls next', async () => {
    const res = await server.request('POST', '/tags', { body: { name: 'continued' }, headers: { 'x-test-mode': 'respond-and-continue' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.name, 'continued');
  });

  it('answers 500 INTERNAL with a generic message when a hook returns an error', async () => {
    const res = await server.request('GET', '/users', { headers: { 'x-test-mode': 'error' } });
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: { code: 'INTERNAL', message: 'internal server error' } });
    assert.doesNotMatch(res.text, /secret/);
    assert.ok(server.logs.some((l) => l.level === 'error' && String(l.fields.err).includes('secret hook failure detail')));
  });

  it('answers 500 PANIC for a programming error or a thrown non-Error, and keeps serving', async () => {
    for (const mode of ['type-error', 'throw-string']) {
      const res = await server.request('GET', '/users', { headers: { 'x-test-mode': mode } });
      assert.equal(res.status, 500, mode);
      assert.deepEqual(res.body, { error: { code: 'PANIC', message: 'internal server error' } });
    }
    assert.equal((await server.request('GET', '/users')).status, 200);
  });

  it('answers an ApiError thrown by a hook with its own code and message', async () => {
    const res = await server.request('GET', '/users', { headers: { 'x-test-mode': 'api-error' } });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, { error: { code: 'FORBIDDEN', message: 'only editors may do this' } });
  });

  it('lets the Service step set and delete fields on create', async () => {
    const user = (await server.request('POST', '/users', { body: { name: 'Writer', email: 'writer@example.com' } })).body.data;
    const post = (await server.request('POST', '/posts', { body: { title: 'P', userId: user.id } })).body.data;
    const rewritten = await server.request('POST', '/comments', {
      body: { body: 'from client', postId: post.id, approved: false },
      headers: { 'x-test-mode': 'rewrite' },
    });
    assert.equal(rewritten.status, 201, rewritten.text);
    assert.equal(rewritten.body.data.body, 'set by hook');
    assert.equal(rewritten.body.data.approved, true, 'a deleted field leaves the column out, so its default applies');

    const nullified = await server.request('POST', '/comments', {
      body: { body: 'x', postId: post.id, userId: user.id },
      headers: { 'x-test-mode': 'nullify' },
    });
    assert.equal(nullified.body.data.userId, null, 'null writes NULL');
  });

  it('gives every response an X-Request-Id, echoing a sane client one', async () => {
    for (const path of ['/users', '/users/missing', '/nope']) {
      const res = await server.request('GET', path);
      assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, path);
    }
    const echoed = await server.request('GET', '/users', { headers: { 'x-request-id': 'req-123.abc' } });
    assert.equal(echoed.headers.get('x-request-id'), 'req-123.abc');
    const refused = await server.request('GET', '/users', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.notEqual(refused.headers.get('x-request-id'), 'bad id with spaces');
  });

  it('takes the trace id from a valid traceparent header, for hooks and logs', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await server.request('GET', '/users', {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, 'x-test-mode': 'trace' },
    });
    assert.equal(res.headers.get('x-trace-id'), traceId);
    const line = server.logs.find((l) => l.message === 'request' && l.fields.requestId === res.headers.get('x-request-id'));
    assert.equal(line?.fields.traceId, traceId);

    const invalid = await server.request('GET', '/users', { headers: { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, 'x-test-mode': 'trace' } });
    assert.match(invalid.headers.get('x-trace-id') ?? '', /^[0-9a-f]{32}$/);
    assert.notEqual(invalid.headers.get('x-trace-id'), '0'.repeat(32));
  });

  it('logs one structured line per request', async () => {
    const res = await server.request('GET', '/tags?limit=1');
    const line = server.logs.find((l) => l.message === 'request' && l.fields.requestId === res.headers.get('x-request-id'));
    assert.ok(line);
    assert.equal(line.fields.method, 'GET');
    assert.equal(line.fields.path, '/api/tags');
    assert.equal(line.fields.status, 200);
    assert.equal(typeof line.fields.durationMs, 'number');
  });
});

eachBackend('service identity and tracing', (backend) => {
  const server = useServer(backend, {
    // Hooks here answer made-up statuses (401, 403, 418) and shapes on purpose; the document cannot list them.
    validateResponses: false,
    config: { serviceName: 'blog-api', trace: { enabled: true, timings: true, steps: true, aborts: true, skips: true, bodies: true } },
    setup(app) {
      app.use('auth', async (ctx, next) => {
        if (ctx.req.headers['x-stop']) return ctx.respond(401, { error: { code: 'UNAUTHORIZED', message: 'stop' } });
        await next();
      });
    },
  });

  it('adds X-Service-Name to every response', async () => {
    assert.equal((await server.request('GET', '/users')).headers.get('x-service-name'), 'blog-api');
    assert.equal((await server.request('GET', '/nowhere')).headers.get('x-service-name'), 'blog-api');
  });

  it('reports per-step time in Server-Timing when Trace.Timings is on', async () => {
    const res = await server.request('POST', '/tags', { body: { name: 'timed' } });
    const timing = res.headers.get('server-timing') ?? '';
    for (const step of ['auth', 'deserialize', 'validate', 'service', 'db', 'response']) {
      assert.match(timing, new RegExp(`${step};dur=\\d+\\.\\d{2}`), step);
    }
  });

  it('logs steps, bodies, aborts and skipped steps when those flags are on', async () => {
    const created = await server.request('POST', '/tags', { body: { name: 'traced' } });
    const id = created.headers.get('x-request-id');
    const mine = server.logs.filter((l) => l.fields.requestId === id);
    assert.deepEqual(mine.filter((l) => l.message === 'pipeline step').map((l) => l.fields.step), ['auth', 'deserialize', 'validate', 'service', 'db', 'response']);
    assert.ok(mine.some((l) => l.message === 'request body'));
    assert.ok(mine.some((l) => l.message === 'response body'));

    const stopped = await server.request('GET', '/users', { headers: { 'x-stop': '1' } });
    const stopId = stopped.headers.get('x-request-id');
    const aborted = server.logs.find((l) => l.fields.requestId === stopId && l.message === 'pipeline ended early');
    assert.equal(aborted?.fields.step, 'auth');
    const skipped = server.logs.find((l) => l.fields.requestId === stopId && l.message === 'pipeline steps skipped');
    assert.deepEqual(skipped?.fields.skipped, ['deserialize', 'validate', 'service', 'db', 'response']);
  });
});

eachBackend('database errors', (backend) => {
  const server = useServer(backend, {
    setup(app) {
      // Breaks the table under the DB step, as a failed deploy or a manual change would.
      app.use('service', async (ctx, next) => {
        if (ctx.req.headers['x-break']) await ctx.db.raw('DROP TABLE post_tags');
        await next();
      }, { models: ['PostTag'] });
    },
  });

  it('answers 500 DB_ERROR with a generic message, never the database text', async () => {
    const res = await server.request('GET', '/post_tags', { headers: { 'x-break': '1' } });
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: { code: 'DB_ERROR', message: 'internal server error' } });
    assert.doesNotMatch(res.text, /post_tags|relation|table|SQL/i);
    assert.ok(server.logs.some((l) => l.message === 'database error'));
    assert.equal((await server.request('GET', '/tags')).status, 200, 'other routes keep working');
  });
});

// Without a user hook a SQLite read, list or create is answered in the call that started it (no
// promise, issue 16): a driver error thrown there is answered and logged as one from a promise was.
eachBackend('database errors of requests without hooks', (backend) => {
  const server = useServer(backend);

  it('answers 500 DB_ERROR to a read, a list and a create whose table is gone, and logs each request', async () => {
    await server.app.db.exec('DROP TABLE post_tags');
    const requests = [
      await server.request('GET', '/post_tags/9f6c1a52-0000-4000-8000-000000000001'),
      await server.request('GET', '/post_tags?limit=5'),
      await server.request('POST', '/post_tags', { body: { postId: '9f6c1a52-0000-4000-8000-000000000002', tagId: '9f6c1a52-0000-4000-8000-000000000003' } }),
    ];
    for (const res of requests) {
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { error: { code: 'DB_ERROR', message: 'internal server error' } });
      const id = res.headers.get('x-request-id');
      assert.ok(server.logs.some((l) => l.message === 'database error' && l.fields.requestId === id));
      const line = await server.logLine((l) => l.message === 'request' && l.fields.requestId === id);
      assert.equal(line.fields.status, 500);
    }
    assert.equal((await server.request('GET', '/tags')).status, 200, 'other routes keep working');
  });
});
