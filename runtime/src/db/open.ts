import { ConfigError } from '../errors/api-error.js';
import type { Registry } from '../registry/registry.js';
import type { Adapter } from './adapter.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

/**
 * Opens the adapter a database URL names: `sqlite::memory:`, `sqlite:PATH`
 * or `postgres://USER@HOST:PORT/DB` (a second URL for the read pool).
 *
 * @example
 * app.setDB(openDatabase(process.env.DB_WRITE_URL ?? 'sqlite:./mfx.db', app.registry));
 */
export function openDatabase(url: string, registry: Registry, readUrl?: string): Adapter {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path === '') throw new ConfigError(`database URL "${url}" names no file; use sqlite:./app.db or sqlite::memory:`);
    return openSqlite(path, registry);
  }
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres({ writeUrl: url, readUrl }, registry);
  throw new ConfigError(`unsupported database URL "${url}"; use sqlite::memory:, sqlite:PATH or postgres://USER@HOST:PORT/DB`);
}
