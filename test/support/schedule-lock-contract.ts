// The interval lock contract (runtime/src/jobs/schedule-lock.ts), one suite
// for every store: sqlScheduleLock on each database, redisScheduleLock on
// the real Redis. Each test gets replicas: several lock instances on one
// fresh store, as several servers would hold.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ScheduleLock } from '@mfx/runtime';

export interface LocksUnderTest {
  /** Lock instances of several replicas on one store (at least two). */
  replicas: ScheduleLock[];
  /** Releases what the factory opened (database, connection). */
  close(): Promise<void>;
}

/**
 * Defines the contract's tests for the locks `open` makes (a fresh, empty store per test).
 *
 * @example
 * scheduleLockContract('redisScheduleLock', async () => ({ replicas: [lock(), lock()], close }));
 */
export function scheduleLockContract(title: string, open: () => Promise<LocksUnderTest>, options: { skip?: string | false } = {}): void {
  describe(`interval lock contract: ${title}`, { skip: options.skip ?? false }, () => {
    let under: LocksUnderTest;
    let a: ScheduleLock;
    let b: ScheduleLock;
    beforeEach(async () => {
      under = await open();
      [a, b] = under.replicas as [ScheduleLock, ScheduleLock];
    });
    afterEach(async () => {
      for (const lock of under.replicas) await lock.close?.();
      await under.close();
    });

    it('takes each interval of a schedule once, whichever replica asks', async () => {
      assert.equal(await a.take('report@300000', 7), true);
      assert.equal(await a.take('report@300000', 7), false, 'the same replica again');
      assert.equal(await b.take('report@300000', 7), false, 'another replica, same interval');
      assert.equal(await b.take('report@300000', 8), true, 'the next interval, by another replica');
      assert.equal(await a.take('report@300000', 8), false);
    });

    it('never goes back: a replica behind asking for an earlier interval is refused, a later interval is taken', async () => {
      assert.equal(await a.take('report@300000', 10), true);
      assert.equal(await b.take('report@300000', 9), false);
      assert.equal(await b.take('report@300000', 12), true, 'intervals may be skipped');
      assert.equal(await a.take('report@300000', 11), false);
    });

    it('keeps schedules apart', async () => {
      assert.equal(await a.take('report@300000', 7), true);
      assert.equal(await b.take('other@300000', 7), true);
      assert.equal(await b.take('report@60000', 7), true);
      assert.equal(await a.take('other@300000', 7), false);
    });

    it('gives a contested interval to exactly one of the replicas asking at once, interval after interval', async () => {
      for (const slot of [1, 2, 3, 4, 5]) {
        const answers = await Promise.all(under.replicas.flatMap((lock) => [lock.take('race@1000', slot), lock.take('race@1000', slot)]));
        assert.equal(answers.filter(Boolean).length, 1, `interval ${slot}: ${answers.join(', ')}`);
      }
    });

    it('takes intervals as large as Date.now() in milliseconds makes them', async () => {
      const slot = Math.floor(Date.now() / 1);
      assert.equal(await a.take('every-ms@1', slot), true);
      assert.equal(await b.take('every-ms@1', slot), false);
      assert.equal(await b.take('every-ms@1', slot + 1), true);
    });
  });
}
