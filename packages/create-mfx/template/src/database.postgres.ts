// The database: PostgreSQL, through pg. (`npm create mfx` without --db writes the SQLite version.)
import { type Adapter, type Registry, openPostgres } from '@mfx/runtime';

/** What `npm start` and `npm run seed` use unless DB_WRITE_URL names another (`createdb {{dbName}}`). `npm run dev` uses the same. */
export const DATABASE_URL = '{{devDatabase}}';

/** Where `npm test` runs unless TEST_DB_URL names another (`createdb {{dbName}}_test`). */
export const TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/{{dbName}}_test';

/** Opens `postgres://USER@HOST:PORT/DB`; reads outside transactions go to `readUrl` (DB_READ_URL) when given. */
export function openDatabase(url: string, registry: Registry, readUrl?: string): Adapter {
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new Error(`this app uses PostgreSQL: the database URL must be postgres://USER@HOST:PORT/DB, not "${url}"`);
  }
  return openPostgres(readUrl ? { writeUrl: url, readUrl } : { writeUrl: url }, registry);
}
