// The database matrix: every end-to-end suite runs on SQLite and on PostgreSQL.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Adapter, openPostgres, openSqlite, type Registry } from '@mfx/runtime';

export const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Backend {
  name: 'sqlite' | 'sqlite-file' | 'postgres';
  /** A reason to skip, when the backend is unreachable outside CI. */
  skip: string | false;
  /** Opens a fresh, empty database for one server; `drop` removes it. */
  open(registry: Registry): Promise<{ adapter: Adapter; drop: () => Promise<void>; url: string }>;
}

let pgReachable: Promise<boolean> | null = null;

/**
 * Whether PostgreSQL answers. A refused or unresolvable address is final at
 * once; a slow answer is retried with a longer wait, because a machine busy
 * with parallel test files can take seconds to schedule the handshake, and a
 * timeout here would silently skip a file's PostgreSQL half.
 */
async function checkPostgres(): Promise<boolean> {
  for (const timeoutMs of [3000, 10_000, 20_000]) {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: timeoutMs });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === '28P01' || code === '3D000') return false;
    } finally {
      await client.end().catch(() => {});
    }
  }
  return false;
}

/** Creates a schema of its own for one server, so runs never collide. */
export async function freshSchema(): Promise<{ url: string; schema: string; drop: () => Promise<void> }> {
  const schema = `mfx_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    schema,
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

const sqliteBackend: Backend = {
  name: 'sqlite',
  skip: false,
  async open(registry) {
    return { adapter: openSqlite(':memory:', registry), drop: async () => {}, url: 'sqlite::memory:' };
  },
};

/**
 * SQLite on a file in a temporary directory: WAL, a reader connection beside
 * the writer. For suites whose behaviour differs from `:memory:` (which has
 * only the one connection); not part of `backends()`.
 */
export const sqliteFileBackend: Backend = {
  name: 'sqlite-file',
  skip: false,
  async open(registry) {
    const dir = await mkdtemp(join(tmpdir(), 'mfx-test-'));
    const path = join(dir, 'test.db');
    return { adapter: openSqlite(path, registry), drop: () => rm(dir, { recursive: true, force: true }), url: `sqlite:${path}` };
  },
};

function postgresBackend(reachable: boolean): Backend {
  let skip: string | false = false;
  if (!reachable) {
    if (process.env.CI === 'true') throw new Error(`PostgreSQL at ${PG_URL} is unreachable and CI=true: start it (see .ci/run) or set PG_URL`);
    skip = `PostgreSQL at ${PG_URL} is unreachable; set PG_URL to run the PostgreSQL half`;
    process.stderr.write(`\n!!! SKIPPING POSTGRESQL TESTS: ${skip} !!!\n\n`);
  }
  return {
    name: 'postgres',
    skip,
    async open(registry) {
      const { url, drop } = await freshSchema();
      return { adapter: openPostgres({ writeUrl: url }, registry), drop, url };
    },
  };
}

/** Both backends; PostgreSQL is skipped loudly when unreachable (and fails under CI=true). */
export async function backends(): Promise<Backend[]> {
  pgReachable ??= checkPostgres();
  return [sqliteBackend, postgresBackend(await pgReachable)];
}
