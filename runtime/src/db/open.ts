import { resolve } from 'node:path';
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

/**
 * A database URL as output may show it: a password (in the user part, or a
 * `password` or `sslpassword` parameter) becomes `***`; a SQLite path is made
 * absolute, so it says which file.
 *
 * @example
 * shownDatabaseUrl('postgres://app:s3cret@db:5432/app'); // 'postgres://app:***@db:5432/app'
 */
export function shownDatabaseUrl(url: string): string {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    return path === ':memory:' || path === '' ? url : `sqlite:${resolve(path)}`;
  }
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^/?#]*@/i, '$1***@').replace(/([?&][^=&#]*password=)[^&#]*/gi, '$1***');
}
