// Hand-written baseline: node:http + pg serving the blog's posts with the same
// SQL, pool sizes (write 3, read 6), named prepared statements, value parsing
// and envelopes mfx uses, and nothing else (no hooks, no logs, no validation
// beyond a type check).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { flags, readJson, send, serve } from './http.js';

const args = flags();
const url = args.get('db')!;

// The same value shapes as mfx: bigint and numeric as numbers, timestamps as ISO strings.
const timestamptz = pg.types.getTypeParser(1184);
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    if (oid === 1184 || oid === 1114) return (value: string) => (timestamptz(value) as Date).toISOString();
    return pg.types.getTypeParser(oid, format);
  },
};
const writePool = new pg.Pool({ connectionString: url, max: 3, types });
const readPool = new pg.Pool({ connectionString: url, max: 6, types });

const columns = ['id', 'title', 'body', 'status', 'views', 'rating', 'keywords', 'metadata', 'publishedAt', 'slug', 'userId', 'created_at', 'updated_at', 'deleted_at'];
const list = columns.map((c) => `"${c}"`).join(', ');
const selectById = { name: 'b_by_id', text: `SELECT ${list} FROM "posts" WHERE "id" = $1 AND "deleted_at" IS NULL` };
const selectPage = { name: 'b_page', text: `SELECT ${list} FROM "posts" WHERE 1 = 1 AND "deleted_at" IS NULL ORDER BY "id" LIMIT $1 OFFSET $2` };
const count = { name: 'b_count', text: `SELECT COUNT(*) AS n FROM "posts" WHERE 1 = 1 AND "deleted_at" IS NULL` };
const insert = {
  name: 'b_insert',
  text: `INSERT INTO "posts" ("id", "title", "body", "status", "views", "userId", "created_at", "updated_at") VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${list}`,
};

type Row = Record<string, unknown>;

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [path, search = ''] = (req.url ?? '').split('?');
  if (req.method === 'GET' && path.startsWith('/api/posts/')) {
    const { rows } = await readPool.query<Row>({ ...selectById, values: [decodeURIComponent(path.slice('/api/posts/'.length))] });
    if (!rows[0]) return send(res, 404, { error: { code: 'NOT_FOUND', message: 'not found' } });
    return send(res, 200, { data: rows[0] }, true);
  }
  if (req.method === 'GET' && path === '/api/posts') {
    const params = new URLSearchParams(search);
    const limit = Math.min(Number(params.get('limit') ?? 20), 200);
    const page = Number(params.get('page') ?? 1);
    const { rows } = await readPool.query<Row>({ ...selectPage, values: [limit, (page - 1) * limit] });
    const total = Number((await readPool.query<{ n: string }>(count)).rows[0].n);
    return send(res, 200, { data: rows, meta: { total, page, limit, pages: Math.ceil(total / limit) } });
  }
  if (req.method === 'POST' && path === '/api/posts') {
    const body = await readJson(req);
    if (typeof body.title !== 'string' || typeof body.userId !== 'string') {
      return send(res, 422, { error: { code: 'VALIDATION_ERROR', message: 'invalid' } });
    }
    const now = new Date().toISOString();
    const values = [randomUUID(), body.title, body.body ?? '', body.status ?? 'draft', body.views ?? 0, body.userId, now, now];
    const { rows } = await writePool.query<Row>({ ...insert, values });
    return send(res, 201, { data: rows[0] }, true);
  }
  send(res, 404, { error: { code: 'NOT_FOUND', message: 'not found' } });
}

const server = createServer((req, res) => {
  handle(req, res).catch(() => send(res, 500, { error: { code: 'DB_ERROR', message: 'database error' } }));
});

serve(server, Number(args.get('port') ?? 0), () => Promise.all([writePool.end(), readPool.end()]));
