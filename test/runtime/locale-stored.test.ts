// Reading a localized column's stored text (SQLite) through the cache of parsed maps: every
// read answers what JSON.parse answers, as an object of its own, and the bounded cache rule
// the decryption cache shares.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storedLocalized, storedLocalizedCacheSize } from '../../runtime/src/locale/stored.js';
import { BoundedCache } from '../../runtime/src/util/bounded-cache.js';

describe('stored localized text', () => {
  it('reads a map as JSON.parse does, keys in the same order, a fresh object on every read', () => {
    const text = '{"fr":"Pomme","en":"Apple","de":"Apfel","1":"one"}';
    const first = storedLocalized(text) as Record<string, string>;
    const second = storedLocalized(text) as Record<string, string>;
    for (const read of [first, second]) {
      assert.deepEqual(read, JSON.parse(text));
      assert.deepEqual(Object.keys(read), Object.keys(JSON.parse(text)));
      assert.equal(Object.isFrozen(read), false);
    }
    assert.notEqual(first, second, 'each read has its own object');
    first.en = 'changed in place';
    delete first.de;
    assert.deepEqual(storedLocalized(text), JSON.parse(text), 'a change to one read reaches no later read');
  });

  it('keeps flat maps once, by their whole text', () => {
    const text = `{"en":"kept ${Math.random()}"}`;
    const before = storedLocalizedCacheSize().entries;
    storedLocalized(text);
    storedLocalized(text);
    assert.equal(storedLocalizedCacheSize().entries, before + 1);
    storedLocalized(`${text} `);
    assert.equal(storedLocalizedCacheSize().entries, before + 2, 'another text (one space more) is another entry');
  });

  it('answers nested values, arrays, legacy scalars and text that is not JSON as before, without keeping them', () => {
    const nested = '{"en":{"short":"A"}}';
    const before = storedLocalizedCacheSize().entries;
    const a = storedLocalized(nested) as { en: { short: string } };
    a.en.short = 'changed in place';
    assert.deepEqual(storedLocalized(nested), { en: { short: 'A' } });
    assert.deepEqual(storedLocalized('["en"]'), ['en']);
    assert.equal(storedLocalized('"Old title"'), 'Old title');
    assert.equal(storedLocalized('Old title'), 'Old title');
    assert.equal(storedLocalized('null'), null);
    assert.equal(storedLocalizedCacheSize().entries, before);
  });

  it('keeps a __proto__ key as an own key, as JSON.parse does', () => {
    const text = '{"__proto__":"x","en":"y"}';
    for (let i = 0; i < 2; i++) {
      const read = storedLocalized(text) as Record<string, unknown>;
      assert.deepEqual(Object.keys(read), ['__proto__', 'en']);
      assert.equal(Object.getPrototypeOf(read), Object.prototype);
    }
  });
});

describe('the bounded cache rule', () => {
  const sizeOf = (key: string, value: string) => key.length + value.length;

  it('keeps entries up to its budget, evicting the oldest first; an entry over 1/16 of the budget is never kept', () => {
    const cache = new BoundedCache<string, string>(16 * 4, sizeOf);
    for (let i = 10; i < 26; i++) cache.add(`k${i}`, `${i % 10}`);
    assert.deepEqual(cache.size, { entries: 16, bytes: 64 });
    cache.add('k26', '6');
    assert.equal(cache.get('k10'), undefined, 'the oldest went first');
    assert.equal(cache.get('k11'), '1');
    assert.equal(cache.get('k26'), '6');
    assert.deepEqual(cache.size, { entries: 16, bytes: 64 });
    cache.add('big', 'xx');
    assert.equal(cache.get('big'), undefined, 'over 1/16 of the budget');
    assert.equal(cache.size.entries, 16);
  });

  it('leaves a key it holds to its first value', () => {
    const cache = new BoundedCache<string, string>(1024, sizeOf);
    cache.add('k', 'first');
    cache.add('k', 'other');
    assert.equal(cache.get('k'), 'first');
    assert.deepEqual(cache.size, { entries: 1, bytes: 6 });
  });
});
