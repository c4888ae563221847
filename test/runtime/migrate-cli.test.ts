// `mfx migrate --plan`, `--strict`, `renamed_from:` and `mfx serve --strict-migrations`, as a team runs them:
// real commands against a SQLite file and a PostgreSQL schema, exact output and exit codes, and proof that
// nothing changed whenever a command plans or refuses.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { build } from '@mfx/compiler';
import Database from 'better-sqlite3';
import pg from 'pg';
import { tempProject } from '../compiler/support.js';
import { type Backend, freshSchema, sqliteFileBackend } from '../support/backends.js';
import { runMfx, servingUrl, startMfx } from '../support/cli.js';
import { request } from '../support/server.js';
import { eachBackend, onlyOn, postgres } from '../support/suite.js';

const header = `import type { Model } from '@mfx/runtime';\n\n/** @mfx versioned */\nexport interface Post extends Model {\n`;
/** v1: the first release. */
const V1 = `${header}  /** @mfx required, filterable, searchable, index */\n  title: string;\n  /** @mfx filterable */\n  views: number;\n}\n`;
/** v2: title renamed to headline, a nullable column added. */
const V2 = `${header}  /** @mfx required, filterable, searchable, index, renamed_from:title */\n  headline: string;\n  /** @mfx filterable */\n  views: number;\n  summary: string | null;\n}\n`;
/** v3: v2, and views becomes an Int: a type change the migration leaves to a person. */
const V3 = V2.replace('/** @mfx filterable */\n  views', '/** @mfx filterable, int */\n  views');

const project = tempProject({ 'v1.ts': V1, 'v2.ts': V2, 'v3.ts': V3 });
const manifests = { v1: project.path('v1'), v2: project.path('v2'), v3: project.path('v3') };
before(() => {
  for (const [name, out] of Object.entries(manifests)) {
    const built = build({ entries: [project.path(`${name}.ts`)], outDir: out });
    assert.ok(built.ok, built.diagnostics.map((d) => d.message).join('\n'));
  }
});
after(() => project.remove());

/** A database of the test's own: its URL, SQL on it, a dump of its schema and rows, and removal. */
interface TestDb {
  url: string;
  sql(query: string): Promise<Record<string, unknown>[]>;
  dump(): Promise<string>;
  drop(): Promise<void>;
}

