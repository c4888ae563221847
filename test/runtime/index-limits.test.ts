// Values too large for an index (issue 14, defect 5): indexed text has a maximum length that
// its index can hold even when every character takes 4 bytes; at the limit the write is
// stored (and indexed, on PostgreSQL too), one character over is 422 naming the field, never 500.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

let next = 0x20000;
/**
 * `n` distinct 4-byte characters (CJK Extension B on), never repeating
 * between calls: the worst case for an index entry, which nothing
 * compresses and every unique index accepts.
 */
const widest = (n: number): string => {
  let text = '';
  for (let i = 0; i < n; i++) text += String.fromCodePoint(next++);
  return text;
};

const tooLong = (limit: number) => `must be at most ${limit} characters long`;

eachBackend('values too large for an index', (backend) => {
  const server = useServer(backend, { fixture: 'hostile' });
  let makerId = '';
  let gizmoId = '';
  let serial = 0;
  const valid = () => ({ code: `g-${++serial}`, kind: 'plain', family: `f-${serial}`, makerId });

  before(async () => {
    makerId = (await server.request('POST', '/makers', { body: { name: 'Acme' } })).body.data.id;
    gizmoId = (await server.request('POST', '/gizmos', { body: valid() })).body.data.id;
  });

  const count = async (table: string) => Number((await server.app.db.raw(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);

  it('a 4,000,000-character value in a unique column is 422 naming the field, not 500', async () => {
    const res = await server.request('POST', '/makers', { body: { name: 'x'.repeat(4_000_000) } });
    assert.equal(res.status, 422, res.text.slice(0, 300));
    assert.deepEqual(res.body.error, { code: 'VALIDATION_ERROR', message: 'the Maker is not valid; see details', details: [{ field: 'name', message: tooLong(255) }] });
    assert.equal(await count('makers'), 1);
  });

  /** Each indexed text field of Gizmo and its limit: [field, limit, what it sits in]. */
  const limits: [string, number, string][] = [
    ['code', 255, 'unique, searchable and the cursor field'],
    ['kind', 255, 'index, and index gizmos_by_kind with rank'],
    ['serial', 670, 'unique, maxlen:670: the most a btree entry holds'],
    ['family', 255, 'unique_index gizmos_pair with variant'],
    ['variant', 255, 'unique_index gizmos_pair with family'],
    ['manual', 100_000, 'the full-text index with code'],
  ];

  it('every indexed text field stores its limit in 4-byte characters, and refuses one more', async () => {
    for (const [field, limit, where] of limits) {
      const atLimit = await server.request('POST', '/gizmos', { body: { ...valid(), [field]: widest(limit) } });
      assert.equal(atLimit.status, 201, `${field} (${where}) at ${limit}: ${atLimit.text.slice(0, 300)}`);
      assert.equal([...atLimit.body.data[field]].length, limit);
      const rows = await count('gizmos');
      const over = await server.request('POST', '/gizmos', { body: { ...valid(), [field]: widest(limit + 1) } });
      assert.equal(over.status, 422, `${field} (${where}) at ${limit + 1}: ${over.text.slice(0, 300)}`);
      assert.deepEqual(over.body.error.details, [{ field, message: tooLong(limit) }]);
      assert.equal(await count('gizmos'), rows);
    }
  });

  it('the full-text index holds its limit in one-character words, the costliest text for it', async () => {
    const words = `${[...widest(50_000)].join(' ')} `;
    assert.equal([...words].length, 100_000);
    const res = await server.request('POST', '/gizmos', { body: { ...valid(), code: widest(255), manual: words } });
    assert.equal(res.status, 201, res.text.slice(0, 300));
  });

  it('a composite unique index holds both its columns at their limits', async () => {
    const res = await server.request('POST', '/gizmos', { body: { ...valid(), family: widest(255), variant: widest(255) } });
    assert.equal(res.status, 201, res.text.slice(0, 300));
  });

  it('a foreign key at its limit is a missing parent (409); one over is 422', async () => {
    const atLimit = await server.request('POST', '/parts', { body: { name: 'bolt', gizmoId: widest(255) } });
    assert.equal(atLimit.status, 409, atLimit.text.slice(0, 300));
    assert.equal(atLimit.body.error.code, 'FOREIGN_KEY_VIOLATION');
    const over = await server.request('POST', '/parts', { body: { name: 'bolt', gizmoId: widest(256) } });
    assert.equal(over.status, 422);
    assert.deepEqual(over.body.error.details, [{ field: 'gizmoId', message: tooLong(255) }]);
    assert.equal(await count('parts'), 0);
  });

  it('an update is held to the same limits', async () => {
    const ok = await server.request('PATCH', `/gizmos/${gizmoId}`, { body: { serial: widest(670) } });
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
    const over = await server.request('PATCH', `/gizmos/${gizmoId}`, { body: { kind: widest(256), manual: 'm'.repeat(100_001) } });
    assert.equal(over.status, 422);
    assert.deepEqual(over.body.error.details, [
      { field: 'kind', message: tooLong(255) },
      { field: 'manual', message: tooLong(100_000) },
    ]);
  });

  it('text nothing indexes has no limit', async () => {
    const res = await server.request('POST', '/gizmos', { body: { ...valid(), notes: 'n'.repeat(1_000_000) } });
    assert.equal(res.status, 201, res.text.slice(0, 300));
  });

  it('the OpenAPI request schemas show each maxLength', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    const create = doc.components.schemas.GizmoCreate.properties;
    const update = doc.components.schemas.GizmoUpdate.properties;
    for (const [field, limit] of limits) {
      assert.equal(create[field].maxLength, limit, `GizmoCreate.${field}`);
      assert.equal(update[field].maxLength, limit, `GizmoUpdate.${field}`);
    }
    assert.equal(create.makerId.maxLength, 255);
    assert.equal(create.notes.maxLength, undefined);
    assert.equal(doc.components.schemas.MakerCreate.properties.name.maxLength, 255);
    assert.equal(doc.components.schemas.PartCreate.properties.gizmoId.maxLength, 255);
  });
});
