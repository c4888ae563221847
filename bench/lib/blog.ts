// The blog fixture compiled for benchmarks, and seeded SQLite and PostgreSQL databases of it.
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createServer, loadManifest, openPostgres, openSqlite, silentLogger } from '@mfx/runtime';
import { freshSchema } from '../../test/support/backends.js';
import type { Contender, Goal, Workload } from './load.js';
import { mfxAccessLog, startMfx, startPeer, type Child } from './process.js';
import { fixtureManifestDir } from '../../test/support/fixtures.js';

export const POSTS = 10_000;
export const USERS = 100;
export const COMMENTS_PER_POST = 3;

export interface SeededBlog {
  manifestDir: string;
  /** A fresh copy of the seeded database for one server run. */
  copy(): string;
  postIds: string[];
  userIds: string[];
}

/** A new SQLite file in a temporary directory with the schema of a manifest, made by mfx's own migration (seeds fill it directly). */
export async function migratedSqlite(manifestDir: string, name: string): Promise<{ dir: string; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-bench-'));
  const file = join(dir, name);
  const app = createServer({ logger: silentLogger, handleSignals: false });
  app.register(loadManifest(manifestDir));
  const adapter = openSqlite(file, app.registry);
  app.setDB(adapter);
  await app.migrate();
  await adapter.close();
  return { dir, file };
}

