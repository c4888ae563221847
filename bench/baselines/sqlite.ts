// Hand-written baseline: node:http + better-sqlite3 serving the blog's posts with the
// same SQL, envelopes and row decoding mfx uses, and nothing else (no hooks, no logs).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { flags, readJson, send, serve } from './http.js';

const args = flags();
const db = new Database(args.get('db')!);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
const reader = new Database(args.get('db')!, { readonly: true });

const columns = ['id', 'title', 'body', 'status', 'views', 'rating', 'keywords', 'metadata', 'publishedAt', 'slug', 'userId', 'created_at', 'updated_at', 'deleted_at'];
const list = columns.map((c) => `"${c}"`).join(', ');
const selectById = reader.prepare(`SELECT ${list} FROM "posts" WHERE "id" = ? AND "deleted_at" IS NULL`);
const selectPage = reader.prepare(`SELECT ${list} FROM "posts" WHERE 1 = 1 AND "deleted_at" IS NULL ORDER BY "id" LIMIT ? OFFSET ?`);
const count = reader.prepare(`SELECT COUNT(*) AS n FROM "posts" WHERE 1 = 1 AND "deleted_at" IS NULL`);
const insert = db.prepare(
  `INSERT INTO "posts" ("id", "title", "body", "status", "views", "userId", "created_at", "updated_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${list}`,
);

type Row = Record<string, unknown>;
const decode = (row: Row): Row => ({
  ...row,
  keywords: typeof row.keywords === 'string' ? JSON.parse(row.keywords) : row.keywords,
  metadata: typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata,
});

const server = createServer(async (req, res) => {
  const [path, search = ''] = (req.url ?? '').split('?');
  if (req.method === 'GET' && path.startsWith('/api/posts/')) {
    const row = selectById.get(decodeURIComponent(path.slice('/api/posts/'.length))) as Row | undefined;
    if (!row) return send(res, 404, { error: { code: 'NOT_FOUND', message: 'not found' } });
    return send(res, 200, { data: decode(row) }, true);
  }
  if (req.method === 'GET' && path === '/api/posts') {
    const params = new URLSearchParams(search);
    const limit = Math.min(Number(params.get('limit') ?? 20), 200);
    const page = Number(params.get('page') ?? 1);
    const rows = selectPage.all(limit, (page - 1) * limit) as Row[];
    const total = (count.get() as { n: number }).n;
    return send(res, 200, { data: rows.map(decode), meta: { total, page, limit, pages: Math.ceil(total / limit) } });
  }
  if (req.method === 'POST' && path === '/api/posts') {
    const body = await readJson(req);
    if (typeof body.title !== 'string' || typeof body.userId !== 'string') {
      return send(res, 422, { error: { code: 'VALIDATION_ERROR', message: 'invalid' } });
    }
    const now = new Date().toISOString();
    const row = insert.get(randomUUID(), body.title, body.body ?? '', body.status ?? 'draft', body.views ?? 0, body.userId, now, now) as Row;
    return send(res, 201, { data: decode(row) }, true);
  }
  send(res, 404, { error: { code: 'NOT_FOUND', message: 'not found' } });
});

serve(server, Number(args.get('port') ?? 0));