async function freshDb(backend: Backend): Promise<TestDb> {
  if (backend.name === 'postgres') {
    const { url, schema, drop } = await freshSchema();
    const sql = async (query: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(query)).rows;
      } finally {
        await client.end();
      }
    };
    const dump = async () => {
      const s = `'${schema}'`;
      const parts = [
        await sql(`SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = ${s} ORDER BY 1, ordinal_position`),
        await sql(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = ${s} ORDER BY 1`),
        await sql(`SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = ${s}::regnamespace ORDER BY 1`),
      ];
      for (const { table_name } of await sql(`SELECT table_name FROM information_schema.tables WHERE table_schema = ${s} ORDER BY 1`)) {
        parts.push(await sql(`SELECT * FROM "${String(table_name)}" ORDER BY 1`));
      }
      return JSON.stringify(parts);
    };
    return { url, sql, dump, drop };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mfx-migrate-cli-'));
  const path = join(dir, 'app.db');
  const open = () => new Database(path);
  const sql = async (query: string) => {
    const db = open();
    try {
      const statement = db.prepare(query);
      return statement.reader ? (statement.all() as Record<string, unknown>[]) : (statement.run(), []);
    } finally {
      db.close();
    }
  };
  const dump = async () => {
    if (!existsSync(path)) return 'no database file';
    const db = new Database(path, { readonly: true });
    try {
      const schema = db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name`).all() as { type: string; name: string }[];
      const rows = schema.filter((o) => o.type === 'table' && !o.name.includes('_fts')).map((o) => db.prepare(`SELECT * FROM "${o.name}" ORDER BY 1`).all());
      return JSON.stringify([schema, rows]);
    } finally {
      db.close();
    }
  };
  return { url: `sqlite:${path}`, sql, dump, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

const pgTypes = (backend: Backend) => (backend.name === 'postgres' ? { ts: 'timestamptz', real: 'double precision' } : { ts: 'TEXT', real: 'REAL' });

/** What a plan that renames title to headline prints on each database: the statements, then the drift. */
function renamePlan(backend: Backend): string[] {
  if (backend.name === 'postgres') {
    const move = (column: string) =>
      `UPDATE "post_history" SET "${column}" = ((("${column}")::jsonb - 'title') || jsonb_build_object('headline', ("${column}")::jsonb -> 'title'))::text WHERE jsonb_exists(("${column}")::jsonb, 'title') AND NOT jsonb_exists(("${column}")::jsonb, 'headline');`;
    return [
      'ALTER TABLE "posts" RENAME COLUMN "title" TO "headline";',
      'ALTER INDEX "idx_posts_title" RENAME TO "idx_posts_headline";',
      move('diff'),
      move('snapshot'),
      'ALTER TABLE "posts" ADD COLUMN "summary" text;',
    ];
  }
  const move = (column: string) =>
    `UPDATE "post_history" SET "${column}" = json_set(json_remove("${column}", '$."title"'), '$."headline"', "${column}" -> '$."title"') WHERE json_valid("${column}") AND json_type("${column}", '$."title"') IS NOT NULL AND json_type("${column}", '$."headline"') IS NULL;`;
  const fts = (column: string) => [
    `CREATE VIRTUAL TABLE IF NOT EXISTS "posts_fts" USING fts5("${column}", content='posts', content_rowid='rowid');`,
    `CREATE TRIGGER IF NOT EXISTS "posts_fts_ai" AFTER INSERT ON "posts" BEGIN INSERT INTO "posts_fts" (rowid, "${column}") VALUES (new.rowid, new."${column}"); END;`,
    `CREATE TRIGGER IF NOT EXISTS "posts_fts_ad" AFTER DELETE ON "posts" BEGIN INSERT INTO "posts_fts" ("posts_fts", rowid, "${column}") VALUES ('delete', old.rowid, old."${column}"); END;`,
    `CREATE TRIGGER IF NOT EXISTS "posts_fts_au" AFTER UPDATE ON "posts" BEGIN INSERT INTO "posts_fts" ("posts_fts", rowid, "${column}") VALUES ('delete', old.rowid, old."${column}"); INSERT INTO "posts_fts" (rowid, "${column}") VALUES (new.rowid, new."${column}"); END;`,
  ];
  return [
    'DROP TRIGGER IF EXISTS "posts_fts_ai";',
    'DROP TRIGGER IF EXISTS "posts_fts_ad";',
    'DROP TRIGGER IF EXISTS "posts_fts_au";',
    'DROP TABLE "posts_fts";',
    'ALTER TABLE "posts" RENAME COLUMN "title" TO "headline";',
    'DROP INDEX "idx_posts_title";',
    'CREATE INDEX IF NOT EXISTS "idx_posts_headline" ON "posts" ("headline");',
    move('diff'),
    move('snapshot'),
    'ALTER TABLE "posts" ADD COLUMN "summary" TEXT;',
    ...fts('headline'),
    `INSERT INTO "posts_fts" ("posts_fts") VALUES ('rebuild');`,
  ];
}

/** The drift of v3's views over a table v1 created: the finding, and the SQL it says to run. */
function viewsDrift(backend: Backend): { text: string; fix: string[] } {
  const fix =
    backend.name === 'postgres'
      ? ['ALTER TABLE "posts" ALTER COLUMN "views" TYPE integer USING "views"::integer']
      : [
          'ALTER TABLE "posts" ADD COLUMN "views__mfx_new" INTEGER NOT NULL DEFAULT 0',
          'UPDATE "posts" SET "views__mfx_new" = COALESCE(CAST("views" AS INTEGER), 0)',
          'ALTER TABLE "posts" DROP COLUMN "views"',
          'ALTER TABLE "posts" RENAME COLUMN "views__mfx_new" TO "views"',
        ];
  const note =
    backend.name === 'postgres'
      ? ''
      : ' (SQLite refuses to drop a column an index uses: drop that index first, and the next migration creates it again; a UNIQUE or foreign-key column needs the table rebuilt, as https://www.sqlite.org/lang_altertable.html#otheralter shows)';
  const real = pgTypes(backend).real.toLowerCase();
  return {
    text: `posts.views is ${real} in the database but model Post declares integer, so requests that read or write it fail or return other values; migration never changes a column's type; to convert it, run: ${fix.join('; ')}${note}`,
    fix,
  };
}

/** A post and a history entry of it, written with SQL where the API's path is not what a test is about. */
async function seedWithSql(db: TestDb): Promise<void> {
  const at = "'2020-01-01T00:00:00.000Z'";
  await db.sql(`INSERT INTO posts (id, title, views, created_at, updated_at) VALUES ('p1', 'Hello', 3, ${at}, ${at})`);
  await db.sql(
    `INSERT INTO post_history (id, record_id, version, operation, timestamp, diff, snapshot) VALUES ('h1', 'p1', 1, 'create', ${at}, '{"title":{"old":null,"new":"Hello"}}', '{"id":"p1","title":"Hello"}')`,
  );
}

/** A post and its history as v1 wrote them, through v1's API. */
async function seedThroughV1(db: TestDb): Promise<string> {
  const server = startMfx(['serve', '--manifest', manifests.v1, '--db', db.url, '--port', '0']);
  try {
    const url = await servingUrl(server);
    const created = await request(`${url}/posts`, 'POST', { body: { title: 'Hello world', views: 3 } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    const patched = await request(`${url}/posts/${id}`, 'PATCH', { body: { title: 'Hello again' } });
    assert.equal(patched.status, 200, patched.text);
    return id;
  } finally {
    await server.stop();
  }
}

eachBackend(
  'mfx migrate --plan',
  (backend) => {
    it('prints the SQL it would run and every drift, twice alike, and changes nothing', async () => {
      const db = await freshDb(backend);
      try {
        assert.equal((await runMfx(['migrate', '--manifest', manifests.v1, '--db', db.url])).code, 0);
        await seedWithSql(db);
        const before = await db.dump();
        const first = await runMfx(['migrate', '--manifest', manifests.v3, '--db', db.url, '--plan']);
        const statements = renamePlan(backend);
        assert.equal(first.code, 0, first.stderr);
        assert.equal(
          first.stdout,
          [
            `-- the migration would run ${statements.length} statements in one transaction (nothing was run):`,
            ...statements,
            `-- drift (breaks requests): ${viewsDrift(backend).text}`,
            '',
          ].join('\n'),
        );
        assert.equal(first.stderr, '');
        const second = await runMfx(['migrate', '--manifest', manifests.v3, '--db', db.url, '--plan']);
        assert.deepEqual(second, first, 'the same plan, printed twice');
        assert.equal(await db.dump(), before, 'schema and rows unchanged');
      } finally {
        await db.drop();
      }
    });

    it('on an up-to-date schema says so and runs nothing', async () => {
      const db = await freshDb(backend);
      try {
        assert.equal((await runMfx(['migrate', '--manifest', manifests.v2, '--db', db.url])).code, 0);
        const plan = await runMfx(['migrate', '--manifest', manifests.v2, '--db', db.url, '--plan']);
        assert.deepEqual(plan, { code: 0, signal: null, stdout: '-- the schema is up to date: the migration would run nothing\n', stderr: '' });
      } finally {
        await db.drop();
      }
    });

    it('does not create a SQLite file that does not exist', onlyOn(backend, 'sqlite-file', 'only SQLite keeps a database in a file the plan could create'), async () => {
      const db = await freshDb(backend);
      try {
        const plan = await runMfx(['migrate', '--manifest', manifests.v1, '--db', db.url, '--plan']);
        assert.equal(plan.code, 0, plan.stderr);
        const lines = plan.stdout.split('\n');
        assert.equal(lines[0], `-- ${db.url} does not exist yet: the plan is for an empty database`);
        assert.equal(lines[1], '-- the migration would run 8 statements in one transaction (nothing was run):');
        assert.equal(lines[2], 'CREATE TABLE IF NOT EXISTS "posts" (');
        assert.equal(await db.dump(), 'no database file');
      } finally {
        await db.drop();
      }
    });
  },
  [sqliteFileBackend, postgres],
);

eachBackend(
  'renamed_from',
  (backend) => {
    it('renames the column with its index, search and history, keeps the values, runs the plan, and is idempotent', async () => {
      const db = await freshDb(backend);
      try {
        assert.equal((await runMfx(['migrate', '--manifest', manifests.v1, '--db', db.url])).code, 0);
        const id = await seedThroughV1(db);
        const migrated = await runMfx(['migrate', '--manifest', manifests.v2, '--db', db.url]);
        assert.equal(migrated.code, 0, migrated.stderr);
        assert.equal(migrated.stdout, `renamed column posts.title to headline\nadded column posts.summary\nran ${renamePlan(backend).length} statements\n`);

        const server = startMfx(['serve', '--manifest', manifests.v2, '--db', db.url, '--port', '0']);
        try {
          const url = await servingUrl(server);
          const read = await request(`${url}/posts/${id}`, 'GET');
          assert.equal(read.status, 200, read.text);
          assert.equal(read.body.data.headline, 'Hello again');
          assert.equal(read.body.data.title, undefined);
          const found = await request(`${url}/posts?q=again`, 'GET');
          assert.deepEqual(found.body.data.map((p: { id: string }) => p.id), [id], 'the search index follows the column');
          const history = await request(`${url}/posts/${id}/history`, 'GET');
          assert.equal(history.status, 200, history.text);
          const entries = history.body.data as { version: number; diff: Record<string, unknown>; snapshot: Record<string, unknown> }[];
          const byVersion = Object.fromEntries(entries.map((e) => [e.version, e]));
          assert.deepEqual(byVersion[1].diff.headline, { old: null, new: 'Hello world' });
          assert.deepEqual(byVersion[2].diff.headline, { old: 'Hello world', new: 'Hello again' });
          assert.equal(byVersion[2].snapshot.headline, 'Hello again');
          assert.ok(entries.every((e) => !('title' in e.diff) && !('title' in e.snapshot)), 'no entry keeps the old name');
          const renamed = await request(`${url}/posts?filter=headline:eq:Hello%20again`, 'GET');
          assert.equal(renamed.body.meta.total, 1, 'the renamed index serves the filter');
        } finally {
          await server.stop();
        }
        assert.deepEqual(await runMfx(['migrate', '--manifest', manifests.v2, '--db', db.url]), { code: 0, signal: null, stdout: 'schema is up to date\n', stderr: '' });
      } finally {
        await db.drop();
      }
    });

    it('leaves both columns alone when both exist, and says how to finish by hand', async () => {
      const db = await freshDb(backend);
      try {
        assert.equal((await runMfx(['migrate', '--manifest', manifests.v1, '--db', db.url])).code, 0);
        await db.sql(`ALTER TABLE posts ADD COLUMN headline TEXT NOT NULL DEFAULT ''`);
        const before = await db.dump();
        const plan = await runMfx(['migrate', '--manifest', manifests.v2, '--db', db.url, '--plan']);
        assert.equal(plan.code, 0, plan.stderr);
        const lines = plan.stdout.split('\n');
        assert.ok(lines.includes(`-- drift: posts.headline is declared renamed_from:title but both columns exist, so nothing was renamed and posts.title keeps its values; move what you need from title to headline (UPDATE "posts" SET "headline" = "title" copies every row), then drop the old column: ALTER TABLE "posts" DROP COLUMN "title"`), plan.stdout);
        assert.ok(lines.includes(`-- drift: posts.title exists in the database but model Post does not declare it; it is kept (migration never drops columns); drop it once its data is no longer needed: ALTER TABLE "posts" DROP COLUMN "title"`), plan.stdout);
        assert.ok(!plan.stdout.includes('RENAME COLUMN'), plan.stdout);
        assert.equal(await db.dump(), before);
      } finally {
        await db.drop();
      }
    });
  },
  [sqliteFileBackend, postgres],
);

eachBackend(
  'mfx migrate --strict',
  (backend) => {
    it('refuses a column whose type differs, names the SQL that fixes it, changes nothing; the SQL fixes it', async () => {
      const db = await freshDb(backend);
      try {
        assert.equal((await runMfx(['migrate', '--manifest', manifests.v1, '--db', db.url])).code, 0);
        await seedWithSql(db);
        const before = await db.dump();
        const drift = viewsDrift(backend);
        const refused = await runMfx(['migrate', '--manifest', manifests.v3, '--db', db.url, '--strict']);
        assert.deepEqual(refused, {
          code: 1,
          signal: null,
          stdout: '',
          stderr: `mfx migrate --strict: refused, nothing was changed: the database differs from the models in one way that would break requests:\n  - ${drift.text}\n`,
        });
        assert.equal(await db.dump(), before, 'not even the rename ran');
        const planned = await runMfx(['migrate', '--manifest', manifests.v3, '--db', db.url, '--plan', '--strict']);
        assert.equal(planned.code, 1, 'a plan under --strict fails the same way, for CI');
        assert.equal(planned.stderr, refused.stderr);

        // The fix the message gives, run by hand, then the strict migration goes through.
        for (const statement of drift.fix) await db.sql(statement);
        const fixed = await runMfx(['migrate', '--manifest', manifests.v3, '--db', db.url, '--strict']);
        assert.equal(fixed.code, 0, fixed.stderr);
        assert.equal(fixed.stdout, `renamed column posts.title to headline\nadded column posts.summary\nran ${renamePlan(backend).length} statements\n`);
      } finally {
        await db.drop();
      }
    });

    it('refuses a NOT NULL column without a default that no field writes; without --strict it is a warning and inserts fail', async () => {
      const db = await freshDb(backend);
      const { ts, real } = pgTypes(backend);
      try {
        // A table left by an older release: a required column the model has since dropped.
        await db.sql(`CREATE TABLE posts (id TEXT PRIMARY KEY, headline TEXT NOT NULL DEFAULT '', views ${real} NOT NULL DEFAULT 0, summary TEXT, created_at ${ts} NOT NULL, updated_at ${ts} NOT NULL, legacy TEXT NOT NULL)`);
        const before = await db.dump();
        const finding = `posts.legacy is NOT NULL without a default in the database but model Post does not declare it, so every insert into posts fails; migration never drops columns; if a field replaced it, add renamed_from:legacy to that field; otherwise drop it once its data is no longer needed: ALTER TABLE "posts" DROP COLUMN "legacy"`;
        const refused = await runMfx(['migrate', '--manifest', manifests.v2, '--db', db.url, '--strict']);
        assert.deepEqual(refused, {
          code: 1,
          signal: null,
          stdout: '',
          stderr: `mfx migrate --strict: refused, nothing was changed: the database differs from the models in one way that would break requests:\n  - ${finding}\n`,
        });
        assert.equal(await db.dump(), before, 'the history table was not created either');

        const warned = await runMfx(['migrate', '--manifest', manifests.v2, '--db', db.url]);
        assert.equal(warned.code, 0, warned.stderr);
        assert.match(warned.stdout, /^created table post_history\n/);
        assert.ok(warned.stdout.includes(`\ndrift: ${finding}\n`), warned.stdout);
        const server = startMfx(['serve', '--manifest', manifests.v2, '--db', db.url, '--port', '0']);
        try {
          const url = await servingUrl(server);
          const insert = await request(`${url}/posts`, 'POST', { body: { headline: 'x', views: 1 } });
          assert.equal(insert.status, 409, insert.text);
          assert.equal(insert.body.error.code, 'CONFLICT');
          assert.equal(insert.body.error.message, 'the write violates a constraint');
          assert.equal((await request(`${url}/posts`, 'GET')).body.meta.total, 0, 'nothing was written');
        } finally {
          await server.stop();
        }
      } finally {
        await db.drop();
      }
    });

    it('lets drift that breaks no request through, as a warning', async () => {
      const db = await freshDb(backend);
      try {
        assert.equal((await runMfx(['migrate', '--manifest', manifests.v2, '--db', db.url])).code, 0);
        await db.sql('ALTER TABLE posts ADD COLUMN note TEXT');
        assert.deepEqual(await runMfx(['migrate', '--manifest', manifests.v2, '--db', db.url, '--strict']), {
          code: 0,
          signal: null,
          stdout: `drift: posts.note exists in the database but model Post does not declare it; it is kept (migration never drops columns); drop it once its data is no longer needed: ALTER TABLE "posts" DROP COLUMN "note"\nschema is up to date\n`,
          stderr: '',
        });
      } finally {
        await db.drop();
      }
    });
  },
  [sqliteFileBackend, postgres],
);

eachBackend(
  'mfx serve --strict-migrations',
  (backend) => {
    it('does not start on drift that breaks requests (flag or STRICT_MIGRATIONS) and changes nothing; without it, starts and warns', async () => {
      const db = await freshDb(backend);
      try {
        assert.equal((await runMfx(['migrate', '--manifest', manifests.v1, '--db', db.url])).code, 0);
        await seedWithSql(db);
        const before = await db.dump();
        const message = `mfx: strictMigrations: the database differs from the models in one way that would break requests, so nothing was changed:\n  - ${viewsDrift(backend).text}\n`;
        for (const [args, env] of [[['--strict-migrations'], {}], [[], { STRICT_MIGRATIONS: 'true' }]] as const) {
          const refused = await runMfx(['serve', '--manifest', manifests.v3, '--db', db.url, '--port', '0', ...args], { env });
          assert.equal(refused.code, 1);
          assert.equal(refused.stderr, message);
          assert.ok(!refused.stdout.includes('mfx serving'), refused.stdout);
          assert.equal(await db.dump(), before, 'nothing migrated');
        }
        const lenient = startMfx(['serve', '--manifest', manifests.v3, '--db', db.url, '--port', '0']);
        try {
          await servingUrl(lenient);
          const warning = await lenient.logLine({ migration: 'drift' });
          assert.equal(warning.msg, viewsDrift(backend).text);
        } finally {
          await lenient.stop();
        }
      } finally {
        await db.drop();
      }
    });
  },
  [sqliteFileBackend, postgres],
);