export async function seededBlog(): Promise<SeededBlog> {
  const manifestDir = await fixtureManifestDir('blog');
  const { dir, file } = await migratedSqlite(manifestDir, 'blog.db');

  const db = new Database(file);
  const now = new Date().toISOString();
  const userIds = Array.from({ length: USERS }, () => randomUUID());
  const postIds = Array.from({ length: POSTS }, () => randomUUID());
  const statuses = ['draft', 'published', 'archived'];
  db.transaction(() => {
    const user = db.prepare('INSERT INTO users (id, name, email, password, role, bio, "loginCount", "companyId", created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, NULL, ?, ?)');
    userIds.forEach((id, i) => user.run(id, `User ${i}`, `user${i}@example.com`, 'x'.repeat(60), 'member', null, now, now));
    const post = db.prepare(
      'INSERT INTO posts (id, title, body, status, views, rating, keywords, metadata, "publishedAt", slug, "userId", created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)',
    );
    const comment = db.prepare('INSERT INTO comments (id, body, "postId", "userId", approved, created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, 1, ?, ?, NULL)');
    postIds.forEach((id, i) => {
      const created = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
      post.run(
        id,
        `Post number ${i}`,
        'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(4),
        statuses[i % 3],
        (i * 7919) % 10_000,
        (i % 50) / 10,
        JSON.stringify(['bench', `k${i % 10}`]),
        JSON.stringify({ words: 120 + (i % 30) }),
        i % 3 === 1 ? created : null,
        `post-${i}`,
        userIds[i % USERS],
        created,
        created,
      );
      for (let c = 0; c < COMMENTS_PER_POST; c++) comment.run(randomUUID(), `Comment ${c} on ${i}`, id, userIds[(i + c) % USERS], created, created);
    });
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();

  let copies = 0;
  return {
    manifestDir,
    postIds,
    userIds,
    copy() {
      const target = join(dir, `run-${copies++}.db`);
      copyFileSync(file, target);
      return target;
    },
  };
}

export interface SeededPostgresBlog {
  manifestDir: string;
  /** Connection string of the seeded schema. */
  url: string;
  postIds: string[];
  userIds: string[];
  drop(): Promise<void>;
}

/** The same blog, seeded into a fresh PostgreSQL schema (PG_URL) that `drop()` removes. */
export async function seededPostgresBlog(): Promise<SeededPostgresBlog> {
  const manifestDir = await fixtureManifestDir('blog');
  const { url, drop } = await freshSchema();

  const app = createServer({ logger: silentLogger, handleSignals: false });
  app.register(loadManifest(manifestDir));
  const adapter = openPostgres({ writeUrl: url }, app.registry);
  app.setDB(adapter);
  await app.migrate();
  await adapter.close();

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Same shape of data as the SQLite seed, generated inside the database.
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO users (id, name, email, password, role, bio, "loginCount", "companyId", created_at, updated_at)
       SELECT gen_random_uuid()::text, 'User ' || i, 'user' || i || '@example.com', repeat('x', 60), 'member', NULL, 0, NULL, now(), now()
       FROM generate_series(0, $1 - 1) AS i`,
      [USERS],
    );
    const userIds = (await client.query<{ id: string }>('SELECT id FROM users ORDER BY email')).rows.map((r) => r.id);
    await client.query(
      `INSERT INTO posts (id, title, body, status, views, rating, keywords, metadata, "publishedAt", slug, "userId", created_at, updated_at, deleted_at)
       SELECT gen_random_uuid()::text, 'Post number ' || i, repeat('Lorem ipsum dolor sit amet, consectetur adipiscing elit. ', 4),
              (ARRAY['draft', 'published', 'archived'])[i % 3 + 1], (i * 7919) % 10000, (i % 50) / 10.0,
              jsonb_build_array('bench', 'k' || (i % 10)), jsonb_build_object('words', 120 + i % 30),
              CASE WHEN i % 3 = 1 THEN timestamptz '2025-01-01' + i * interval '1 minute' END, 'post-' || i,
              ($2::text[])[i % $3 + 1], timestamptz '2025-01-01' + i * interval '1 minute', timestamptz '2025-01-01' + i * interval '1 minute', NULL
       FROM generate_series(0, $1 - 1) AS i`,
      [POSTS, userIds, USERS],
    );
    await client.query(
      `INSERT INTO comments (id, body, "postId", "userId", approved, created_at, updated_at, deleted_at)
       SELECT gen_random_uuid()::text, 'Comment ' || c || ' on ' || p.slug, p.id, p."userId", true, p.created_at, p.created_at, NULL
       FROM posts p CROSS JOIN generate_series(0, $1 - 1) AS c`,
      [COMMENTS_PER_POST],
    );
    await client.query('COMMIT');
    await client.query('ANALYZE');
    const postIds = (await client.query<{ id: string }>('SELECT id FROM posts')).rows.map((r) => r.id);
    return { manifestDir, url, postIds, userIds, drop };
  } finally {
    await client.end();
  }
}

/**
 * Starts a server on a fresh copy of a seeded SQLite file (`copy()` makes one
 * and returns its path); the copy and its WAL files are removed once that
 * server stops.
 */
export function onFreshCopy(copy: () => string, start: (db: string) => Promise<Child>): () => Promise<Child> {
  return async () => {
    const file = copy();
    const remove = () => ['', '-wal', '-shm'].forEach((suffix) => rmSync(file + suffix, { force: true }));
    const child = await start(`sqlite:${file}`).catch((error) => {
      remove();
      throw error;
    });
    return { ...child, stop: () => child.stop().then(remove) };
  };
}

/**
 * mfx (compiled, access log as BENCH_MFX_LOG says), the raw node:http peer and
 * the Fastify peer on the seeded blog: on SQLite each start gets a fresh copy
 * of the seeded file; on PostgreSQL all share the seeded schema (the rows POST
 * adds are a rounding error against 10,000). `nodeFlags` go to all three
 * (bench/threads.ts's --trace-gc), after mfx's own.
 */
export function blogContenders(blog: SeededBlog | SeededPostgresBlog, nodeFlags: string[] = []): Contender[] {
  const on = (start: (db: string) => Promise<Child>) => ('url' in blog ? () => start(blog.url) : onFreshCopy(() => blog.copy(), start));
  return [
    { name: 'mfx', label: `mfx (access log ${mfxAccessLog ? 'on' : 'off'})`, start: on((db) => startMfx(blog.manifestDir, db, nodeFlags)) },
    { name: 'raw', label: 'raw node:http', start: on((db) => startPeer('raw', db, nodeFlags)) },
    { name: 'fastify', label: 'Fastify 5', start: on((db) => startPeer('fastify', db, nodeFlags)) },
  ];
}

const STATUSES = ['draft', 'published', 'archived'];
const pick = <T>(values: T[]): T => values[Math.floor(Math.random() * values.length)];

/**
 * Issue 16's workloads on either database: read by id, a list filtered on
 * status and sorted by views with its count (a random status and one of its
 * first 50 pages), create, and a page of 20 with author and comments included.
 */
export function blogWorkloads(blog: { postIds: string[]; userIds: string[] }): Workload[] {
  return [
    { name: 'GET /posts/:id', path: () => `/posts/${pick(blog.postIds)}` },
    { name: 'GET /posts?filter=status:eq:S&sort=views:desc&page=N', path: () => `/posts?filter=status:eq:${pick(STATUSES)}&sort=views:desc&limit=20&page=${1 + Math.floor(Math.random() * 50)}` },
    {
      name: 'POST /posts',
      method: 'POST',
      path: '/posts',
      body: () => ({ title: `Bench ${Math.random()}`, body: 'Written by the benchmark.', status: 'published', views: 3, userId: blog.userIds[0] }),
    },
    // Post's BelongsTo User is declared `relation:author`, so its relation key is `author`.
    { name: 'GET /posts?include=author,comments&limit=20', path: () => `/posts?include=author,comments&limit=20&page=${1 + Math.floor(Math.random() * 50)}` },
  ];
}

/**
 * The blog workload a measuring tool names on its command line: the one of
 * that name, else the first whose name contains it (`POST`, `include`).
 *
 * @example
 * const workload = blogWorkload(blog, process.argv[2] ?? 'GET /posts/:id');
 */
export function blogWorkload(blog: { postIds: string[]; userIds: string[] }, named: string): Workload {
  const workloads = blogWorkloads(blog);
  const found = workloads.find((w) => w.name === named) ?? workloads.find((w) => w.name.includes(named));
  if (!found) throw new Error(`no workload matches "${named}"; the blog's workloads: ${workloads.map((w) => w.name).join(', ')}`);
  return found;
}

/** Issue 16's goals: mfx's req/s over the raw node:http peer's and over Fastify's. */
export const blogGoals: Record<string, Goal> = {
  'GET /posts/:id': { raw: 0.95, fastify: 1.0 },
  'GET /posts?filter=status:eq:S&sort=views:desc&page=N': { raw: 0.95, fastify: 1.0 },
  'POST /posts': { raw: 0.95, fastify: 1.0 },
  'GET /posts?include=author,comments&limit=20': { raw: 0.9 },
};
