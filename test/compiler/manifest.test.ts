// The manifest of the kitchen-sink fixture (every directive): conventions of
// fields, base columns and soft delete, defaults, model options, sources.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BuildResult } from '@mfx/compiler';
import type { FieldManifest, Manifest, ModelManifest } from '@mfx/runtime/manifest';
import { compile, fixture, locate, root, tempProject } from './support.js';

const entry = fixture('kitchen-sink', 'models.ts');
const out = tempProject({});
let result: BuildResult;
let manifest: Manifest;

before(() => {
  result = compile([entry], { outDir: out.path('.mfx'), write: true });
  manifest = result.manifest!;
});
after(() => out.remove());

function model(name: string): ModelManifest {
  const found = manifest.models.find((m) => m.name === name);
  assert.ok(found, `model ${name}`);
  return found;
}

function field(modelName: string, name: string): FieldManifest {
  const found = model(modelName).fields.find((f) => f.name === name);
  assert.ok(found, `field ${modelName}.${name}`);
  return found;
}

describe('manifest', () => {
  it('the kitchen sink compiles without a diagnostic', () => {
    assert.deepEqual(result.diagnostics, []);
    assert.equal(result.ok, true);
  });

  it('top level: format, compiler from compiler/package.json, sources relative to DIR with their sha256', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'compiler/package.json'), 'utf8'));
    assert.deepEqual(Object.keys(manifest), ['format', 'compiler', 'sourceHash', 'sources', 'models']);
    assert.equal(manifest.format, 1);
    assert.deepEqual(manifest.compiler, { name: '@mfx/compiler', version: pkg.version });
    const sha = createHash('sha256').update(readFileSync(entry)).digest('hex');
    assert.equal(manifest.sources.length, 1);
    assert.equal(join(out.path('.mfx'), manifest.sources[0].file), entry);
    assert.equal(manifest.sources[0].sha256, sha);
    const expected = createHash('sha256').update(`${manifest.sources[0].file}\0${sha}\n`).digest('hex');
    assert.equal(manifest.sourceHash, expected);
  });

  it('models are sorted by name; abstract bases are not models', () => {
    assert.deepEqual(
      manifest.models.map((m) => m.name),
      ['Maker', 'Part', 'Product', 'ProductPart', 'ShopConfig'],
    );
  });

  it('manifest.json is 2-space JSON with a trailing newline', () => {
    const text = readFileSync(out.path('.mfx/manifest.json'), 'utf8');
    assert.equal(text, `${JSON.stringify(manifest, null, 2)}\n`);
  });

  it('fields: id, declared fields (inherited first), created_at, updated_at, then the soft-delete marker', () => {
    const names = model('Product').fields.map((f) => f.name);
    assert.deepEqual(names.slice(0, 3), ['id', 'name', 'sku']);
    assert.deepEqual(names.slice(-3), ['created_at', 'updated_at', 'deleted_at']);
    assert.ok(!names.includes('cache'), 'excluded by @mfx -');
    for (const property of ['maker', 'parts']) assert.ok(!names.includes(property), `${property} is a relation, not a column`);
  });

  it('every field carries every flag, in the contract order', () => {
    const flags = ['readonly', 'immutable', 'writeonly', 'hidden', 'filterable', 'sortable', 'searchable', 'unique', 'index', 'required'];
    for (const m of manifest.models) {
      for (const f of m.fields) for (const flag of flags) assert.equal(typeof f[flag as keyof FieldManifest], 'boolean', `${m.name}.${f.name}.${flag}`);
    }
    assert.deepEqual(Object.keys(field('Product', 'manual')), [
      'name', 'column', 'type', 'nullable', 'required', 'readonly', 'immutable', 'writeonly', 'hidden',
      'filterable', 'sortable', 'searchable', 'unique', 'index', 'file', 'source',
    ]);
    assert.deepEqual(Object.keys(field('Product', 'price')), [
      'name', 'column', 'type', 'nullable', 'required', 'min', 'max', 'default', 'readonly', 'immutable', 'writeonly',
      'hidden', 'filterable', 'sortable', 'searchable', 'unique', 'index', 'source',
    ]);
  });

  it('base columns are readonly; base: options add filterable, sortable, index and hidden', () => {
    const pick = (f: FieldManifest) => [f.base, f.type, f.nullable, f.readonly, f.filterable, f.sortable, f.index, f.hidden];
    assert.deepEqual(pick(field('Product', 'id')), ['id', 'string', false, true, true, true, false, false]);
    assert.deepEqual(pick(field('Product', 'created_at')), ['created_at', 'timestamp', false, true, true, true, true, false]);
    assert.deepEqual(pick(field('Product', 'updated_at')), ['updated_at', 'timestamp', false, true, false, false, false, true]);
    assert.deepEqual(pick(field('Maker', 'id')), ['id', 'string', false, true, false, false, false, false]);
  });

  it('soft delete: deleted_at (timestamp, nullable) or is_deleted (boolean, NOT NULL, default false)', () => {
    assert.deepEqual(model('Product').options.softDelete, { field: 'deleted_at', column: 'deleted_at', type: 'timestamp' });
    const deletedAt = field('Product', 'deleted_at');
    assert.deepEqual([deletedAt.type, deletedAt.nullable, deletedAt.base, deletedAt.default], ['timestamp', true, 'deleted_at', undefined]);
    assert.deepEqual(model('Part').options.softDelete, { field: 'is_deleted', column: 'is_deleted', type: 'boolean' });
    const isDeleted = field('Part', 'is_deleted');
    assert.deepEqual([isDeleted.type, isDeleted.nullable, isDeleted.base, isDeleted.default], ['boolean', false, 'is_deleted', false]);
    assert.equal(model('Maker').options.softDelete, null);
  });

  it('defaults are cast to the field type', () => {
    const defaults = Object.fromEntries(
      model('Product')
        .fields.filter((f) => f.default !== undefined)
        .map((f) => [f.name, f.default]),
    );
    assert.deepEqual(defaults, {
      status: 'draft',
      tier: 2,
      price: 9.99,
      currency: 'EUR',
      visible: true,
      launchedAt: '2024-01-31T11:00:00.000Z',
      labels: ['new', 'sale'],
      attributes: { colour: 'red', sizes: [1, 2] },
      internalRank: 0,
      greeting: { en: 'Hello' },
    });
    assert.equal(field('ShopConfig', 'shopName').default, 'Our shop');
  });

  it('validation, access, query and storage directives', () => {
    const p = (name: string) => field('Product', name);
    assert.deepEqual([p('name').required, p('name').minlen, p('name').maxlen, p('name').searchable], [true, 1, 120, true]);
    assert.deepEqual(p('status').enum, ['draft', 'active', 'retired']);
    assert.deepEqual(p('tier').enum, ['1', '2', '3']);
    assert.deepEqual([p('price').min, p('price').max], [0.5, 10000]);
    assert.deepEqual([p('sku').column, p('sku').unique, p('sku').immutable, p('sku').description], ['stock_keeping_unit', true, true, 'Stock keeping unit.']);
    assert.deepEqual([p('importedFrom').readonly, p('adminPin').writeonly, p('internalRank').hidden], [true, true, true]);
    assert.deepEqual([p('weightGrams').type, p('weightGrams').index], ['integer', true]);
    assert.deepEqual([p('extras').type, p('settings').type], ['json_array', 'json_object']);
  });

  it('files, encryption, schedules and locales', () => {
    const p = (name: string) => field('Product', name);
    assert.deepEqual(p('manual').file, { maxSize: 5 * 1024 * 1024, accept: ['image/*', 'application/pdf'], autoDelete: false });
    assert.deepEqual(p('thumbnail').file, { autoDelete: true });
    // encrypted,unique: the UNIQUE constraint sits on the <column>_hmac blind index, not on the ciphertext.
    assert.deepEqual([p('taxNumber').encrypted, p('taxNumber').unique], [{ keyId: 'pii', unique: true }, false]);
    assert.deepEqual(p('supplierNote').encrypted, { keyId: 'default', unique: false });
    assert.ok(model('Product').sql.sqlite.insertColumns.includes('taxNumber_hmac'));
    assert.deepEqual(p('retireAt').scheduled, { action: 'set-field', field: 'status', to: 'retired', from: 'active' });
    assert.deepEqual(p('expireAt').scheduled, { action: 'soft-delete' });
    assert.deepEqual(p('purgeAt').scheduled, { action: 'hard-delete' });
    // The runner finds due rows by an index on each scheduled column.
    for (const column of ['retireAt', 'expireAt', 'purgeAt']) {
      assert.match(model('Product').sql.postgres.createIndexes.join('\n'), new RegExp(`CREATE INDEX IF NOT EXISTS "idx_catalogue_items_${column}" ON "catalogue_items" \\("${column}"\\)`));
    }
    assert.deepEqual([p('title').type, p('title').locale], ['localized', { mode: 'split', defaultLocale: 'fr' }]);
    assert.deepEqual(p('greeting').locale, { mode: 'dynamic' });
    assert.deepEqual(p('tagline').locale, { mode: 'resolve' });
  });

  it('model directives fill the model options', () => {
    assert.equal(model('Product').table, 'catalogue_items');
    assert.deepEqual(model('Product').options, {
      softDelete: { field: 'deleted_at', column: 'deleted_at', type: 'timestamp' },
      versioned: { diffOnly: true, required: true },
      singleton: false,
      headless: false,
      aggregate: true,
      export: true,
      maxExportRows: 5000,
      globalSearch: true,
      optimisticLock: true,
      cursorField: 'created_at',
      indices: [
        { name: 'items_by_price', columns: ['price', 'currency'], unique: false },
        { name: 'items_sku', columns: ['stock_keeping_unit'], unique: true },
      ],
      defaultLocale: 'de',
      localeMode: 'resolve',
      adapter: 'catalogue',
      queryLimits: { maxFilters: 10, maxIncludes: 3, maxSorts: 2 },
    });
    assert.equal(model('Maker').options.headless, true);
    assert.equal(model('ShopConfig').options.singleton, true);
  });

  it('field-level versioned and cursor_field land on the model options', () => {
    assert.deepEqual(model('ShopConfig').options.versioned, { diffOnly: false, required: false });
    assert.equal(model('ShopConfig').options.cursorField, 'openingHours');
  });

  it('default table names: snake_case plural', () => {
    assert.deepEqual(
      manifest.models.map((m) => m.table),
      ['makers', 'parts', 'catalogue_items', 'product_parts', 'shop_configs'],
    );
  });

  it('sources point at the declaration, relative to the manifest directory', () => {
    const sku = field('Product', 'sku');
    assert.deepEqual(sku.source, { file: manifest.sources[0].file, ...locate(entry, 'sku:') });
    assert.deepEqual(model('Product').source, { file: manifest.sources[0].file, ...locate(entry, 'Product extends') });
  });

  it('SQL templates for both dialects, from the runtime SQL layer', () => {
    const product = model('Product');
    assert.deepEqual(Object.keys(product.sql), ['sqlite', 'postgres']);
    assert.match(product.sql.sqlite.createTable, /^CREATE TABLE IF NOT EXISTS "catalogue_items"/);
    assert.match(product.sql.postgres.insert, /VALUES \(\$1, \$2/);
    assert.match(product.sql.postgres.foreignKeys[0], /REFERENCES "makers"/);
    assert.deepEqual(
      product.sql.sqlite.insertColumns.filter((c) => c !== 'taxNumber_hmac'),
      product.fields.map((f) => f.column),
    );
  });

  it('sources: the model files and the user files they import, not the files that import them', () => {
    const project = tempProject({
      'aliases.ts': "export type Status = 'open' | 'closed';\n",
      'models.ts': "import type { Model } from '@mfx/runtime';\nimport type { Status } from './aliases.js';\n\nexport interface Ticket extends Model {\n  status: Status;\n}\n",
      'app.ts': "import type { Ticket } from './models.js';\n\nexport const first: Ticket[] = [];\n",
    });
    try {
      const built = compile([project.path('app.ts'), project.path('models.ts')], { outDir: project.path('.mfx') });
      assert.deepEqual(built.manifest?.sources.map((s) => s.file), ['../aliases.ts', '../models.ts']);
    } finally {
      project.remove();
    }
  });
});
