// Time-ordered ids (version 7 UUIDs) for the rows the runtime appends to its own tables (events, jobs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomTail, timeOrderedUuid } from '../../runtime/src/util/time-ordered-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedUuid', () => {
  it('is a version 7 UUID whose first 48 bits are the milliseconds', () => {
    const id = timeOrderedUuid(Date.UTC(2026, 0, 1));
    assert.match(id, V7);
    assert.equal(parseInt(id.slice(0, 8) + id.slice(9, 13), 16), Date.UTC(2026, 0, 1));
    assert.equal(id.slice(0, 13), '019b76da-a800');
  });

  it('writes all 48 bits of the clock, across the halves it is made of', () => {
    for (const ms of [0, 1, 0xffffff, 0x1000000, 0x1000001, Date.UTC(2026, 10, 25, 2, 30), 2 ** 48 - 1]) {
      const id = timeOrderedUuid(ms);
      assert.match(id, V7);
      assert.equal(id.slice(0, 8) + id.slice(9, 13), ms.toString(16).padStart(12, '0'), String(ms));
    }
  });

  it('sorts by time as text: an id of a later millisecond sorts after every id of an earlier one', () => {
    const earlier = Array.from({ length: 50 }, () => timeOrderedUuid(1_700_000_000_000));
    const later = Array.from({ length: 50 }, () => timeOrderedUuid(1_700_000_000_001));
    const sorted = [...later, ...earlier].sort();
    assert.deepEqual(sorted.slice(0, 50).sort(), [...earlier].sort());
    assert.equal(new Set([...earlier, ...later]).size, 100, 'ids of one millisecond differ');
  });
});

describe('randomTail', () => {
  it('is the last 64 bits as 16 hex digits, never all zero, and differs between ids of one millisecond', () => {
    assert.equal(randomTail('019b76da-a800-7123-8456-0123456789ab'), '84560123456789ab');
    const tails = Array.from({ length: 50 }, () => randomTail(timeOrderedUuid(1_700_000_000_000)));
    for (const tail of tails) assert.match(tail, /^[89ab][0-9a-f]{15}$/);
    assert.equal(new Set(tails).size, 50);
  });
});
