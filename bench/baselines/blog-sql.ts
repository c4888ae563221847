// The statements mfx runs for the blog's posts (read, list with filter, sort and
// count, include=author,comments, create), copied from what mfx sends to each
// driver, so that every baseline runs the same SQL. Only the placeholders, the
// id-list test and the form of a sorted page (its ids first on SQLite, the
// dialect's latePageRows) differ between SQLite and PostgreSQL, as they do in mfx.

export type Dialect = 'sqlite' | 'postgres';

export const postColumns = ['id', 'title', 'body', 'status', 'views', 'rating', 'keywords', 'metadata', 'publishedAt', 'slug', 'userId', 'created_at', 'updated_at', 'deleted_at'];
const userColumns = ['id', 'name', 'email', 'password', 'role', 'bio', 'loginCount', 'companyId', 'created_at', 'updated_at'];
const commentColumns = ['id', 'body', 'postId', 'userId', 'approved', 'created_at', 'updated_at', 'deleted_at'];

/** mfx's defaults for `include` (query_limits): related records per parent and per response. */
export const MAX_INCLUDE_PER_PARENT = 100;
export const MAX_INCLUDE_ROWS = 5000;

const plain = (columns: string[]) => columns.map((c) => `"${c}"`).join(', ');
const aliased = (alias: string, columns: string[]) => columns.map((c) => `"${alias}"."${c}"`).join(', ');

export interface BlogStatements {
  byId: string;
  page: string;
  pageCount: string;
  /** `filter=status:eq:X&sort=views:desc`. */
  filtered: string;
  filteredCount: string;
  authors: string;
  comments: string;
  insert: string;
}

/** The statements in one dialect's placeholders. */
export function blogStatements(dialect: Dialect): BlogStatements {
  let n = 0;
  const p = () => (dialect === 'sqlite' ? '?' : `$${++n}`);
  // Each statement numbers its PostgreSQL placeholders from $1.
  const statement = (build: () => string) => {
    n = 0;
    return build();
  };
  const inList = () => (dialect === 'sqlite' ? `IN (SELECT value FROM json_each(${p()}))` : `= ANY(${p()}::text[])`);
  const live = `1 = 1 AND "t"."deleted_at" IS NULL`;
  return {
    byId: statement(() => `SELECT ${plain(postColumns)} FROM "posts" WHERE "id" = ${p()} AND "deleted_at" IS NULL`),
    page: statement(() => `SELECT ${aliased('t', postColumns)} FROM "posts" "t" WHERE ${live} ORDER BY "t"."id" ASC LIMIT ${p()} OFFSET ${p()}`),
    pageCount: statement(() => `SELECT COUNT(*) AS n FROM "posts" "t" WHERE ${live}`),
    filtered: statement(() => {
      const order = `ORDER BY "t"."views" DESC NULLS FIRST, "t"."id" ASC`;
      const page = `FROM "posts" "t" WHERE ${live} AND "t"."status" = ${p()} ${order} LIMIT ${p()} OFFSET ${p()}`;
      return dialect === 'sqlite' ? `SELECT ${aliased('t', postColumns)} FROM "posts" "t" WHERE "t"."id" IN (SELECT "t"."id" ${page}) ${order}` : `SELECT ${aliased('t', postColumns)} ${page}`;
    }),
    filteredCount: statement(() => `SELECT COUNT(*) AS n FROM "posts" "t" WHERE ${live} AND "t"."status" = ${p()}`),
    authors: statement(() => `SELECT ${aliased('r', userColumns)}, "r"."id" AS "__mfx_owner" FROM "users" "r" WHERE "r"."id" ${inList()} ORDER BY "r"."id"`),
    comments: statement(
      () =>
        `SELECT ${aliased('w', commentColumns)}, "w"."__mfx_owner", "w"."__mfx_count" FROM (SELECT ${aliased('r', commentColumns)}, "r"."postId" AS "__mfx_owner", ` +
        `ROW_NUMBER() OVER (PARTITION BY "r"."postId" ORDER BY "r"."id") AS "__mfx_n", COUNT(*) OVER (PARTITION BY "r"."postId") AS "__mfx_count" ` +
        `FROM "comments" "r" WHERE "r"."postId" ${inList()} AND "r"."deleted_at" IS NULL) "w" WHERE "w"."__mfx_n" <= ${p()} ORDER BY "w"."id" LIMIT ${p()}`,
    ),
    insert: statement(() => `INSERT INTO "posts" (${plain(postColumns)}) VALUES (${postColumns.map(() => p()).join(', ')}) RETURNING ${plain(postColumns)}`),
  };
}
