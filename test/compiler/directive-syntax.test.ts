// The @mfx syntax: where tags sit in the JSDoc, how directives, values,
// sub-options and lists are split, and how literal values are cast.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDocComment } from '../../compiler/src/analyze/docs.js';
import { parseDirectives } from '../../compiler/src/ir/directives/syntax.js';
import { castLiteral, DirectiveProblem, parseList, parseSize } from '../../compiler/src/ir/directives/values.js';

describe('JSDoc: description and @mfx tags', () => {
  it('a one-line tag', () => {
    assert.deepEqual(parseDocComment('/** @mfx required, unique */'), { directives: ['required, unique'] });
  });

  it('@mfx after text on the same line ends the description', () => {
    assert.deepEqual(parseDocComment('/** Display name. @mfx required, minlen:2 */'), {
      description: 'Display name.',
      directives: ['required, minlen:2'],
    });
  });

  it('a multi-line comment: description lines, then tags; continuation lines join the tag', () => {
    const doc = parseDocComment(`/**
     * A blog post.
     * Shown on the front page.
     *
     * @mfx soft_delete,
     *   optimistic_lock
     * @deprecated use Article
     * @mfx aggregate
     */`);
    assert.deepEqual(doc, {
      description: 'A blog post.\nShown on the front page.',
      directives: ['soft_delete, optimistic_lock', 'aggregate'],
    });
  });

  it('an @ inside a value or text is not a tag', () => {
    assert.deepEqual(parseDocComment('/** Mail {@link Contact} as a@b.example. @mfx default:ops@example.com */'), {
      description: 'Mail {@link Contact} as a@b.example.',
      directives: ['default:ops@example.com'],
    });
  });

  it('no @mfx at all: only a description', () => {
    assert.deepEqual(parseDocComment('/** Free text shown on the profile. */'), { description: 'Free text shown on the profile.', directives: [] });
  });
});

describe('directive syntax', () => {
  it('splits on commas and trims whitespace', () => {
    const { uses, problems } = parseDirectives('  required ,filterable,   sortable  ');
    assert.deepEqual(uses.map((u) => u.name), ['required', 'filterable', 'sortable']);
    assert.deepEqual(problems, []);
  });

  it('a value follows the first colon; a value may hold more colons', () => {
    const [use] = parseDirectives('default:12:30').uses;
    assert.equal(use.name, 'default');
    assert.equal(use.value, '12:30');
  });

  it('relation sub-options follow semicolons', () => {
    const [use] = parseDirectives('relation:author;onDelete:cascade').uses;
    assert.deepEqual(
      { name: use.name, value: use.value, options: use.options },
      { name: 'relation', value: 'author', options: [{ key: 'onDelete', value: 'cascade' }] },
    );
  });

  it('scheduled options: bare words and key=value pairs', () => {
    const [use] = parseDirectives('scheduled;field=status;from=active;to=archived').uses;
    assert.equal(use.value, undefined);
    assert.deepEqual(use.options, [
      { key: 'field', value: 'status' },
      { key: 'from', value: 'active' },
      { key: 'to', value: 'archived' },
    ]);
    assert.deepEqual(parseDirectives('scheduled;soft-delete').uses[0].options, [{ key: 'soft-delete' }]);
  });

  it('commas and semicolons inside brackets, braces and quotes do not split', () => {
    const uses = parseDirectives('default:["a,b","c;d"], filterable, default:{"x":[1,2]}, default:"hello, world"').uses;
    assert.deepEqual(
      uses.map((u) => [u.name, u.raw]),
      [
        ['default', '["a,b","c;d"]'],
        ['filterable', undefined],
        ['default', '{"x":[1,2]}'],
        ['default', '"hello, world"'],
      ],
    );
  });

  it('the raw value keeps semicolons for directives that take data', () => {
    assert.equal(parseDirectives('default:a;b').uses[0].raw, 'a;b');
  });

  it('empty pieces are skipped; a missing comma is reported', () => {
    assert.deepEqual(parseDirectives('required,, ,unique').uses.map((u) => u.name), ['required', 'unique']);
    const { uses, problems } = parseDirectives('required minlen:2');
    assert.equal(uses.length, 0);
    assert.deepEqual(problems, [{ text: 'required minlen:2', message: "'required minlen' is not a directive name", hint: 'Separate directives with commas' }]);
  });

  it('the exclusion directive is a bare dash', () => {
    assert.deepEqual(parseDirectives('-').uses.map((u) => u.name), ['-']);
  });
});

describe('directive values', () => {
  it('lists are split on | and refuse empty options', () => {
    assert.deepEqual(parseList('admin| editor |member'), ['admin', 'editor', 'member']);
    assert.throws(() => parseList('a||b'), (e: unknown) => e instanceof DirectiveProblem && e.message === "'a||b' has an empty option");
    assert.throws(() => parseList('a|'), DirectiveProblem);
  });

  it('sizes take bytes or binary KB/MB/GB suffixes', () => {
    assert.equal(parseSize('512'), 512);
    assert.equal(parseSize('2KB'), 2048);
    assert.equal(parseSize('5MB'), 5 * 1024 * 1024);
    assert.equal(parseSize('1 gb'), 1024 ** 3);
    assert.throws(() => parseSize('lots'), DirectiveProblem);
  });

  it('literals are cast to the field type', () => {
    assert.equal(castLiteral('true', 'boolean', false), true);
    assert.equal(castLiteral('0', 'boolean', false), false);
    assert.equal(castLiteral('2.5', 'number', false), 2.5);
    assert.equal(castLiteral('-7', 'integer', false), -7);
    assert.equal(castLiteral('9007199254740991', 'bigint', false), 9007199254740991);
    assert.equal(castLiteral('member', 'string', false), 'member');
    assert.equal(castLiteral('"a, b"', 'string', false), 'a, b');
    assert.equal(castLiteral('2024-01-31T12:00:00Z', 'timestamp', false), '2024-01-31T12:00:00.000Z');
    assert.deepEqual(castLiteral('["a","b"]', 'json_array', false, 'string'), ['a', 'b']);
    assert.deepEqual(castLiteral('{"a":1}', 'json_object', false), { a: 1 });
    assert.deepEqual(castLiteral('{"en":"Hi"}', 'localized', false), { en: 'Hi' });
    assert.equal(castLiteral('null', 'string', true), null);
  });

  it('uncastable literals are refused with the reason', () => {
    const refuses = (text: string, type: Parameters<typeof castLiteral>[1], message: string, nullable = false) =>
      assert.throws(() => castLiteral(text, type, nullable), (e: unknown) => e instanceof DirectiveProblem && e.message === message);
    refuses('yes', 'boolean', "'yes' is not a boolean");
    refuses('1.5', 'integer', "'1.5' is not a 32-bit integer");
    refuses('3000000000', 'integer', "'3000000000' is not a 32-bit integer");
    refuses('abc', 'number', "'abc' is not a number");
    refuses('tomorrow', 'timestamp', "'tomorrow' is not an ISO 8601 date-time");
    refuses('[1,', 'json_array', "'[1,' is not valid JSON");
    refuses('{"a":1}', 'json_array', `'{"a":1}' is not a JSON array such as ["a","b"]`);
    refuses('null', 'string', 'null is not allowed on a non-nullable field');
    assert.throws(() => castLiteral('[1,"x"]', 'json_array', false, 'integer'), DirectiveProblem);
  });
});
