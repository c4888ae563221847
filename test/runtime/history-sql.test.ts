// The history table's DDL, exactly, per dialect.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildHistoryTemplates, historyTableName, type ModelShape, postgres, sqlite } from '@mfx/runtime/sql';

const model = (name: string, versioned: ModelShape['options']['versioned']) => ({ name, table: 'ignored', fields: [], relations: [], options: { versioned } }) as unknown as ModelShape;

describe('history table templates', () => {
  it('names the table after the model, snake_cased and not pluralised', () => {
    assert.equal(historyTableName({ name: 'Note' }), 'note_history');
    assert.equal(historyTableName({ name: 'BlogPost' }), 'blog_post_history');
    assert.equal(historyTableName({ name: 'HTTPLog' }), 'http_log_history');
  });

  it('is null for models without versioning', () => {
    assert.equal(buildHistoryTemplates(model('Note', null), sqlite), null);
  });

  it('SQLite', () => {
    assert.deepEqual(buildHistoryTemplates(model('BlogPost', { diffOnly: false, required: false }), sqlite), {
      table: 'blog_post_history',
      createTable:
        'CREATE TABLE IF NOT EXISTS "blog_post_history" (\n  "id" TEXT PRIMARY KEY,\n  "record_id" TEXT NOT NULL,\n  "version" INTEGER NOT NULL,\n  "operation" TEXT NOT NULL,\n  "actor_id" TEXT,\n  "timestamp" TEXT NOT NULL,\n  "request_id" TEXT,\n  "diff" TEXT NOT NULL,\n  "snapshot" TEXT\n)',
      createIndexes: ['CREATE UNIQUE INDEX IF NOT EXISTS "uq_blog_post_history_record_version" ON "blog_post_history" ("record_id", "version" DESC)'],
    });
  });

  it('PostgreSQL', () => {
    assert.deepEqual(buildHistoryTemplates(model('BlogPost', { diffOnly: true, required: true }), postgres), {
      table: 'blog_post_history',
      createTable:
        'CREATE TABLE IF NOT EXISTS "blog_post_history" (\n  "id" text PRIMARY KEY,\n  "record_id" text NOT NULL,\n  "version" integer NOT NULL,\n  "operation" text NOT NULL,\n  "actor_id" text,\n  "timestamp" timestamptz NOT NULL,\n  "request_id" text,\n  "diff" text NOT NULL,\n  "snapshot" text\n)',
      createIndexes: ['CREATE UNIQUE INDEX IF NOT EXISTS "uq_blog_post_history_record_version" ON "blog_post_history" ("record_id", "version" DESC)'],
    });
  });
});
