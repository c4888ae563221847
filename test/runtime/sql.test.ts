// The dialect seam: exact SQL per dialect for one small model, its DDL operations and query writers, and raw-SQL rebinding.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldManifest } from '@mfx/runtime';
import { buildSqlTemplates, type ColumnSpec, type ModelShape, postgres, type SqlDialect, sqlite } from '@mfx/runtime/sql';
import { rebindQuestionMarks } from '../../runtime/src/db/rebind.js';
import { SqlBuilder } from '../../runtime/src/sql/builder.js';

const at = { file: 'models.ts', line: 1, col: 1 };
const flags = { required: false, readonly: false, immutable: false, writeonly: false, hidden: false, filterable: false, sortable: false, searchable: false, unique: false, index: false };
const field = (f: Partial<FieldManifest> & Pick<FieldManifest, 'name' | 'type'>): FieldManifest => ({
  column: f.name,
  nullable: false,
  source: at,
  ...flags,
  ...f,
});

const note: ModelShape = {
  name: 'Note',
  table: 'notes',
  fields: [
    field({ name: 'id', type: 'string', base: 'id', readonly: true }),
    field({ name: 'title', type: 'string', unique: true }),
    field({ name: 'pinned', type: 'boolean', default: true }),
    field({ name: 'tags', type: 'json_array', items: 'string' }),
    field({ name: 'ownerId', type: 'string', nullable: true, relation: 'owner' }),
    field({ name: 'created_at', type: 'timestamp', base: 'created_at', readonly: true }),
    field({ name: 'updated_at', type: 'timestamp', base: 'updated_at', readonly: true }),
    field({ name: 'deleted_at', type: 'timestamp', base: 'deleted_at', nullable: true }),
  ],
  relations: [{ kind: 'belongsTo', key: 'owner', target: 'User', field: 'ownerId', column: 'ownerId', onDelete: 'setNull', source: at }],
  options: {
    softDelete: { field: 'deleted_at', column: 'deleted_at', type: 'timestamp' },
    versioned: null,
    singleton: false,
    headless: false,
    aggregate: false,
    export: false,
    maxExportRows: 100000,
    optimisticLock: false,
    cursorField: null,
    indices: [],
    defaultLocale: null,
    localeMode: null,
    adapter: null,
    queryLimits: {},
  },
};
const tables = new Map([
  ['Note', 'notes'],
  ['User', 'users'],
]);

describe('SQL templates', () => {
  it('builds SQLite statements with quoted identifiers and ? placeholders', () => {
    const t = buildSqlTemplates(note, tables, sqlite);
    assert.equal(
      t.createTable,
      `CREATE TABLE IF NOT EXISTS "notes" (
  "id" TEXT PRIMARY KEY,
  "title" TEXT NOT NULL DEFAULT '',
  "pinned" INTEGER NOT NULL DEFAULT 1,
  "tags" TEXT NOT NULL DEFAULT '[]',
  "ownerId" TEXT REFERENCES "users" ("id"),
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "deleted_at" TEXT
)`,
    );
    // Issue 14: on a soft-delete model a unique value binds live rows only (a partial index, not a UNIQUE column).
    assert.deepEqual(t.createIndexes, [
      'CREATE UNIQUE INDEX IF NOT EXISTS "uq_notes_title" ON "notes" ("title") WHERE "deleted_at" IS NULL',
      'CREATE INDEX IF NOT EXISTS "idx_notes_ownerId" ON "notes" ("ownerId")',
    ]);
    assert.deepEqual(t.foreignKeys, []);
    assert.equal(
      t.selectById,
      'SELECT "id", "title", "pinned", "tags", "ownerId", "created_at", "updated_at", "deleted_at" FROM "notes" WHERE "id" = ? AND "deleted_at" IS NULL',
    );
    assert.equal(t.softDeleteById, 'UPDATE "notes" SET "deleted_at" = ?, "updated_at" = ? WHERE "id" = ? AND "deleted_at" IS NULL');
    assert.equal(t.deleteById, 'DELETE FROM "notes" WHERE "id" = ?');
  });

  it('builds PostgreSQL statements with $n placeholders, jsonb and separate foreign keys', () => {
    const t = buildSqlTemplates(note, tables, postgres);
    assert.equal(
      t.createTable,
      `CREATE TABLE IF NOT EXISTS "notes" (
  "id" text PRIMARY KEY,
  "title" text NOT NULL DEFAULT '',
  "pinned" boolean NOT NULL DEFAULT TRUE,
  "tags" jsonb NOT NULL DEFAULT '[]'::jsonb,
  "ownerId" text,
  "created_at" timestamptz NOT NULL,
  "updated_at" timestamptz NOT NULL,
  "deleted_at" timestamptz
)`,
    );
    assert.equal(t.createIndexes[0], 'CREATE UNIQUE INDEX IF NOT EXISTS "uq_notes_title" ON "notes" ("title") WHERE "deleted_at" IS NULL');
    const flagged = buildSqlTemplates({ ...note, options: { ...note.options, softDelete: { field: 'is_deleted', column: 'is_deleted', type: 'boolean' } } }, tables, postgres);
    assert.equal(flagged.createIndexes[0], 'CREATE UNIQUE INDEX IF NOT EXISTS "uq_notes_title" ON "notes" ("title") WHERE "is_deleted" = FALSE');
    assert.equal(t.foreignKeys.length, 1);
    assert.match(t.foreignKeys[0], /ALTER TABLE "notes" ADD CONSTRAINT "fk_notes_ownerId" FOREIGN KEY \("ownerId"\) REFERENCES "users" \("id"\)/);
    assert.match(t.insert, /VALUES \(\$1, \$2, \$3, \$4, \$5, \$6, \$7, \$8\) RETURNING/);
    assert.equal(t.softDeleteById, 'UPDATE "notes" SET "deleted_at" = $1, "updated_at" = $2 WHERE "id" = $3 AND "deleted_at" IS NULL');
  });

  it('escapes quotes in identifiers and default literals', () => {
    const odd: ModelShape = {
      ...note,
      table: 'we"ird',
      fields: [note.fields[0], field({ name: 'say', column: 'sa"y', type: 'string', default: "it's" })],
      relations: [],
      options: { ...note.options, softDelete: null },
    };
    const t = buildSqlTemplates(odd, tables, sqlite);
    assert.match(t.createTable, /CREATE TABLE IF NOT EXISTS "we""ird"/);
    assert.match(t.createTable, /"sa""y" TEXT NOT NULL DEFAULT 'it''s'/);
  });
});

