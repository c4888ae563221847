/**
 * The database drivers are optional peer dependencies of @mfx/runtime: an
 * app installs the one it uses (`better-sqlite3`, or `pg` with `pg-cursor`),
 * and the runtime loads it when a database of that kind is opened, so a
 * PostgreSQL-only app never needs the SQLite addon and a SQLite app never
 * loads pg. `exceljs` is one too, loaded by the first XLSX export. The types
 * come from `import type`, which the build erases.
 */
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import type Cursor from 'pg-cursor';
import { ConfigError } from '../errors/api-error.js';

const requireDriver = createRequire(import.meta.url);
const loaded = new Map<string, unknown>();

/** pg's conversion of a JavaScript parameter to what the protocol sends (`pg/lib/utils.js`, which @types/pg leaves out). */
export interface PgUtils {
  prepareValue(value: unknown): unknown;
}

/** Every optional package, what it loads as, and what needs it (for the message when it is missing). */
interface Drivers {
  'better-sqlite3': typeof Database;
  pg: typeof pg;
  'pg-cursor': typeof Cursor;
  'pg/lib/utils.js': PgUtils;
  exceljs: typeof import('exceljs');
}

const NEEDED_BY: Record<keyof Drivers, { feature: string; install: string }> = {
  'better-sqlite3': { feature: 'SQLite (openSqlite, a sqlite: database URL)', install: 'better-sqlite3' },
  pg: { feature: 'PostgreSQL (openPostgres, a postgres:// database URL)', install: 'pg pg-cursor' },
  'pg-cursor': { feature: 'PostgreSQL (openPostgres, a postgres:// database URL)', install: 'pg pg-cursor' },
  'pg/lib/utils.js': { feature: 'PostgreSQL (openPostgres, a postgres:// database URL)', install: 'pg pg-cursor' },
  exceljs: { feature: 'XLSX export (GET /<table>/export?format=xlsx)', install: 'exceljs' },
};

/** The package a module specifier belongs to (`pg/lib/utils.js` → `pg`). */
const packageOf = (specifier: string) => specifier.split('/')[0];

/**
 * Loads an optional driver package (cached by `require`); when it is not
 * installed, a ConfigError says which package to install and what needs it.
 *
 * @example
 * const Database = loadDriver('better-sqlite3');
 * const db = new Database(':memory:');
 */
export function loadDriver<Name extends keyof Drivers>(name: Name): Drivers[Name] {
  let driver = loaded.get(name) as Drivers[Name] | undefined;
  if (driver) return driver;
  try {
    driver = requireDriver(name) as Drivers[Name];
    loaded.set(name, driver);
    return driver;
  } catch (error) {
    const missing = packageOf(name);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'MODULE_NOT_FOUND' && (error as Error).message.startsWith(`Cannot find module '${missing}`)) {
      const { feature, install } = NEEDED_BY[name];
      throw new ConfigError(`${feature} needs the ${missing} package, which is not installed; add it to your app: npm install ${install}`);
    }
    throw error;
  }
}
