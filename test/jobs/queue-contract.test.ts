// The job queue contract on every adapter of the runtime: memoryQueue, and sqlQueue on SQLite and PostgreSQL (a lane, payloads encrypted on one of them).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type Adapter, jobTable, memoryQueue, migrate, Registry, silentLogger, sqlQueue, staticKeyProvider } from '@mfx/runtime';
import { queueContract } from '../support/job-queue-contract.js';
import { matrix } from '../support/suite.js';

queueContract('memoryQueue', async () => ({ queue: memoryQueue(), close: async () => {} }));

const key = randomBytes(32);
for (const backend of matrix) {
  for (const variant of [
    { title: 'sqlQueue', options: {} },
    { title: 'sqlQueue (lane, encrypted payloads)', options: { lane: 'reports', encryptPayload: { keyId: 'jobs', keyProvider: staticKeyProvider({ keys: { jobs: key } }) } } },
  ]) {
    queueContract(
      `${variant.title} on ${backend.name}`,
      async () => {
        const { adapter, drop } = await backend.open(new Registry());
        const queue = sqlQueue(adapter as Adapter, variant.options);
        await migrate(adapter, [], silentLogger, [...queue.tables]);
        return {
          queue,
          close: async () => {
            await adapter.close();
            await drop();
          },
        };
      },
      { skip: backend.skip },
    );
  }
}

describe('sqlQueue', () => {
  for (const backend of matrix) {
    describe(`on ${backend.name}`, { skip: backend.skip }, () => {
      let adapter: Adapter;
      let drop: () => Promise<void>;
      beforeEach(async () => {
        ({ adapter, drop } = await backend.open(new Registry()));
      });
      afterEach(async () => {
        await adapter.close();
        await drop();
      });
      const ready = async (options: Parameters<typeof sqlQueue>[1] = {}) => {
        const queue = sqlQueue(adapter, options);
        await migrate(adapter, [], silentLogger, [...queue.tables]);
        return queue;
      };

      it('enqueues through the caller transaction: rolled back with it, committed with it', async () => {
        const queue = await ready();
        await assert.rejects(
          adapter.transaction(async (tx) => {
            await queue.enqueue([{ type: 'a', id: 'rolled-back' }], tx);
            assert.equal((await tx.raw('SELECT COUNT(*) AS n FROM mfx_jobs'))[0]!.n == 1, true, 'visible inside the transaction');
            throw new Error('the write failed');
          }),
          /the write failed/,
        );
        await adapter.transaction((tx) => queue.enqueue([{ type: 'a', id: 'committed' }], tx));
        assert.deepEqual((await queue.claim({ limit: 10, leaseMs: 1000 })).map((j) => j.id), ['committed']);
      });

      it('stores an encrypted payload as encq: and reads it back; another key id cannot', async () => {
        const keyProvider = staticKeyProvider({ keys: { jobs: key } });
        const queue = await ready({ encryptPayload: { keyId: 'jobs', keyProvider } });
        await queue.enqueue([{ type: 'a', id: 'secret', payload: { card: '4111' } }]);
        const [row] = await adapter.raw('SELECT payload FROM mfx_jobs');
        assert.match(String(row!.payload), /^encq:[A-Za-z0-9+/=]+$/);
        assert.ok(!String(row!.payload).includes('4111'));
        const [job] = await queue.claim({ limit: 1, leaseMs: 1000 });
        assert.deepEqual(job!.payload, { card: '4111' });
      });

      it('keeps a lane in its own table', async () => {
        const main = await ready();
        const lane = await ready({ lane: 'reports' });
        assert.equal(lane.table, 'mfx_jobs_reports');
        await lane.enqueue([{ type: 'a', id: 'in-lane' }]);
        assert.deepEqual(await main.claim({ limit: 10, leaseMs: 1000 }), []);
        assert.deepEqual((await lane.claim({ limit: 10, leaseMs: 1000 })).map((j) => j.id), ['in-lane']);
      });

      it('refuses a table name that is not a plain identifier', () => {
        assert.throws(() => sqlQueue(adapter, { lane: 'Bad-Lane' }), {
          name: 'ConfigError',
          message: 'mfx: the job table name "mfx_jobs_Bad-Lane" (table and lane) must be lower-case letters, digits and underscores, starting with a letter, at most 48 characters',
        });
      });

      it('hands each job to one of several claimers racing on it', async () => {
        const queue = await ready();
        const ids = Array.from({ length: 40 }, (_, i) => `race-${i}`);
        await queue.enqueue(ids.map((id, i) => ({ type: 'a', id, groupKey: i % 4 === 0 ? 'shared' : null })));
        const claims = await Promise.all(Array.from({ length: 8 }, () => queue.claim({ limit: 6, leaseMs: 60_000 })));
        const claimed = claims.flat().map((j) => j.id);
        assert.equal(new Set(claimed).size, claimed.length, 'no job handed out twice');
        assert.equal(claims.flat().filter((j) => j.groupKey === 'shared').length, 1, 'one job of the group at a time');
      });

      it('indexes group keys of grouped jobs only, and makes generated ids in time order', async () => {
        const queue = await ready();
        const definition = backend.name === 'postgres'
          ? (await adapter.raw("SELECT indexdef AS sql FROM pg_indexes WHERE indexname = 'idx_mfx_jobs_group' AND schemaname = current_schema()"))[0]
          : (await adapter.raw("SELECT sql FROM sqlite_master WHERE name = 'idx_mfx_jobs_group'"))[0];
        assert.match(String(definition!.sql), /WHERE \(?"?group_key"? IS NOT NULL\)?$/);
        const [first] = await queue.enqueue([{ type: 'a' }]);
        const [second] = await queue.enqueue([{ type: 'a', groupKey: 'g' }]);
        assert.match(first!, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        assert.ok(first!.slice(0, 13) <= second!.slice(0, 13), 'the clock part grows');
        assert.deepEqual((await queue.claim({ limit: 10, leaseMs: 1000 })).map((j) => j.id), [first, second]);
      });
    });
  }
});
