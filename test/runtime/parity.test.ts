// The same JSON shapes from both backends, and reserved words as table and column names.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { backends } from '../support/backends.js';
import { eachBackend, useServer } from '../support/suite.js';

const full = {
  text: 'héllo "quoted" \'single\' ; -- not a comment',
  maybeText: null,
  double: 3.25,
  maybeDouble: -0.5,
  count: 2147483647,
  big: 9007199254740991,
  maybeBig: -9007199254740991,
  flag: true,
  maybeFlag: false,
  at: '2026-01-31T23:59:59.123+05:30',
  maybeAt: null,
  words: ['a', 'b', 'ünïcode'],
  numbers: [1, 2.5, -3],
  settings: { nested: { list: [1, { deep: true }] }, empty: {}, none: null },
  maybeSettings: null,
  anything: { any: 'thing' },
};

const expected = { ...full, at: '2026-01-31T18:29:59.123Z' };

eachBackend('backend parity', (backend) => {
  const server = useServer(backend, { fixture: 'parity' });

  it('returns every column type in exactly the shape that was sent', async () => {
    const created = await server.request('POST', '/samples', { body: full });
    assert.equal(created.status, 201, created.text);
    const { id, created_at, updated_at, ...fields } = created.body.data;
    assert.deepEqual(fields, expected);
    assert.equal(typeof created_at, 'string');
    assert.equal(typeof updated_at, 'string');
    const read = await server.request('GET', `/samples/${id}`);
    assert.deepEqual(read.body.data, created.body.data);
    const listed = await server.request('GET', '/samples');
    assert.deepEqual(listed.body.data[0], created.body.data);
    assert.equal(typeof listed.body.meta.total, 'number');
  });

  it('fills zero values and nulls for omitted fields', async () => {
    const created = await server.request('POST', '/samples', { body: {} });
    assert.equal(created.status, 201, created.text);
    const { id, created_at, updated_at, ...fields } = created.body.data;
    assert.deepEqual(fields, {
      text: '',
      maybeText: null,
      double: 0,
      maybeDouble: null,
      count: 0,
      big: 0,
      maybeBig: null,
      flag: false,
      maybeFlag: null,
      at: '0001-01-01T00:00:00.000Z',
      maybeAt: null,
      words: [],
      numbers: [],
      settings: {},
      maybeSettings: null,
      anything: {},
    });
  });

  it('refuses integers outside their column range with 422', async () => {
    const res = await server.request('POST', '/samples', { body: { count: 2147483648, big: 9007199254740992 } });
    assert.equal(res.status, 422);
    assert.deepEqual(
      res.body.error.details.map((d: { field: string }) => d.field),
      ['count', 'big'],
    );
  });

  it('serves tables and columns named by reserved words', async () => {
    const account = await server.request('POST', '/user', { body: { select: 'all', origin: 'here', order: 1, group: 'g', ceiling: 2.5 } });
    assert.equal(account.status, 201, account.text);
    assert.deepEqual(
      { select: account.body.data.select, origin: account.body.data.origin, order: account.body.data.order, group: account.body.data.group, ceiling: account.body.data.ceiling },
      { select: 'all', origin: 'here', order: 1, group: 'g', ceiling: 2.5 },
    );
    const duplicate = await server.request('POST', '/user', { body: { select: 'all' } });
    assert.equal(duplicate.status, 409);
    assert.deepEqual([duplicate.body.error.details.table, duplicate.body.error.details.column], ['user', 'select']);

    const purchase = await server.request('POST', '/order', { body: { where: 'w', desc: 'd', accountId: account.body.data.id } });
    assert.equal(purchase.status, 201, purchase.text);
    const pair = await server.request('POST', '/order', { body: { where: 'w', desc: 'd', accountId: account.body.data.id } });
    assert.equal(pair.status, 409, 'the named unique index over reserved-word columns holds');
    const patched = await server.request('PATCH', `/user/${account.body.data.id}`, { body: { order: 2, origin: null } });
    assert.equal(patched.body.data.order, 2);
    assert.equal(patched.body.data.origin, null);
    assert.equal((await server.request('GET', '/order')).body.meta.total, 1);
    const report = await server.app.migrate();
    const nothing = { createdTables: [], addedColumns: [], renamedColumns: [], statements: [], warnings: [], findings: [], applied: true };
    assert.deepEqual(
      report,
      { ...nothing, adapters: [{ name: 'default', report: nothing }] },
      'a second migration finds nothing to do',
    );
  });
});
