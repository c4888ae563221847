// PostgreSQL timestamps as ISO strings: the text fast path gives exactly what pg's parser and toISOString give.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { isoTimestamp } from '../../runtime/src/db/pg-timestamps.js';

const parse = pg.types.getTypeParser(1184) as (text: string) => unknown;
const throughDate = (text: string) => {
  const parsed = parse(text);
  return parsed instanceof Date && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : text;
};

describe('isoTimestamp', () => {
  it("equals pg's parser for every millisecond fraction PostgreSQL can print, in UTC and in other zones", () => {
    const fractions = [''];
    for (let digits = 1; digits <= 3; digits++) for (let i = 0; i < 10 ** digits; i++) fractions.push(`.${String(i).padStart(digits, '0')}`);
    const days = ['0001-01-01 00:00:00', '0099-12-31 23:59:59', '1969-12-31 23:59:59', '2024-02-29 12:34:56', '9999-12-31 23:59:59'];
    for (const day of days) {
      for (const fraction of fractions) {
        for (const zone of ['+00', '+02', '-05:30']) {
          const text = `${day}${fraction}${zone}`;
          assert.equal(isoTimestamp(text, parse), throughDate(text), text);
        }
      }
    }
  });

  it("leaves microseconds, BC, infinity, timestamps without a zone and longer years to pg's parser", () => {
    for (const text of ['2025-01-07 22:39:00.123456+00', '0044-03-15 12:00:00+00 BC', 'infinity', '-infinity', '2025-01-07 22:39:00', '12345-01-01 00:00:00+00']) {
      assert.equal(isoTimestamp(text, parse), throughDate(text), text);
    }
    assert.equal(isoTimestamp('2025-01-07 22:39:00.5+00', parse), '2025-01-07T22:39:00.500Z');
  });
});
