// Field roles: what a field may be used for is decided in one place, so the query parser
// accepts exactly the fields the OpenAPI document advertises, and the body schemas,
// responses, history and audit agree with them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FieldManifest, fieldRoles } from '@mfx/runtime';
import { eachBackend, useServer } from '../support/suite.js';

const base: FieldManifest = {
  name: 'f',
  column: 'f',
  type: 'string',
  nullable: true,
  required: false,
  readonly: false,
  immutable: false,
  writeonly: false,
  hidden: false,
  filterable: true,
  sortable: true,
  searchable: true,
  unique: false,
  index: false,
  source: { file: 'models.ts', line: 1, col: 1 },
};

describe('fieldRoles', () => {
  const roles = (changes: Partial<FieldManifest>) => fieldRoles({ ...base, ...changes });

  it('a plain filterable, sortable, searchable text field has every role', () => {
    assert.deepEqual(roles({}), { writable: true, requiredOnCreate: false, updatable: true, visible: true, filterable: true, sortable: true, selectable: true, searchable: true, recorded: true });
  });

  it('writeonly and hidden fields never leave the server: not visible, not queryable, not recorded', () => {
    for (const flag of ['writeonly', 'hidden'] as const) {
      const r = roles({ [flag]: true });
      assert.deepEqual([r.visible, r.filterable, r.sortable, r.selectable, r.searchable, r.recorded], [false, false, false, false, false, false], flag);
    }
    assert.equal(roles({ writeonly: true }).writable, true, 'writeonly is accepted on writes');
    assert.equal(roles({ hidden: true }).writable, false, 'hidden is not');
  });

  it('encrypted fields are shown but never queried nor recorded', () => {
    const r = roles({ encrypted: { keyId: 'default', unique: false } });
    assert.deepEqual([r.visible, r.selectable, r.filterable, r.sortable, r.recorded], [true, true, false, false, false]);
  });

  it('readonly and base columns are not writable; immutable is writable but not updatable', () => {
    assert.deepEqual([roles({ readonly: true }).writable, roles({ base: 'created_at' }).writable], [false, false]);
    assert.deepEqual([roles({ immutable: true }).writable, roles({ immutable: true }).updatable], [true, false]);
  });

  it('required on create: declared required, or a writable NOT NULL foreign key without a default', () => {
    assert.equal(roles({ required: true }).requiredOnCreate, true);
    assert.equal(roles({ relation: 'author', nullable: false }).requiredOnCreate, true);
    assert.equal(roles({ relation: 'author', nullable: true }).requiredOnCreate, false, 'a nullable key may be left out');
    assert.equal(roles({ relation: 'author', nullable: false, default: 'u1' }).requiredOnCreate, false, 'a default fills it');
    assert.equal(roles({ relation: 'author', nullable: false, readonly: true }).requiredOnCreate, false, 'the server fills a readonly key');
    assert.equal(roles({ required: true, hidden: true }).requiredOnCreate, false, 'never for a field the body cannot carry');
  });

  it('searchable covers plain text only', () => {
    assert.equal(roles({ type: 'localized' }).searchable, false);
  });
});

/** The field names the filter parameter's description lists ("Filterable fields: a (string), b (integer)."). */
function documentedFilterable(description: string): string[] {
  const list = /Filterable fields: (.*?)\.(?: |$)/.exec(description)?.[1] ?? '';
  return list === 'none' ? [] : [...list.matchAll(/(?:^|, )([^\s,(]+) \(/g)].map((m) => m[1]);
}

for (const fixture of ['query', 'tenancy', 'lifecycle']) {
  eachBackend(`the document advertises exactly what the parser accepts (${fixture})`, (backend) => {
    const server = useServer(backend, { fixture });

    it('filter, sort and select, field by field', async () => {
      const doc = server.app.document();
      for (const model of server.app.registry.all()) {
        if (!model.mounted || model.options.singleton) continue;
        const list = doc.paths?.[`/${model.table}`]?.get;
        assert.ok(list, `${model.name} is listed`);
        const parameter = (name: string) => list.parameters?.find((p) => 'name' in p && p.name === name) as { description?: string; schema?: { items?: { enum?: string[] } } } | undefined;
        const filters = documentedFilterable(parameter('filter')?.description ?? 'Filterable fields: none.');
        const sorts = parameter('sort')?.schema?.items?.enum ?? [];
        const selects = parameter('select')?.schema?.items?.enum ?? [];
        for (const field of model.fields) {
          const path = `/${model.table}`;
          const sort = await server.request('GET', `${path}?sort=${field.name}:asc`, { unchecked: true });
          assert.equal(sort.status === 200, sorts.includes(`${field.name}:asc`), `${model.name}.${field.name}: sort answered ${sort.status} ${sort.text}`);
          const select = await server.request('GET', `${path}?select=${field.name}`, { unchecked: true });
          assert.equal(select.status === 200, selects.includes(field.name), `${model.name}.${field.name}: select answered ${select.status} ${select.text}`);
          // is_null takes no value, so only the field itself can be refused.
          const filter = await server.request('GET', `${path}?filter=${field.name}:is_null`, { unchecked: true });
          const refused = filter.status === 400 && /is not a field|is not filterable|cannot be filtered|base column/.test(filter.body.error.message);
          assert.equal(!refused, filters.includes(field.name), `${model.name}.${field.name}: filter answered ${filter.status} ${filter.text}`);
        }
      }
    });
  });
}