describe('DDL operations per dialect', () => {
  const named: ColumnSpec = { name: 'note', type: 'string', nullable: false, default: 'keep a UNIQUE name REFERENCES x' };
  const code: ColumnSpec = { name: 'code', type: 'string', nullable: true, unique: true };
  const owner = { name: 'fk_notes_ownerId', table: 'users', column: 'id' };

  it('adds a column with its declaration as written, whatever its default says', () => {
    for (const dialect of [sqlite, postgres]) {
      assert.deepEqual(dialect.addColumn('notes', named), {
        statements: [`ALTER TABLE "notes" ADD COLUMN "note" ${dialect.columnType('string')} NOT NULL DEFAULT 'keep a UNIQUE name REFERENCES x'`],
        warning: null,
      });
    }
  });

  it('SQLite adds a unique column, then its unique index', () => {
    assert.deepEqual(sqlite.addColumn('notes', code), {
      statements: ['ALTER TABLE "notes" ADD COLUMN "code" TEXT', 'CREATE UNIQUE INDEX IF NOT EXISTS "uq_notes_code" ON "notes" ("code")'],
      warning: null,
    });
    assert.deepEqual(postgres.addColumn('notes', code), { statements: ['ALTER TABLE "notes" ADD COLUMN "code" text UNIQUE'], warning: null });
  });

  it('SQLite keeps a reference with a null default, and drops it with a warning otherwise', () => {
    assert.deepEqual(sqlite.addColumn('notes', { name: 'ownerId', type: 'string', nullable: true, references: owner }), {
      statements: ['ALTER TABLE "notes" ADD COLUMN "ownerId" TEXT REFERENCES "users" ("id")'],
      warning: null,
    });
    assert.deepEqual(sqlite.addColumn('notes', { name: 'ownerId', type: 'string', nullable: false, default: '', references: owner }), {
      statements: [`ALTER TABLE "notes" ADD COLUMN "ownerId" TEXT NOT NULL DEFAULT ''`],
      warning:
        'notes.ownerId was added without its foreign-key constraint (SQLite cannot add one to an existing table with a non-null default); recreate the table to enforce it',
    });
  });

  it('PostgreSQL adds foreign keys apart, NOT VALID, and validates them; SQLite declares them with the column', () => {
    assert.deepEqual(postgres.addColumn('notes', { name: 'ownerId', type: 'string', nullable: true, references: owner }), {
      statements: ['ALTER TABLE "notes" ADD COLUMN "ownerId" text'],
      warning: null,
    });
    assert.deepEqual(postgres.addForeignKey('notes', 'ownerId', owner), [
      'ALTER TABLE "notes" ADD CONSTRAINT "fk_notes_ownerId" FOREIGN KEY ("ownerId") REFERENCES "users" ("id") NOT VALID',
    ]);
    assert.equal(postgres.validateForeignKey('notes', 'fk_notes_ownerId'), 'ALTER TABLE "notes" VALIDATE CONSTRAINT "fk_notes_ownerId"');
    assert.deepEqual(sqlite.addForeignKey('notes', 'ownerId', owner), []);
  });

  it('indexes take descending columns', () => {
    for (const dialect of [sqlite, postgres]) {
      assert.equal(
        dialect.createIndex('h', { name: 'uq_h', columns: ['a', { column: 'b', descending: true }], unique: true }),
        'CREATE UNIQUE INDEX IF NOT EXISTS "uq_h" ON "h" ("a", "b" DESC)',
      );
    }
  });

  it('an index may leave out rows whose column is NULL, alone or beside the live-row condition', () => {
    for (const dialect of [sqlite, postgres]) {
      assert.equal(
        dialect.createIndex('jobs', { name: 'idx_jobs_group', columns: ['group_key', 'state'], unique: false, whereNotNull: 'group_key' }),
        'CREATE INDEX IF NOT EXISTS "idx_jobs_group" ON "jobs" ("group_key", "state") WHERE "group_key" IS NOT NULL',
      );
      assert.equal(
        dialect.createIndex('notes', { name: 'ix_n', columns: ['ref'], unique: true, whereNotNull: 'ref', liveOnly: { column: 'deleted_at', type: 'timestamp' } }),
        'CREATE UNIQUE INDEX IF NOT EXISTS "ix_n" ON "notes" ("ref") WHERE "deleted_at" IS NULL AND "ref" IS NOT NULL',
      );
    }
  });
});

