// The blog fixture compiled for benchmarks, and a seeded SQLite database of it.
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createServer, loadManifest, openSqlite, silentLogger } from '@mfx/runtime';
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

export async function seededBlog(): Promise<SeededBlog> {
  const manifestDir = await fixtureManifestDir('blog');
  const dir = mkdtempSync(join(tmpdir(), 'mfx-bench-'));
  const file = join(dir, 'blog.db');

  // Create the schema with mfx's own migration, then fill it directly.
  const app = createServer({ logger: silentLogger, handleSignals: false });
  app.register(loadManifest(manifestDir));
  const adapter = openSqlite(file, app.registry);
  app.setDB(adapter);
  await app.migrate();
  await adapter.close();

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
