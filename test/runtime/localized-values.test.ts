// A localized field takes a string or a map of locale codes to strings and gives back what was
// sent, on both databases (found by the hostile-input run: PostgreSQL's jsonb refused a plain
// string with a 500, and SQLite read strings such as "true" back as other JSON values).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('localized values', (backend) => {
  const server = useServer(backend, { fixture: 'hostile' });
  let makerId = '';
  let serial = 0;
  before(async () => {
    makerId = (await server.request('POST', '/makers', { body: { name: 'Acme' } })).body.data.id;
  });

  it('a string, however it looks, is stored as that string under the locale; a map as that map', async () => {
    for (const label of ['Hello', 'true', '12', 'null', '"quoted"', '{"en":"x"}', '', { en: 'Hello', de: 'Hallo' }, {}]) {
      serial++;
      // label is a split-mode field: the string of the locale under label, the stored map under label_i18n.
      const map = typeof label === 'string' ? { en: label } : label;
      const text = (map as Record<string, string>).en || null;
      const created = await server.request('POST', '/gizmos', { body: { code: `l-${serial}`, kind: 'k', family: `l-${serial}`, makerId, label } });
      assert.equal(created.status, 201, `${JSON.stringify(label)}: ${created.text}`);
      assert.deepEqual(created.body.data.label_i18n, map);
      assert.equal(created.body.data.label, text);
      const read = await server.request('GET', `/gizmos/${created.body.data.id}`);
      assert.deepEqual(read.body.data.label_i18n, map, JSON.stringify(label));
      const patched = await server.request('PATCH', `/gizmos/${created.body.data.id}`, { body: { label: typeof label === 'string' ? `${label}!` : label } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual((await server.request('GET', `/gizmos/${created.body.data.id}`)).body.data.label_i18n, typeof label === 'string' ? { en: `${label}!` } : label);
    }
  });
});
