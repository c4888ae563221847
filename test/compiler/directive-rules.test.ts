// How the catalogue applies directives: where each may appear, its value,
// repeats, dependencies and conflicts (fixtures/compiler/directive-rules).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { BuildResult } from '@mfx/compiler';
import { compile, fixture, locate, type Seen, seen } from './support.js';

const file = fixture('compiler', 'directive-rules', 'models.ts');
let result: BuildResult;

before(() => {
  result = compile([file]);
});

const error = (at: string, text: string): Seen => ({ severity: 'error', ...locate(file, at), text });

/** The diagnostics reported at the position of `at`. */
function at(needle: string): Seen[] {
  const { line, col } = locate(file, needle);
  return seen(result.diagnostics).filter((d) => d.line === line && d.col === col);
}

describe('directive rules', () => {
  it('a model directive on a property, or a property directive on a model, says where it belongs', () => {
    assert.deepEqual(at('wrongPlace:'), [
      error('wrongPlace:', "Place.wrongPlace: 'singleton' is a model directive, not a property directive. Move it to the @mfx of interface Place"),
    ]);
    assert.deepEqual(at('PropertyDirectiveOnModel extends'), [
      error(
        'PropertyDirectiveOnModel extends',
        "PropertyDirectiveOnModel: 'filterable' is a property directive, not a model directive. Move it to the @mfx of a property of PropertyDirectiveOnModel",
      ),
    ]);
    assert.deepEqual(at('notAList:'), [error('notAList:', "Place.notAList: 'through' applies to properties typed as an array of models. notAList is a string")]);
  });

  it('a directive is given once', () => {
    assert.deepEqual(at('level:'), [error('level:', "Repeated.level: 'min' is given twice. Keep one of them")]);
  });

  it('values: flags take none, options only where allowed, lists and choices are checked', () => {
    assert.deepEqual(at('flagWithValue:'), [error('flagWithValue:', "Values.flagWithValue: 'readonly:yes' is invalid: 'readonly' takes no value. Write 'readonly' alone")]);
    assert.deepEqual(at('optionWithoutSupport:'), [error('optionWithoutSupport:', "Values.optionWithoutSupport: 'min:1;strict' is invalid: 'min' takes no ';' options")]);
    assert.deepEqual(at('emptyEnum:'), [error('emptyEnum:', "Values.emptyEnum: 'enum' is invalid: 'enum' needs a value. Write 'enum:a|b|c'")]);
    assert.deepEqual(at('upload:'), [
      error('upload:', "Values.upload: 'max_size:huge' is invalid: 'huge' is not a size. Write bytes or a number with KB, MB or GB, such as 5MB"),
    ]);
    assert.deepEqual(at('picture:'), [
      error('picture:', "Values.picture: 'accept:images' is invalid: 'images' is not a MIME type pattern. Write type/subtype, e.g. image/png or image/*"),
    ]);
    assert.deepEqual(at('when:'), [
      error(
        'when:',
        "Values.when: 'scheduled' is invalid: 'scheduled' needs an action. Write 'scheduled;soft-delete', 'scheduled;hard-delete', 'scheduled;field=NAME;to=VALUE' or 'scheduled;field=NAME;from=OLD;to=NEW'",
      ),
    ]);
  });

  it('a wrong onDelete is reported once: the companion stays bound', () => {
    assert.deepEqual(at('ownerId:'), [
      error('ownerId:', "Values.ownerId: 'relation:owner;onDelete:delete' is invalid: 'delete' is not one of cascade, setNull, restrict"),
    ]);
    assert.deepEqual(at('owner?:'), []);
  });

  it('key needs encrypted; max_size needs file', () => {
    assert.deepEqual(at('plain: string;\n  /** @mfx max_size'), [
      error('plain: string;\n  /** @mfx max_size', "Dependencies.plain: 'key' needs 'encrypted' on the same property. Add 'encrypted' to the @mfx of plain"),
    ]);
    assert.deepEqual(at('notAFile:'), [error('notAFile:', "Dependencies.notAFile: 'max_size' needs 'file' on the same property. Add 'file' to the @mfx of notAFile")]);
  });

  it('contradictory access flags and response modes conflict', () => {
    assert.deepEqual(at('a: string'), [
      error('a: string', "Conflicts.a: 'readonly' cannot be combined with 'writeonly'. A readonly field is never written and a writeonly field is never read; drop one of them"),
    ]);
    assert.deepEqual(at('b: string'), [
      error('b: string', "Conflicts.b: 'writeonly' cannot be combined with 'hidden'. A hidden field is not accepted on writes either; use writeonly alone for write-only input"),
    ]);
    assert.deepEqual(at('c: Localized'), [error('c: Localized', "Conflicts.c: 'split' cannot be combined with 'resolve'. A localized field has one response mode; keep one of them")]);
  });

  it('model options: versioned_required needs versioned; one soft-delete marker', () => {
    assert.deepEqual(at('RequiredWithoutVersioned extends'), [
      error('RequiredWithoutVersioned extends', "RequiredWithoutVersioned: 'versioned_required' needs versioning. Add 'versioned' to the model's @mfx"),
    ]);
    assert.deepEqual(at('TwoMarkers extends'), [
      error('TwoMarkers extends', "TwoMarkers: 'soft_delete' contradicts the SoftDeleteFlag embed. Drop the directive or extend SoftDelete instead"),
    ]);
  });

  it('model values are checked: choices, ranges, query limit names, index columns', () => {
    assert.deepEqual(at('ModelValues extends'), [
      error('ModelValues extends', "ModelValues: 'locale_mode:loud' is invalid: 'loud' is not one of split, resolve, dynamic"),
      error('ModelValues extends', "ModelValues: 'export_max:0' is invalid: 0 is below the minimum of 1"),
      error('ModelValues extends', "ModelValues: 'query_limits:maxFilter=3' is invalid: 'maxFilter' is not a query limit. Did you mean 'maxFilters'?"),
      error('ModelValues extends', "ModelValues: 'index:by_name' names nickname, which is no field of ModelValues"),
    ]);
  });

  it('type-shaping directives fit only the types they reshape', () => {
    assert.deepEqual(at('plain: string;\n  /** @mfx json_array'), [
      error(
        'plain: string;\n  /** @mfx json_array',
        "TypeShaping.plain: 'locale' does not apply to a string field. Declare the property as Localized (from '@mfx/runtime') to store one text per locale",
      ),
    ]);
    assert.deepEqual(at('map:'), [
      error('map:', "TypeShaping.map: 'json_array' does not apply to an object field. Declare the property as an array type (or unknown) to store a JSON array"),
    ]);
    assert.deepEqual(at('flag: boolean'), [error('flag: boolean', "TypeShaping.flag: 'int' does not apply to a boolean field. It applies to number, Int fields")]);
    assert.deepEqual(at('counterId:'), [
      error('counterId:', "TypeShaping.counterId: 'relation' does not apply to an Int field. A foreign key holds the parent id, which is a string"),
    ]);
  });

  it('bounds may not contradict each other, nor the default', () => {
    assert.deepEqual(at('range:'), [error('range:', 'Lengths.range: min and max are contradictory (10 > 1). The lower bound must not exceed the upper bound')]);
    assert.deepEqual(at('text: string'), [
      error('text: string', 'Lengths.text: minlen and maxlen are contradictory (5 > 2). The lower bound must not exceed the upper bound'),
      error('text: string', 'Lengths.text: default "abcdefgh" is longer than maxlen:2. Pick a shorter default'),
    ]);
  });

  it('relation on a companion points to the foreign key, once', () => {
    assert.deepEqual(at('place?:'), [
      error('place?:', "Companions.place: 'relation' applies to array properties. Put 'relation:place' on the foreign-key field; place is its companion"),
    ]);
  });

  it('nothing else is reported', () => {
    assert.equal(result.diagnostics.length, 30);
  });
});