describe('query-language members write into the builder', () => {
  const written = (dialect: SqlDialect, write: (sql: SqlBuilder) => void) => {
    const sql = new SqlBuilder(dialect).text('"a" = ').value('first').text(' AND ');
    write(sql);
    return { sql: sql.sql, params: sql.params };
  };

  it('SQLite', () => {
    assert.deepEqual(written(sqlite, (sql) => sqlite.likeSensitive(sql, '"c"', 'a_%*')), { sql: '"a" = ? AND "c" GLOB ?', params: ['first', 'a?*[*]'] });
    assert.deepEqual(written(sqlite, (sql) => sqlite.likeInsensitive(sql, '"c"', 'a_%')), { sql: '"a" = ? AND "c" LIKE ?', params: ['first', 'a_%'] });
    assert.deepEqual(written(sqlite, (sql) => sqlite.likeInsensitiveEscaped(sql, '"c"', '%a\\_%')), { sql: `"a" = ? AND "c" LIKE ? ESCAPE '\\'`, params: ['first', '%a\\_%'] });
    assert.deepEqual(written(sqlite, (sql) => sqlite.textPosition(sql, '"p"', "','")), { sql: `"a" = ? AND instr("p", ',')`, params: ['first'] });
  });

  it('PostgreSQL numbers its placeholders after the values already written', () => {
    assert.deepEqual(written(postgres, (sql) => postgres.likeSensitive(sql, '"c"', 'a_%')), { sql: `"a" = $1 AND "c" LIKE $2 ESCAPE ''`, params: ['first', 'a_%'] });
    assert.deepEqual(written(postgres, (sql) => postgres.likeInsensitive(sql, '"c"', 'a_%')), { sql: `"a" = $1 AND "c" ILIKE $2 ESCAPE ''`, params: ['first', 'a_%'] });
    assert.deepEqual(written(postgres, (sql) => postgres.likeInsensitiveEscaped(sql, '"c"', '%a\\_%')), {
      sql: `"a" = $1 AND "c" ILIKE $2 ESCAPE '\\'`,
      params: ['first', '%a\\_%'],
    });
    assert.deepEqual(written(postgres, (sql) => postgres.textPosition(sql, '"p"', "','")), { sql: `"a" = $1 AND strpos("p", ',')`, params: ['first'] });
  });
});

describe('raw SQL rebinding', () => {
  it('numbers ? placeholders and leaves literals, identifiers and comments alone', () => {
    assert.equal(rebindQuestionMarks('SELECT * FROM t WHERE a = ? AND b = ?'), 'SELECT * FROM t WHERE a = $1 AND b = $2');
    assert.equal(rebindQuestionMarks("SELECT '?', \"col?\" FROM t WHERE a = ?"), "SELECT '?', \"col?\" FROM t WHERE a = $1");
    assert.equal(rebindQuestionMarks("SELECT 'it''s ?' WHERE x = ?"), "SELECT 'it''s ?' WHERE x = $1");
    assert.equal(rebindQuestionMarks('SELECT 1 -- why?\nWHERE a = ?'), 'SELECT 1 -- why?\nWHERE a = $1');
    assert.equal(rebindQuestionMarks('SELECT /* ? */ a FROM t WHERE b = ?'), 'SELECT /* ? */ a FROM t WHERE b = $1');
    assert.equal(rebindQuestionMarks('SELECT $$ ? $$, $tag$ ? $tag$ WHERE a = ?'), 'SELECT $$ ? $$, $tag$ ? $tag$ WHERE a = $1');
  });
});
