// Issue 20, item 1: the validation hooks of the `validate` namespace (spec:
// Errors, validation rule 6). Each passes and fails end to end; failures of
// hooks and directive rules answer one 422; on PATCH the hooks judge the
// stored record with the patch over it; validate.unique answers the 409 of a
// database unique violation before the write, and a race still answers it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { type App, staticKeyProvider, validate } from '@mfx/runtime';
import { backtrackingRisk } from '../../runtime/src/hooks/validate-rules.js';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

const keys = () => ({ default: randomBytes(32), index: randomBytes(32) });

function hooks(app: App): void {
  app.use('validate', validate.regex({ field: 'slug', pattern: /^[a-z0-9-]+$/, message: 'must be lower-case letters, digits and dashes' }), { models: ['Event'] });
  app.use('validate', validate.forbidden({ field: 'title', values: ['untitled', 'test'] }), { models: ['Event'] });
  app.use('validate', validate.atLeastOne({ fields: ['email', 'phone'] }), { models: ['Event'] });
  app.use('validate', validate.crossField({ fields: ['minSeats', 'maxSeats'], check: (v) => v.minSeats == null || v.maxSeats == null || (v.minSeats as number) <= (v.maxSeats as number), message: 'must not be below minSeats' }), { models: ['Event'] });
  app.use('validate', validate.dateRange({ start: 'startsAt', end: 'endsAt' }), { models: ['Event'] });
  app.use('validate', validate.requiredWhen({ field: 'publishedAt', when: { field: 'status', equals: 'published' } }), { models: ['Event'] });
  app.use('validate', validate.unique({ field: 'email' }), { models: ['Member'] });
  app.use('validate', validate.unique({ field: 'handle', caseInsensitive: true }), { models: ['Member'] });
  app.use('validate', validate.unique({ field: 'code' }), { models: ['Secret'] });
  app.use('validate', validate.crossField({ fields: ['name'], check: (v) => {
    if (v.name === 'boom') throw new Error('the check failed');
    return true;
  }, message: 'never' }), { models: ['Member'] });
}

const invalid = (model: string, details: { field: string; message: string }[]) => ({ error: { code: 'VALIDATION_ERROR', message: `the ${model} is not valid; see details`, details } });

const good = { title: 'Launch', email: 'a@example.com' };

