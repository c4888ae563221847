// JSON Schemas of create and update bodies, as the runtime relies on them.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Manifest } from '@mfx/runtime/manifest';
import { compile, fixture } from './support.js';

let manifest: Manifest;
const schemas = (model: string) => manifest.models.find((m) => m.name === model)!.schemas as Record<'create' | 'update', any>;

before(() => {
  manifest = compile([fixture('kitchen-sink', 'models.ts'), fixture('blog', 'models.ts')]).manifest!;
});

describe('body schemas', () => {
  it('an object with additional properties allowed; required only on create; no defaults anywhere', () => {
    const { create, update } = schemas('Post');
    assert.deepEqual(Object.keys(create), ['type', 'properties', 'required', 'additionalProperties']);
    // A NOT NULL foreign key without a default is required on create too (its zero value names no parent).
    assert.deepEqual([create.type, create.additionalProperties, create.required], ['object', true, ['title', 'userId']]);
    assert.deepEqual(Object.keys(update), ['type', 'properties', 'additionalProperties']);
    assert.ok(!JSON.stringify(manifest.models.map((m) => m.schemas)).includes('"default"'));
  });

  it('only client-writable fields: no base columns, readonly or hidden fields; update leaves out immutable ones', () => {
    const { create, update } = schemas('Product');
    const created = Object.keys(create.properties);
    for (const absent of ['id', 'created_at', 'updated_at', 'deleted_at', 'importedFrom', 'internalRank']) assert.ok(!created.includes(absent), absent);
    for (const present of ['sku', 'adminPin', 'makerId', 'taxNumber']) assert.ok(created.includes(present), present);
    assert.deepEqual(
      created.filter((name) => !(name in update.properties)),
      ['sku'],
    );
    assert.deepEqual(Object.keys(schemas('Post').update.properties).includes('slug'), false);
  });

  it('one schema per type', () => {
    const p = schemas('Product').create.properties;
    assert.deepEqual(p.status, { type: 'string', enum: ['draft', 'active', 'retired'] });
    assert.deepEqual(p.price, { type: 'number', minimum: 0.5, maximum: 10000 });
    assert.deepEqual(p.weightGrams, { type: 'integer', minimum: -2147483648, maximum: 2147483647 });
    assert.deepEqual(p.views, { type: 'integer', minimum: 0, maximum: 9007199254740991 });
    assert.deepEqual(p.visible, { type: 'boolean' });
    assert.deepEqual(p.launchedAt, { type: 'string', format: 'date-time' });
    assert.deepEqual(p.labels, { type: 'array', items: { type: 'string' } });
    assert.deepEqual(p.extras, { type: 'array' });
    assert.deepEqual(p.attributes, { type: 'object' });
    assert.deepEqual(p.tagline, { anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }] });
  });

  it('nullable fields take a type array; localized ones an extra null branch; nullable enums list null', () => {
    const p = schemas('Product').create.properties;
    assert.deepEqual(p.manual, { type: ['string', 'null'] });
    assert.deepEqual(p.retireAt, { type: ['string', 'null'], format: 'date-time' });
    assert.deepEqual(p.greeting, { anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }, { type: 'null' }] });
    assert.deepEqual(p.currency, { type: ['string', 'null'], enum: ['EUR', 'USD', null] });
  });

  it('enum values are cast to the field type; bounds tighten the integer range; lengths map to minLength/maxLength', () => {
    const p = schemas('Product').create.properties;
    assert.deepEqual(p.tier, { type: 'integer', minimum: -2147483648, maximum: 2147483647, enum: [1, 2, 3] });
    assert.deepEqual(p.score, { type: ['integer', 'null'], minimum: -5, maximum: 5 });
    assert.deepEqual(p.name, { type: 'string', minLength: 1, maxLength: 120 });
    assert.deepEqual(p.adminPin, { type: 'string', minLength: 8 });
  });

  it('a property description becomes the schema description', () => {
    // sku is unique: its index bounds it to 255 characters by default (issue 14, defect 5).
    assert.deepEqual(schemas('Product').create.properties.sku, { type: 'string', maxLength: 255, description: 'Stock keeping unit.' });
    assert.equal(schemas('User').create.properties.name.description, 'Display name.');
  });
});
