// The interval lock contract on sqlScheduleLock: on SQLite (two replicas'
// locks on one database) and on PostgreSQL (two replicas, each with its own
// connection pool, on one schema).
import { type Adapter, migrate, openPostgres, Registry, scheduleLockTable, silentLogger, sqlScheduleLock } from '@mfx/runtime';
import { matrix } from '../support/suite.js';
import { scheduleLockContract } from '../support/schedule-lock-contract.js';

for (const backend of matrix) {
  scheduleLockContract(
    `sqlScheduleLock on ${backend.name}`,
    async () => {
      const { adapter, drop, url } = await backend.open(new Registry());
      await migrate(adapter, [], silentLogger, [scheduleLockTable]);
      const adapters: Adapter[] = [adapter, backend.name === 'postgres' ? openPostgres({ writeUrl: url }, new Registry()) : adapter];
      return {
        replicas: adapters.map((db) => sqlScheduleLock(db)),
        close: async () => {
          for (const db of new Set(adapters)) await db.close();
          await drop();
        },
      };
    },
    { skip: backend.skip },
  );
}