eachBackend('validation hooks', (backend) => {
  const server = useServer(backend, { fixture: 'validation', setup: hooks, config: { keyProvider: staticKeyProvider({ keys: keys() }) } });
  const count = async (table: string) => Number((await server.app.db.raw(`SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);
  const post = (path: string, body: Record<string, unknown>) => server.request('POST', path, { body });
  const patch = (path: string, body: Record<string, unknown>) => server.request('PATCH', path, { body });

  /** A refused write: exact answer, and the table holds as many rows as before. */
  async function refused(table: string, write: () => Promise<{ status: number; body: unknown }>, status: number, body: unknown): Promise<void> {
    const before = await count(table);
    const res = await write();
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.deepEqual(res.body, body);
    assert.equal(await count(table), before, 'nothing was written');
  }

  describe('each hook passes and fails', () => {
    it('validate.regex: a matching value passes; another fails with its message; absent and null skip it', async () => {
      assert.equal((await post('/events', { ...good, slug: 'launch-2026' })).status, 201);
      assert.equal((await post('/events', { ...good, slug: null })).status, 201);
      await refused('events', () => post('/events', { ...good, slug: 'Launch 2026' }), 422, invalid('Event', [{ field: 'slug', message: 'must be lower-case letters, digits and dashes' }]));
    });

    it('validate.regex: a value over 10,000 characters fails without being tested', async () => {
      await refused('events', () => post('/events', { ...good, slug: 'a'.repeat(10_001) }), 422, invalid('Event', [{ field: 'slug', message: 'is too long to check against its pattern (at most 10000 characters)' }]));
    });

    it('validate.forbidden: a listed value fails naming it', async () => {
      assert.equal((await post('/events', { ...good, title: 'untitled draft' })).status, 201);
      await refused('events', () => post('/events', { ...good, title: 'untitled' }), 422, invalid('Event', [{ field: 'title', message: 'must not be untitled' }]));
    });

    it('validate.atLeastOne: either field passes; neither (or blank, or null) fails naming the first', async () => {
      assert.equal((await post('/events', { title: 'Phone only', phone: '+41 00' })).status, 201);
      const detail = [{ field: 'email', message: 'is required unless one of phone is given: give at least one of email, phone' }];
      await refused('events', () => post('/events', { title: 'Nobody' }), 422, invalid('Event', detail));
      await refused('events', () => post('/events', { title: 'Nobody', email: ' ', phone: null }), 422, invalid('Event', detail));
    });

    it('validate.crossField: check false fails naming the last field', async () => {
      assert.equal((await post('/events', { ...good, minSeats: 2, maxSeats: 2 })).status, 201);
      await refused('events', () => post('/events', { ...good, minSeats: 3, maxSeats: 2 }), 422, invalid('Event', [{ field: 'maxSeats', message: 'must not be below minSeats' }]));
    });

    it('validate.dateRange: end equal to start passes; end before start fails naming end', async () => {
      assert.equal((await post('/events', { ...good, startsAt: '2026-05-01T10:00:00Z', endsAt: '2026-05-01T10:00:00Z' })).status, 201);
      assert.equal((await post('/events', { ...good, startsAt: '2026-05-01T10:00:00Z' })).status, 201, 'one side only');
      await refused('events', () => post('/events', { ...good, startsAt: '2026-05-02T00:00:00Z', endsAt: '2026-05-01T00:00:00Z' }), 422, invalid('Event', [{ field: 'endsAt', message: 'must not be before startsAt' }]));
    });

    it('validate.requiredWhen: required once the other field equals the value (a default counts)', async () => {
      assert.equal((await post('/events', { ...good })).status, 201, 'status defaults to draft');
      assert.equal((await post('/events', { ...good, status: 'published', publishedAt: '2026-01-01T00:00:00Z' })).status, 201);
      await refused('events', () => post('/events', { ...good, status: 'published' }), 422, invalid('Event', [{ field: 'publishedAt', message: 'is required when status is published' }]));
    });
  });

  it('failures of hooks and directive rules answer one 422, in one list, one detail per field', async () => {
    await refused(
      'events',
      () => post('/events', { title: 'x', status: 'gone', slug: 'Bad Slug', minSeats: -1, maxSeats: -5, startsAt: '2026-05-02T00:00:00Z', endsAt: '2026-05-01T00:00:00Z' }),
      422,
      invalid('Event', [
        { field: 'title', message: 'must be at least 3 characters long' },
        { field: 'status', message: 'must be one of: draft, published' },
        { field: 'minSeats', message: 'must be at least 0' },
        { field: 'slug', message: 'must be lower-case letters, digits and dashes' },
        { field: 'email', message: 'is required unless one of phone is given: give at least one of email, phone' },
        { field: 'maxSeats', message: 'must not be below minSeats' },
        { field: 'endsAt', message: 'must not be before startsAt' },
      ]),
    );
  });

  it('on PATCH the hooks judge the stored record with the patch over it: one side of a rule cannot dodge it', async () => {
    const created = await post('/events', { ...good, startsAt: '2026-05-01T00:00:00Z', endsAt: '2026-05-03T00:00:00Z', minSeats: 2, maxSeats: 10 });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    const unchanged = async () => (await server.request('GET', `/events/${id}`)).body.data;
    const before = await unchanged();
    const at = `/events/${id}`;
    const refusedPatch = async (body: Record<string, unknown>, details: { field: string; message: string }[]) => {
      const res = await patch(at, body);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.deepEqual(res.body, invalid('Event', details));
      assert.deepEqual(await unchanged(), before, 'nothing was written');
    };
    await refusedPatch({ endsAt: '2026-04-30T00:00:00Z' }, [{ field: 'endsAt', message: 'must not be before startsAt' }]);
    await refusedPatch({ startsAt: '2026-05-04T00:00:00Z' }, [{ field: 'endsAt', message: 'must not be before startsAt' }]);
    await refusedPatch({ minSeats: 11 }, [{ field: 'maxSeats', message: 'must not be below minSeats' }]);
    await refusedPatch({ email: null }, [{ field: 'email', message: 'is required unless one of phone is given: give at least one of email, phone' }]);
    await refusedPatch({ status: 'published' }, [{ field: 'publishedAt', message: 'is required when status is published' }]);
    const moved = await patch(at, { startsAt: '2026-05-02T00:00:00Z', minSeats: 10 });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.data.minSeats, 10);
    assert.equal((await patch('/events/00000000-0000-4000-8000-000000000000', { minSeats: 1 })).status, 404, 'no stored record: the DB step answers');
  });

  it('a crossField check that throws is a hook error: 500 INTERNAL, logged, nothing written', async () => {
    await refused('members', () => post('/members', { email: 'boom@example.com', name: 'boom' }), 500, { error: { code: 'INTERNAL', message: 'internal server error' } });
    assert.ok(server.logs.some((l) => l.message === 'hook returned an error' && String(l.fields.err).includes('the check failed')));
  });

  describe('validate.unique', () => {
    /** The 409 a database unique violation answers, with the hook's detail. */
    const conflict = (table: string, column: string, detail: string) => ({
      error: { code: 'CONFLICT', message: `a record with this ${column} already exists`, details: { table, column, detail } },
    });

    it('a taken value is 409 CONFLICT before the write, with the details shape of a database violation', async () => {
      assert.equal((await post('/members', { email: 'ada@example.com', name: 'Ada' })).status, 201);
      await refused('members', () => post('/members', { email: 'ada@example.com', name: 'Other' }), 409, conflict('members', 'email', 'another Member already has this email'));
    });

    it('an update keeping its own value passes; taking another record\'s value is 409', async () => {
      const a = (await post('/members', { email: 'u1@example.com', name: 'One', handle: 'one' })).body.data;
      await post('/members', { email: 'u2@example.com', name: 'Two', handle: 'two' });
      const same = await patch(`/members/${a.id}`, { email: 'u1@example.com', handle: 'one', name: 'Uno' });
      assert.equal(same.status, 200, same.text);
      const res = await patch(`/members/${a.id}`, { email: 'u2@example.com' });
      assert.deepEqual([res.status, res.body], [409, conflict('members', 'email', 'another Member already has this email')]);
      assert.equal((await server.request('GET', `/members/${a.id}`)).body.data.email, 'u1@example.com', 'nothing was written');
    });

    it('caseInsensitive: another spelling collides, on a field without a UNIQUE constraint', async () => {
      await post('/members', { email: 'c1@example.com', name: 'C', handle: 'Grace' });
      await refused('members', () => post('/members', { email: 'c2@example.com', name: 'D', handle: 'grace' }), 409, conflict('members', 'handle', 'another Member already has this handle (compared case-insensitively)'));
    });

    it('a soft-deleted holder does not collide (the model\'s live-rows unique rule)', async () => {
      const gone = (await post('/members', { email: 'gone@example.com', name: 'Gone', handle: 'gone' })).body.data;
      assert.equal((await server.request('DELETE', `/members/${gone.id}`)).status, 204);
      assert.equal((await post('/members', { email: 'gone@example.com', name: 'Back', handle: 'GONE' })).status, 201);
    });

    it('an encrypted,unique field is compared on its blind index; the 409 names the field, never the index', async () => {
      assert.equal((await post('/secrets', { code: 'S-1' })).status, 201);
      await refused('secrets', () => post('/secrets', { code: 'S-1' }), 409, conflict('secrets', 'code', 'another Secret already has this code'));
      assert.equal((await post('/secrets', { code: 'S-2' })).status, 201);
    });

    it('a race: 20 concurrent creates of one value give one 201 and nineteen 409 of the same shape', async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post('/members', { email: 'race@example.com', name: `R${i}` })));
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, ...Array(19).fill(409)]);
      for (const a of answers.filter((r) => r.status === 409)) {
        assert.equal(a.body.error.code, 'CONFLICT');
        assert.equal(a.body.error.message, 'a record with this email already exists');
        assert.equal(a.body.error.details.table, 'members');
        assert.equal(a.body.error.details.column, 'email');
        assert.equal(typeof a.body.error.details.detail, 'string');
      }
      assert.equal(Number((await server.app.db.raw("SELECT COUNT(*) AS n FROM members WHERE email = 'race@example.com'"))[0]!.n), 1);
    });

    it('OpenAPI documents the 409 on create and update', async () => {
      const doc = (await server.request('GET', '/openapi.json')).body;
      assert.ok(doc.paths['/members'].post.responses['409']);
      assert.ok(doc.paths['/members/{id}'].patch.responses['409']);
    });
  });
});

describe('validation hooks at registration', () => {
  /** Starting fails (startServer's start throws; the in-memory database goes with the process). */
  const boot = (register: (app: App) => void) => startServer(sqlite, { fixture: 'validation', setup: register, config: { keyProvider: staticKeyProvider({ keys: keys() }) } });

  it('a field the scoped model lacks is refused, naming the hook and the field', async () => {
    await assert.rejects(boot((app) => app.use('validate', validate.regex({ field: 'nope', pattern: /x/ }), { models: ['Event'] })), {
      message: /^mfx: validate\.regex\(\{ field: 'nope' \}\) is scoped to Event, which has no field "nope"; fields: /,
    });
    await assert.rejects(boot((app) => app.use('validate', validate.dateRange({ start: 'startsAt', end: 'finish' }))), {
      message: "mfx: validate.dateRange({ start: 'startsAt', end: 'finish' }): no model has the fields \"startsAt\", \"finish\"; scope the hook with { models: [...] } to models that do",
    });
  });

  it('a step or position other than the validate step before its default is refused', async () => {
    await assert.rejects(boot((app) => app.use('service', validate.forbidden({ field: 'title', values: ['x'] }), { models: ['Event'] })), {
      message: "mfx: validate.forbidden({ field: 'title' }) belongs at the validate step, not service: app.use('validate', validate.forbidden({ field: 'title' }))",
    });
    await assert.rejects(boot((app) => app.use('validate', validate.forbidden({ field: 'title', values: ['x'] }), { models: ['Event'], position: 'after' })), {
      message: /runs at the default before position of the validate step .* not "after"$/,
    });
  });

  it('validate.unique refuses fields it cannot compare', async () => {
    await assert.rejects(boot((app) => app.use('validate', validate.unique({ field: 'code', caseInsensitive: true }), { models: ['Secret'] })), {
      message: "mfx: validate.unique({ field: 'code' }): Secret.code is encrypted, and its blind index compares exact text only; drop caseInsensitive or lower-case the value in a service hook",
    });
  });

  it('validate.regex refuses catastrophic-backtracking shapes and takes linear ones', () => {
    assert.throws(() => validate.regex({ field: 'slug', pattern: /^(a+)+$/ }), {
      message: "mfx: validate.regex({ field: 'slug' }): the pattern /^(a+)+$/ can take exponential time on some inputs because a repeated group holds another repetition (such as (a+)+); rewrite it without nested repetition",
    });
    for (const p of [/(\w*)*$/, /^((ab)*c)+$/, /(x+x+){2,}/, /(.*){3}/]) assert.ok(backtrackingRisk(p), String(p));
    assert.match(backtrackingRisk(/(a)\1/) ?? '', /back-reference/);
    for (const p of [/^[a-z0-9-]+$/, /^(ab|cd)+$/, /^\d{3}-\d{4}$/, /^[(+)]*$/, /^(\(a+\))$/, /^(?:[a-z]+\.)?example\.com$/]) assert.equal(backtrackingRisk(p), null, String(p));
  });

  it('options missing are refused with the shape to give', () => {
    assert.throws(() => validate.unique({} as never), { message: 'mfx: validate.unique() needs { field }: the field no two records may share, such as { field: "email" }' });
    assert.throws(() => validate.atLeastOne({ fields: ['a'] }), { message: 'mfx: validate.atLeastOne() needs { fields }: two or more fields, such as { fields: ["email", "phone"] }' });
  });
});
