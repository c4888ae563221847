// ISO timestamps made from a kept second (util/iso-time.ts): the same text as toISOString.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoNow, isoTime } from '../../runtime/src/util/iso-time.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe('isoTime', () => {
  it('writes what toISOString writes, across seconds, days, leap days and years', () => {
    const edges = [
      0,
      999,
      1000,
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 0, 1),
      Date.UTC(2024, 1, 29, 12, 0, 0, 7),
      Date.UTC(2026, 10, 25, 1, 49, 44, 123),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (const ms of edges) assert.equal(isoTime(ms), iso(ms), String(ms));
  });

  it('stays right when calls go back and forth between seconds (the kept second is replaced)', () => {
    const base = Date.UTC(2026, 10, 25, 1, 49, 44);
    for (const ms of [base + 5, base + 1005, base + 5, base - 1, base + 999, base + 1000, base + 86_400_000 + 10]) {
      assert.equal(isoTime(ms), iso(ms), String(ms));
    }
  });

  it('matches toISOString over random milliseconds of 1970 to 9999', () => {
    for (let i = 0; i < 20_000; i++) {
      const ms = Math.floor(Math.random() * 253_402_300_800_000);
      assert.equal(isoTime(ms), iso(ms));
    }
  });

  it('leaves times it does not format to the Date: before 1970, from year 10000, fractions', () => {
    for (const ms of [-1, -86_400_001, 253_402_300_800_000, 1.5]) assert.equal(isoTime(ms), iso(ms), String(ms));
    assert.throws(() => isoTime(Number.NaN), RangeError);
  });

  it('isoNow is the current time', () => {
    const before = Date.now();
    const now = Date.parse(isoNow());
    assert.ok(now >= before && now <= Date.now());
  });
});
