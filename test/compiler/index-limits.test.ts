// Indexed text gets a maximum length that its index can hold (issue 14, defect 5):
// fixtures/compiler/index-limits/valid.ts compiles clean, invalid.ts has one error per case.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { BuildResult } from '@mfx/compiler';
import type { ModelManifest } from '@mfx/runtime/manifest';
import { compile, fixture, locate, type Seen, seen } from './support.js';

const valid = fixture('compiler', 'index-limits', 'valid.ts');
const invalid = fixture('compiler', 'index-limits', 'invalid.ts');
let good: BuildResult;
let bad: BuildResult;

before(() => {
  good = compile([valid]);
  bad = compile([invalid]);
});

const BTREE = "PostgreSQL's btree index entries hold 2704 bytes and a character takes up to 4 bytes in UTF-8";
const FULL_TEXT = "PostgreSQL's full-text vector holds 1 MiB and a character of text can take up to 6 bytes of it";

/** Every field's maxlen (undefined when it has none) and its create schema's maxLength. */
function limits(name: string): Record<string, [number | undefined, unknown]> {
  const model = good.manifest!.models.find((m) => m.name === name) as ModelManifest;
  const properties = (model.schemas.create as { properties: Record<string, { maxLength?: number }> }).properties;
  return Object.fromEntries(model.fields.filter((f) => !f.base).map((f) => [f.name, [f.maxlen, properties[f.name]?.maxLength]]));
}

const error = (at: string, text: string): Seen => ({ severity: 'error', ...locate(invalid, at), text });

describe('index limits: defaults', () => {
  it('the valid models compile without a diagnostic', () => {
    assert.deepEqual(seen(good.diagnostics), []);
  });

  it('unique, index, foreign-key, cursor and blind-index text defaults to 255 characters, in the manifest and the body schema', () => {
    const shop = limits('Shop');
    for (const name of ['code', 'region', 'ownerId', 'handle', 'city', 'street', 'taxId']) assert.deepEqual(shop[name], [255, 255], name);
  });

  it('maxlen lowers or raises the limit, up to what the index holds', () => {
    const shop = limits('Shop');
    assert.deepEqual(shop.short, [20, 20]);
    assert.deepEqual(shop.longest, [670, 670]);
    assert.deepEqual(limits('Owner').biography, [174760, 174760]);
  });

  it('text nothing indexes, and enum fields (bounded by their values), get no limit', () => {
    const shop = limits('Shop');
    assert.deepEqual(shop.notes, [undefined, undefined]);
    assert.deepEqual(shop.size, [undefined, undefined]);
  });

  it('searchable text defaults to 100,000 characters; fields of one full-text index share it', () => {
    assert.deepEqual(limits('Shop').description, [100000, 100000]);
    const article = limits('Article');
    // (1,048,575 - 8 - 3 * 6 - 200 * 6) / (2 * 6): what the headline leaves, shared by lead and text.
    assert.deepEqual([article.lead, article.text, article.headline], [[87279, 87279], [87279, 87279], [200, 200]]);
  });

  it('a field a btree bounds counts at that length in the full-text index', () => {
    const listing = limits('Listing');
    // (1,048,575 - 8 - 3 * 6 - 255 * 6) / (2 * 6): the slug takes its 255, not a third.
    assert.deepEqual([listing.slug, listing.intro, listing.body], [[255, 255], [87251, 87251], [87251, 87251]]);
  });

  it('text fields of one composite index share what it holds', () => {
    const shop = limits('Shop');
    // Three open text columns: (2704 - 16 - 3 * 8) / (3 * 4) = 222 each.
    assert.deepEqual([shop.first, shop.second, shop.third], [[222, 222], [222, 222], [222, 222]]);
    // Beside maxlen:600: (2704 - 16 - 8 - 600 * 4 - 8) / 4 = 68.
    assert.deepEqual([shop.wide, shop.rest], [[600, 600], [68, 68]]);
  });
});

describe('index limits: errors', () => {
  it('the build fails', () => {
    assert.equal(bad.ok, false);
  });

  it('a maxlen above what a single-column index holds', () => {
    const at = (needle: string) => seen(bad.diagnostics).filter((d) => d.line === locate(invalid, needle).line);
    assert.deepEqual(at('code:'), [error('code:', `Overflow.code: maxlen:671 is more than the unique index on code can hold. Use maxlen:670 or less: ${BTREE}`)]);
    assert.deepEqual(at('essay:'), [
      error('essay:', `Overflow.essay: maxlen:174761 is more than the full-text index on essay can hold. Use maxlen:174760 or less: ${FULL_TEXT}`),
    ]);
  });

  it('maxlens that a composite index cannot hold together, and JSON columns in an index directive', () => {
    const model = seen(bad.diagnostics).filter((d) => d.line === locate(invalid, 'export interface Overflow').line);
    const at = locate(invalid, 'Overflow extends');
    assert.deepEqual(model, [
      {
        severity: 'error',
        line: at.line,
        col: at.col,
        text: "Overflow: 'index:on_json' names tags, a JSON column. An index entry holds at most 2704 bytes on PostgreSQL and a JSON value's size has no bound; index a text or number field instead",
      },
      {
        severity: 'error',
        line: at.line,
        col: at.col,
        text: `Overflow: unique_index too_wide (left, right) cannot hold its text at full length (maxlen:400 on left, maxlen:300 on right). Lower maxlen on left, right so that together they hold at most 668 characters: ${BTREE}`,
      },
    ]);
  });

  it('a minlen or a default longer than the default limit asks for a maxlen', () => {
    const at = (needle: string) => seen(bad.diagnostics).filter((d) => d.line === locate(invalid, needle).line);
    assert.deepEqual(at('serial:'), [
      error('serial:', `Overflow.serial: minlen:300 is more than the 255 characters the unique index on serial allows by default. Give serial a maxlen:N of its own (${BTREE})`),
    ]);
    assert.deepEqual(at('label:'), [
      error(
        'label:',
        `Overflow.label: default "${'a'.repeat(40)}" is longer than the 255 characters the index on label allows by default. Give label a maxlen:N of its own (${BTREE})`,
      ),
    ]);
  });

  it('JSON, localized and encrypted columns cannot be indexed', () => {
    const at = (needle: string) => seen(bad.diagnostics).filter((d) => d.line === locate(invalid, needle).line);
    const json = "An index entry holds at most 2704 bytes on PostgreSQL and a JSON value's size has no bound; index a text or number field instead";
    assert.deepEqual(at('meta:'), [error('meta:', `Overflow.meta: 'unique' does not apply to an object field. ${json}`)]);
    assert.deepEqual(at('title:'), [error('title:', `Overflow.title: 'index' does not apply to a Localized field. ${json}`)]);
    assert.deepEqual(at('secret:'), [
      error(
        'secret:',
        "Overflow.secret: 'encrypted' cannot be combined with 'index'. Ciphertexts of equal values differ, so no query can use an index on them; use encrypted,unique for exact lookups through the blind index",
      ),
    ]);
  });

  it('the cursor field counts with the id it is ordered by', () => {
    const at = (needle: string) => seen(bad.diagnostics).filter((d) => d.line === locate(invalid, needle).line);
    // (2704 - 16 - 8 - 8 - 36 * 4) / 4: the id's 36 characters take their share.
    assert.deepEqual(at('handle:'), [
      error('handle:', `Paged.handle: maxlen:633 is more than the keyset order of cursor_field handle (with id) can hold. Use maxlen:632 or less: ${BTREE}`),
    ]);
  });

  it('nothing else is reported', () => {
    assert.equal(bad.diagnostics.length, 10);
  });
});
