// Hand-written baseline for the query benchmark: node:http + better-sqlite3 running the
// same SQL mfx runs for a filtered, sorted page and for a page with author and comments
// included (one statement per relation), with the same envelopes and projections.
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { flags, send, serve } from './http.js';

const args = flags();
const reader = new Database(args.get('db')!, { readonly: true });

type Row = Record<string, unknown>;
const postColumns = ['id', 'title', 'body', 'status', 'views', 'rating', 'keywords', 'metadata', 'publishedAt', 'slug', 'userId', 'created_at', 'updated_at', 'deleted_at'];
const userColumns = ['id', 'name', 'email', 'password', 'role', 'bio', 'loginCount', 'companyId', 'created_at', 'updated_at'];
const commentColumns = ['id', 'body', 'postId', 'userId', 'approved', 'created_at', 'updated_at', 'deleted_at'];
const select = (alias: string, columns: string[]) => columns.map((c) => `"${alias}"."${c}"`).join(', ');

const filtered = reader.prepare(
  `SELECT ${select('t', postColumns)} FROM "posts" "t" WHERE 1 = 1 AND "t"."deleted_at" IS NULL AND "t"."status" = ? ORDER BY "t"."views" DESC NULLS FIRST, "t"."id" ASC LIMIT ? OFFSET ?`,
);
const filteredCount = reader.prepare(`SELECT COUNT(*) AS n FROM "posts" "t" WHERE 1 = 1 AND "t"."deleted_at" IS NULL AND "t"."status" = ?`);
const page = reader.prepare(`SELECT ${select('t', postColumns)} FROM "posts" "t" WHERE 1 = 1 AND "t"."deleted_at" IS NULL ORDER BY "t"."id" ASC LIMIT ? OFFSET ?`);
const pageCount = reader.prepare(`SELECT COUNT(*) AS n FROM "posts" "t" WHERE 1 = 1 AND "t"."deleted_at" IS NULL`);
const authors = reader.prepare(`SELECT ${select('r', userColumns)} FROM "users" "r" WHERE "r"."id" IN (SELECT value FROM json_each(?)) ORDER BY "r"."id"`);
const comments = reader.prepare(
  `SELECT ${select('r', commentColumns)} FROM "comments" "r" WHERE "r"."postId" IN (SELECT value FROM json_each(?)) AND "r"."deleted_at" IS NULL ORDER BY "r"."id"`,
);

const decodePost = (row: Row): Row => ({
  ...row,
  keywords: typeof row.keywords === 'string' ? JSON.parse(row.keywords) : row.keywords,
  metadata: typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata,
});
const projectUser = ({ password: _p, loginCount: _l, ...user }: Row): Row => user;
const projectComment = (row: Row): Row => ({ ...row, approved: row.approved === 1 });

const server = createServer((req, res) => {
  const [path, search = ''] = (req.url ?? '').split('?');
  if (req.method !== 'GET' || path !== '/api/posts') return send(res, 404, { error: { code: 'NOT_FOUND', message: 'not found' } });
  const params = new URLSearchParams(search);
  const limit = Math.min(Number(params.get('limit') ?? 20), 200);
  const number = Number(params.get('page') ?? 1);
  const offset = (number - 1) * limit;
  const filter = params.get('filter');
  if (filter) {
    const status = filter.split(':')[2];
    const rows = (filtered.all(status, limit, offset) as Row[]).map(decodePost);
    const total = (filteredCount.get(status) as { n: number }).n;
    return send(res, 200, { data: rows, meta: { total, page: number, limit, pages: Math.ceil(total / limit) } });
  }
  const rows = (page.all(limit, offset) as Row[]).map(decodePost);
  const total = (pageCount.get() as { n: number }).n;
  if (params.get('include')) {
    const users = new Map((authors.all(JSON.stringify([...new Set(rows.map((r) => r.userId))])) as Row[]).map((u) => [u.id, projectUser(u)]));
    const byPost = new Map<unknown, Row[]>();
    for (const c of comments.all(JSON.stringify(rows.map((r) => r.id))) as Row[]) {
      const list = byPost.get(c.postId) ?? [];
      list.push(projectComment(c));
      byPost.set(c.postId, list);
    }
    for (const row of rows) {
      row.author = users.get(row.userId) ?? null;
      row.comments = byPost.get(row.id) ?? [];
    }
  }
  send(res, 200, { data: rows, meta: { total, page: number, limit, pages: Math.ceil(total / limit) } });
});

serve(server, Number(args.get('port') ?? 0));
