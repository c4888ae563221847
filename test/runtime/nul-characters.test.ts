// NUL characters (issue 14, defect 4): no column can hold one (PostgreSQL's text and jsonb
// refuse it), so an id with one names no row (404) and a value with one is 422 naming the
// field, the same on every database; nothing is written. JSON columns nest at most 64 levels.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

const NUL = 'contains a NUL character, which no field can hold';
const DEEP = 'nests arrays and objects more than 64 levels deep; flatten the value';

/** `[[[…]]]`: arrays nested `levels` deep. */
const nested = (levels: number): unknown => {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
};

eachBackend('NUL characters', (backend) => {
  let makerId = '';
  let gizmo: Record<string, unknown> = {};
  let serial = 0;
  /** A create body that passes validation, with unique values of its own. */
  const valid = () => ({ code: `g-${++serial}`, kind: 'plain', family: `f-${serial}`, makerId });

  const server = useServer(backend, {
    fixture: 'hostile',
    // Multipart fields have no raw JSON to scan: a parser that reads its fields as JSON stands in for a real one.
    setup(app) {
      app.multipartParser(async (ctx) => {
        const chunks: Buffer[] = [];
        for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
        return { fields: JSON.parse(Buffer.concat(chunks).toString('utf8')), files: [] };
      });
    },
  });
  before(async () => {
    makerId = (await server.request('POST', '/makers', { body: { name: 'Acme' } })).body.data.id;
    gizmo = (await server.request('POST', '/gizmos', { body: { ...valid(), tags: ['a'], specs: { k: 'v' }, label: { en: 'Hi' } } })).body.data;
  });

  const count = async () => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM gizmos'))[0].n);
  const historyRows = async () => Number((await server.app.db.raw('SELECT COUNT(*) AS n FROM gizmo_history'))[0].n);

  it('an id with a NUL is 404 on read, update, delete and history, and nothing changes', async () => {
    const rows = await count();
    const versions = await historyRows();
    for (const [raw, id] of [
      ['%00', '\0'],
      ['a%00b', 'a\0b'],
      [`${gizmo.id}%00`, `${gizmo.id}\0`],
    ]) {
      const notFound = { code: 'NOT_FOUND', message: `no Gizmo with id "${id}"` };
      for (const [method, path, init] of [
        ['GET', `/gizmos/${raw}`, {}],
        ['PATCH', `/gizmos/${raw}`, { body: { kind: 'changed' } }],
        ['DELETE', `/gizmos/${raw}`, {}],
        ['GET', `/gizmos/${raw}/history`, {}],
      ] as const) {
        const res = await server.request(method, path, init);
        assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
        assert.deepEqual(res.body.error, notFound, `${method} ${path}`);
      }
      assert.equal((await server.request('HEAD', `/gizmos/${raw}`)).status, 404);
    }
    assert.equal(await count(), rows);
    assert.equal(await historyRows(), versions);
    const kept = await server.request('GET', `/gizmos/${gizmo.id}`);
    assert.equal(kept.body.data.kind, 'plain');
  });

  /** Values with a NUL and the field each 422 names: top level, inside JSON arrays and objects, keys, localized maps. */
  const cases: [Record<string, unknown>, string][] = [
    [{ code: 'a\0b' }, 'code'],
    [{ notes: '\0' }, 'notes'],
    [{ manual: `${'x'.repeat(1000)}\0` }, 'manual'],
    [{ tags: ['ok', 'x\0'] }, 'tags.1'],
    [{ specs: { deep: { k: 'v\0' } } }, 'specs.deep.k'],
    [{ specs: { list: [1, '\0'] } }, 'specs.list.1'],
    [{ specs: { 'k\0': 1 } }, 'specs'],
    // A bare string is stored as the request locale's text (label.en): the detail names where it would be stored.
    [{ label: 'hi\0' }, 'label.en'],
    [{ label: { en: 'ok', de: 'x\0' } }, 'label.de'],
    [{ label: { 'e\0n': 'x' } }, 'label'],
    [{ secret: 'password\0' }, 'secret'],
  ];

  it('a create with a NUL in any string is 422 naming the field, and writes nothing', async () => {
    const rows = await count();
    for (const [values, field] of cases) {
      const res = await server.request('POST', '/gizmos', { body: { ...valid(), ...values } });
      assert.equal(res.status, 422, `${JSON.stringify(values)}: ${res.text}`);
      assert.deepEqual(res.body.error, { code: 'VALIDATION_ERROR', message: 'the Gizmo is not valid; see details', details: [{ field, message: NUL }] });
    }
    assert.equal(await count(), rows);
  });

  it('an update with a NUL in any string is 422 naming the field, and changes nothing', async () => {
    const versions = await historyRows();
    for (const [values, field] of cases) {
      const res = await server.request('PATCH', `/gizmos/${gizmo.id}`, { body: values });
      assert.equal(res.status, 422, `${JSON.stringify(values)}: ${res.text}`);
      assert.deepEqual(res.body.error.details, [{ field, message: NUL }]);
    }
    const kept = await server.request('GET', `/gizmos/${gizmo.id}`);
    assert.deepEqual(kept.body.data, gizmo);
    assert.equal(await historyRows(), versions);
  });

  it('multipart fields are searched too (there are no raw JSON bytes to scan)', async () => {
    const rows = await count();
    const multipart = (values: Record<string, unknown>) => ({ raw: JSON.stringify(values), headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    const refused = await server.request('POST', '/gizmos', multipart({ ...valid(), notes: 'a\0' }));
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.body.error.details, [{ field: 'notes', message: NUL }]);
    assert.equal(await count(), rows);
    const stored = await server.request('POST', '/gizmos', multipart({ ...valid(), notes: 'fine' }));
    assert.equal(stored.status, 201, stored.text);
  });

  it('a NUL beside other mistakes: every field named once, in field order', async () => {
    const res = await server.request('POST', '/gizmos', { body: { ...valid(), code: 'x\0', rank: -1, notes: 'y\0' } });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.error.details, [
      { field: 'code', message: NUL },
      { field: 'rank', message: 'must be at least 0' },
      { field: 'notes', message: NUL },
    ]);
  });

  it('an escaped backslash before u0000 is text, not a NUL', async () => {
    const body = { ...valid(), notes: 'a\\u0000b', tags: ['\\u0000'] };
    const res = await server.request('POST', '/gizmos', { raw: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.notes, 'a\\u0000b');
    assert.deepEqual(res.body.data.tags, ['\\u0000']);
  });

  it('a NUL in a key the model does not declare is ignored like the key', async () => {
    const res = await server.request('POST', '/gizmos', { body: { ...valid(), 'x\0': 'y\0' } });
    assert.equal(res.status, 201, res.text);
  });

  it('JSON columns nest up to 64 levels; deeper is 422 naming the field', async () => {
    const stored = await server.request('POST', '/gizmos', { body: { ...valid(), specs: { a: nested(63) } } });
    assert.equal(stored.status, 201, stored.text);
    assert.deepEqual(stored.body.data.specs, { a: nested(63) });
    const rows = await count();
    // Written by hand: the client's own JSON.stringify would overflow its stack on the deepest.
    const json = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    for (const levels of [64, 5000, 100_000]) {
      const raw = `{"code":"deep-${levels}","kind":"k","family":"deep-${levels}","makerId":"${makerId}","specs":{"a":${json(levels)}}}`;
      const res = await server.request('POST', '/gizmos', { raw, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 422, res.text.slice(0, 300));
      assert.deepEqual(res.body.error.details, [{ field: 'specs', message: DEEP }]);
    }
    const patch = await server.request('PATCH', `/gizmos/${gizmo.id}`, { body: { specs: { a: nested(64) } } });
    assert.equal(patch.status, 422);
    assert.deepEqual(patch.body.error.details, [{ field: 'specs', message: DEEP }]);
    assert.equal(await count(), rows);
  });

  it('a NUL in a query parameter is still 400 naming the parameter', async () => {
    const res = await server.request('GET', `/gizmos?filter=${encodeURIComponent('code:eq:a\0')}`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error, { code: 'INVALID_QUERY', message: `query parameter "filter" ${NUL}` });
  });
});
