// The query language's SQL per dialect: exact text and bound values for representative
// clauses, so a change in a dialect member shows up as a readable diff.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Registry } from '@mfx/runtime';
import { postgres, type SqlDialect, sqlite } from '@mfx/runtime/sql';
import { parseListQuery } from '../../runtime/src/query/parse.js';
import type { ModelMeta } from '../../runtime/src/registry/model-meta.js';
import { SqlBuilder } from '../../runtime/src/sql/builder.js';
import { writeWhere } from '../../runtime/src/store/list-sql.js';
import { loadFixture } from '../support/fixtures.js';

let docs: ModelMeta;
let posts: ModelMeta;

before(async () => {
  const registry = new Registry();
  registry.register(await loadFixture('query'));
  registry.seal('test');
  docs = registry.get('Doc')!;
  const blog = new Registry();
  blog.register(await loadFixture('blog'));
  blog.seal('test');
  posts = blog.get('Post')!;
});

function where(dialect: SqlDialect, model: ModelMeta, query: string): { sql: string; params: unknown[] } {
  const sql = new SqlBuilder(dialect);
  writeWhere(sql, model, { query: parseListQuery(model, new URLSearchParams(query)), scope: [], keyset: null });
  return { sql: sql.sql.replace(' WHERE 1 = 1 AND "t"."deleted_at" IS NULL AND ', ''), params: sql.params };
}

describe('query SQL per dialect', () => {
  it('comparison, null-aware neq, lists and ranges are the same SQL on both', () => {
    for (const dialect of [sqlite, postgres]) {
      const p = (n: number) => dialect.param(n);
      assert.deepEqual(where(dialect, docs, 'filter=size:gt:2'), { sql: `"t"."size" > ${p(1)}`, params: [2] });
      assert.deepEqual(where(dialect, docs, 'filter=code:neq:x'), { sql: `("t"."code" <> ${p(1)} OR "t"."code" IS NULL)`, params: ['x'] });
      assert.deepEqual(where(dialect, docs, 'filter=size:in:1,2'), { sql: `"t"."size" IN (${p(1)}, ${p(2)})`, params: [1, 2] });
      assert.deepEqual(where(dialect, docs, 'filter=size:between:1,2'), { sql: `"t"."size" BETWEEN ${p(1)} AND ${p(2)}`, params: [1, 2] });
      assert.deepEqual(where(dialect, docs, 'filter[0]=size:eq:1&filter[0]=size:eq:2'), { sql: `("t"."size" = ${p(1)} OR "t"."size" = ${p(2)})`, params: [1, 2] });
    }
  });

  it('pattern operators differ only in the dialect members', () => {
    assert.deepEqual(where(sqlite, docs, 'filter=code:like:a_%25'), { sql: '"t"."code" GLOB ?', params: ['a?*'] });
    assert.deepEqual(where(postgres, docs, 'filter=code:like:a_%25'), { sql: `"t"."code" LIKE $1 ESCAPE ''`, params: ['a_%'] });
    assert.deepEqual(where(sqlite, docs, 'filter=code:contains:5%25_off'), { sql: `"t"."code" LIKE ? ESCAPE '\\'`, params: ['%5\\%\\_off%'] });
    assert.deepEqual(where(postgres, docs, 'filter=code:contains:5%25_off'), { sql: `"t"."code" ILIKE $1 ESCAPE '\\'`, params: ['%5\\%\\_off%'] });
  });

  it('JSON membership: json_each on SQLite, jsonb operators on PostgreSQL', () => {
    assert.deepEqual(where(sqlite, docs, 'filter=labels:has:red'), {
      sql: 'EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid("t"."labels") THEN "t"."labels" END) WHERE json_each.value = ?)',
      params: ['red'],
    });
    assert.deepEqual(where(postgres, docs, 'filter=labels:has:red'), { sql: '"t"."labels" @> $1::jsonb', params: ['["red"]'] });
    assert.deepEqual(where(postgres, docs, 'filter=attrs:has:a=b'), { sql: '"t"."attrs" ->> $1 = $2', params: ['a', 'b'] });
  });

  it('nested filters are EXISTS subqueries with the related model\'s live condition', () => {
    assert.deepEqual(where(sqlite, posts, 'filter=comments.approved:eq:true'), {
      sql: 'EXISTS (SELECT 1 FROM "comments" "r1" WHERE "r1"."postId" = "t"."id" AND "r1"."deleted_at" IS NULL AND "r1"."approved" = ?)',
      params: [true],
    });
    assert.deepEqual(where(postgres, posts, 'filter=tags.name:eq:x'), {
      sql: 'EXISTS (SELECT 1 FROM "post_tags" "j2" JOIN "tags" "r1" ON "r1"."id" = "j2"."tagId" WHERE "j2"."postId" = "t"."id" AND "r1"."name" = $1)',
      params: ['x'],
    });
  });

  it('full-text search: FTS5 MATCH with quoted words, or a tsvector query', () => {
    assert.deepEqual(where(sqlite, docs, 'q=say%20"hi"'), {
      sql: '"t".rowid IN (SELECT rowid FROM "docs_fts" WHERE "docs_fts" MATCH ?)',
      params: ['"say" "hi"'],
    });
    assert.deepEqual(where(postgres, docs, 'q=say%20"hi"'), {
      sql: `to_tsvector('simple', coalesce("t"."title", '') || ' ' || coalesce("t"."summary", '')) @@ plainto_tsquery('simple', $1)`,
      params: ['say hi'],
    });
  });
});
