// TypeScript types → field types, through the type checker: aliases,
// imports, enums, literal unions, brands, arrays, maps; and nullability.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { BuildResult } from '@mfx/compiler';
import { compile, fixture } from './support.js';

let result: BuildResult;

before(() => {
  result = compile([fixture('compiler', 'types', 'models.ts')]);
});

/** [name, column, type, items, nullable] of every field of a model, in manifest order. */
function fields(model: string) {
  const found = result.models.find((m) => m.name === model);
  assert.ok(found, `model ${model} is built`);
  return found.fields.map((f) => [f.name, f.column, f.type, f.items ?? null, f.nullable]);
}

describe('type mapping', () => {
  it('compiles cleanly', () => {
    assert.deepEqual(result.diagnostics, []);
  });

  it('maps every supported type; inherited fields first, base columns around them', () => {
    assert.deepEqual(fields('Typed'), [
      ['id', 'id', 'string', null, false],
      ['changedBy', 'changedBy', 'string', null, true],
      ['price', 'price', 'number', null, false],
      ['text', 'text', 'string', null, false],
      ['literal', 'literal', 'string', null, false],
      ['template', 'template', 'string', null, false],
      ['colour', 'colour', 'string', null, false],
      ['level', 'level', 'number', null, false],
      ['currency', 'currency', 'string', null, false],
      ['amount', 'amount', 'number', null, false],
      ['count', 'count', 'integer', null, false],
      ['quantity', 'quantity', 'integer', null, false],
      ['big', 'big', 'bigint', null, false],
      ['flag', 'flag', 'boolean', null, false],
      ['yes', 'yes', 'boolean', null, false],
      ['when', 'when', 'timestamp', null, false],
      ['texts', 'texts', 'json_array', 'string', false],
      ['readonlyTexts', 'readonlyTexts', 'json_array', 'string', false],
      ['numbers', 'numbers', 'json_array', 'number', false],
      ['ints', 'ints', 'json_array', 'integer', false],
      ['dates', 'dates', 'json_array', 'timestamp', false],
      ['flags', 'flags', 'json_array', 'boolean', false],
      ['objects', 'objects', 'json_array', null, false],
      ['pair', 'pair', 'json_array', null, false],
      ['record', 'record', 'json_object', null, false],
      ['stringMap', 'stringMap', 'json_object', null, false],
      ['literalObject', 'literalObject', 'json_object', null, false],
      ['dimensions', 'dimensions', 'json_object', null, false],
      ['anything', 'anything', 'json_object', null, false],
      ['loose', 'loose', 'json_object', null, false],
      ['object', 'object', 'json_object', null, false],
      ['title', 'title', 'localized', null, false],
      ['listOfUnknown', 'listOfUnknown', 'json_array', null, false],
      ['wholeNumber', 'wholeNumber', 'integer', null, false],
      ['greeting', 'greeting', 'localized', null, false],
      ['renamed', 'custom_column', 'string', null, false],
      ['quoted-name', 'quoted-name', 'string', null, false],
      ['created_at', 'created_at', 'timestamp', null, false],
      ['updated_at', 'updated_at', 'timestamp', null, false],
    ]);
  });

  it('a generic base is read with its type arguments', () => {
    assert.deepEqual(fields('Generic').slice(1, 3), [
      ['value', 'value', 'integer', null, false],
      ['label', 'label', 'string', null, false],
    ]);
  });

  it('an abstract base is not a model; a non-exported base is not either', () => {
    assert.deepEqual(result.models.map((m) => m.name), ['Generic', 'Nullability', 'Stamp', 'Typed']);
  });

  it('bases may be intersections and object type aliases', () => {
    assert.deepEqual(fields('Stamp').map(([name, , type]) => [name, type]), [
      ['id', 'string'],
      ['stampedBy', 'string'],
      ['revision', 'integer'],
      ['note', 'string'],
      ['created_at', 'timestamp'],
      ['updated_at', 'timestamp'],
    ]);
  });

  it('JSDoc of inherited properties becomes their description', () => {
    const changedBy = result.models.find((m) => m.name === 'Typed')?.fields.find((f) => f.name === 'changedBy');
    assert.equal(changedBy?.description, 'Who last changed the record.');
  });
});

describe('nullability', () => {
  it('null, undefined and ?: make a column nullable; nothing else does', () => {
    assert.deepEqual(
      fields('Nullability').map(([name, , type, , nullable]) => [name, type, nullable]),
      [
        ['id', 'string', false],
        ['plain', 'string', false],
        ['nullable', 'string', true],
        ['optional', 'string', true],
        ['undefinedUnion', 'string', true],
        ['optionalNullable', 'integer', true],
        ['nullableDate', 'timestamp', true],
        ['nullableList', 'json_array', true],
        ['nullableLocalized', 'localized', true],
        ['nullableBoolean', 'boolean', true],
        ['created_at', 'timestamp', false],
        ['updated_at', 'timestamp', false],
      ],
    );
  });
});
