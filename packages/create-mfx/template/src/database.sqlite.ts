// The database: SQLite, through better-sqlite3. (`npm create mfx -- --db postgres` writes the PostgreSQL version.)
import { type Adapter, type Registry, openSqlite } from '@mfx/runtime';

/** Where `npm start` and `npm run seed` keep the data unless DB_WRITE_URL names another. `npm run dev` uses the same file. */
export const DATABASE_URL = '{{devDatabase}}';

/** Where `npm test` runs, unless TEST_DB_URL names another: a new empty database in memory. */
export const TEST_DATABASE_URL = 'sqlite::memory:';

/** Opens `sqlite:PATH` or `sqlite::memory:`. */
export function openDatabase(url: string, registry: Registry, readUrl?: string): Adapter {
  if (readUrl) throw new Error('DB_READ_URL (a read replica) is for PostgreSQL; unset it for SQLite');
  if (!url.startsWith('sqlite:') || url === 'sqlite:') {
    throw new Error(`this app uses SQLite: the database URL must be sqlite:PATH or sqlite::memory:, not "${url}"`);
  }
  return openSqlite(url.slice('sqlite:'.length), registry);
}
