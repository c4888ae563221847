// What every hand-written peer does for the blog's posts, whatever its HTTP layer
// (node:http, Fastify) and database: the same statements (blog-sql.ts), row
// decoding, include assembly, create values and JSON envelope mfx answers with.
// SQLite answers synchronously and PostgreSQL with promises; `then` keeps the
// SQLite path free of promises, as a hand-written SQLite server would be.
import { createHash, randomUUID } from 'node:crypto';
import { MAX_INCLUDE_PER_PARENT, MAX_INCLUDE_ROWS } from './blog-sql.js';

export type Row = Record<string, unknown>;
type Maybe<T> = T | Promise<T>;

/** One database behind the routes: the named statement of blog-sql.ts run with its values. */
export interface BlogDb {
  all(statement: 'page' | 'filtered' | 'authors' | 'comments', values: unknown[]): Maybe<Row[]>;
  get(statement: 'byId' | 'pageCount' | 'filteredCount' | 'insert', values: unknown[]): Maybe<Row | undefined>;
  /** A list of ids as the dialect binds it (a JSON array on SQLite, an array on PostgreSQL). */
  idList(ids: unknown[]): unknown;
  close(): Promise<void>;
}

/** A response before it is written: status, body, and whether it carries mfx's ETag (the blog's Post is optimistic_lock). */
export interface Answer {
  status: number;
  body: unknown;
  etag?: boolean;
}

/** What a query string offers the list route (URLSearchParams does). */
export interface Query {
  get(name: string): string | null | undefined;
}

const notFound: Answer = { status: 404, body: { error: { code: 'NOT_FOUND', message: 'not found' } } };
export const invalid: Answer = { status: 422, body: { error: { code: 'VALIDATION_ERROR', message: 'invalid' } } };

function then<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
const decodePost = (row: Row): Row => ({ ...row, keywords: json(row.keywords), metadata: json(row.metadata) });
// The author's password is writeonly and loginCount hidden; the include's bookkeeping columns are not sent.
const projectUser = ({ password: _p, loginCount: _l, __mfx_owner: _o, ...user }: Row): Row => user;
const projectComment = ({ __mfx_owner: _o, __mfx_count: _c, ...row }: Row): Row => ({ ...row, approved: row.approved === 1 || row.approved === true });

/** The JSON text of an answer and its headers: those mfx sends (X-Request-Id, and the MD5 ETag of the text when asked). */
export function envelope(answer: Answer): { status: number; text: string; headers: Record<string, string> } {
  const text = JSON.stringify(answer.body);
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': randomUUID() };
  if (answer.etag) headers.ETag = `"${createHash('md5').update(text).digest('hex')}"`;
  return { status: answer.status, text, headers };
}

export interface BlogRoutes {
  read(id: string): Maybe<Answer>;
  list(query: Query): Maybe<Answer>;
  /** A body already checked (a type check in the raw peer, ajv in Fastify's). */
  create(body: Row): Maybe<Answer>;
  notFound: Answer;
  close(): Promise<void>;
}

export function blogRoutes(db: BlogDb): BlogRoutes {
  const withIncludes = (rows: Row[]): Maybe<Row[]> =>
    then(db.all('authors', [db.idList([...new Set(rows.map((r) => r.userId))])]), (authors) => {
      const users = new Map(authors.map((u) => [u.id, projectUser(u)]));
      const remaining = MAX_INCLUDE_ROWS - rows.length + 1;
      return then(db.all('comments', [db.idList(rows.map((r) => r.id)), MAX_INCLUDE_PER_PARENT, remaining]), (comments) => {
        const byPost = new Map<unknown, Row[]>();
        for (const c of comments) {
          const list = byPost.get(c.postId) ?? [];
          list.push(projectComment(c));
          byPost.set(c.postId, list);
        }
        for (const row of rows) {
          row.author = users.get(row.userId) ?? null;
          row.comments = byPost.get(row.id) ?? [];
        }
        return rows;
      });
    });

  return {
    notFound,
    read: (id) => then(db.get('byId', [id]), (row) => (row ? { status: 200, body: { data: decodePost(row) }, etag: true } : notFound)),
    list(query) {
      const limit = Math.min(Number(query.get('limit') ?? 20), 200);
      const page = Number(query.get('page') ?? 1);
      const offset = (page - 1) * limit;
      // The one filter and sort the bench asks for: filter=status:eq:X&sort=views:desc.
      const status = query.get('filter')?.split(':')[2];
      const rows = status ? db.all('filtered', [status, limit, offset]) : db.all('page', [limit, offset]);
      return then(rows, (found) =>
        then(status ? db.get('filteredCount', [status]) : db.get('pageCount', []), (counted) => {
          const total = Number(counted!.n);
          const decoded = found.map(decodePost);
          const meta = { total, page, limit, pages: Math.ceil(total / limit) };
          if (!query.get('include')) return { status: 200, body: { data: decoded, meta } };
          return then(withIncludes(decoded), (data) => ({ status: 200, body: { data, meta } }));
        }),
      );
    },
    create(body) {
      const now = new Date().toISOString();
      const values = [
        randomUUID(),
        body.title,
        body.body ?? '',
        body.status ?? 'draft',
        body.views ?? 0,
        body.rating ?? null,
        JSON.stringify(body.keywords ?? []),
        body.metadata == null ? null : JSON.stringify(body.metadata),
        body.publishedAt ?? null,
        body.slug ?? null,
        body.userId,
        now,
        now,
        null,
      ];
      return then(db.get('insert', values), (row) => ({ status: 201, body: { data: decodePost(row!) }, etag: true }));
    },
    close: () => db.close(),
  };
}

/** The JSON Schema of a created Post (the model's directives), for Fastify's ajv. */
export const postCreateSchema = {
  type: 'object',
  required: ['title', 'userId'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    body: { type: 'string' },
    status: { type: 'string', enum: ['draft', 'published', 'archived'] },
    views: { type: 'integer', minimum: 0 },
    rating: { type: ['number', 'null'], minimum: 0, maximum: 5 },
    keywords: { type: 'array', items: { type: 'string' } },
    metadata: { type: ['object', 'null'] },
    publishedAt: { type: ['string', 'null'], format: 'date-time' },
    slug: { type: ['string', 'null'] },
    userId: { type: 'string' },
  },
} as const;

/** The routes on the database of `--db`: `sqlite:FILE` (or a bare file) or a postgres:// URL; the driver is loaded only for its own database. */
export async function routesFor(db: string): Promise<BlogRoutes> {
  if (/^postgres(ql)?:\/\//.test(db)) return blogRoutes((await import('./postgres-db.js')).postgresDb(db));
  return blogRoutes((await import('./sqlite-db.js')).sqliteDb(db.replace(/^sqlite:/, '')));
}
