// Issue 3: mfx serve on the blog (SQLite, 10,000 posts) beside a hand-written
// node:http + better-sqlite3 server doing the same SQL.
import { join } from 'node:path';
import { compare, type Row, report, selected, type Workload } from './lib/load.js';
import { seededBlog, POSTS } from './lib/blog.js';
import { startChild } from './lib/process.js';

const root = join(import.meta.dirname, '..');

export async function main(): Promise<void> {
  const blog = await seededBlog();
  const randomPost = () => blog.postIds[Math.floor(Math.random() * blog.postIds.length)];
  const pages = POSTS / 20;
  const workloads: Workload[] = [
    { name: 'GET /posts/:id', path: () => `/posts/${randomPost()}` },
    { name: 'GET /posts?limit=20&page=N', path: () => `/posts?limit=20&page=${1 + Math.floor(Math.random() * pages)}` },
    {
      name: 'POST /posts',
      method: 'POST',
      path: '/posts',
      body: () => ({ title: `Bench ${Math.random()}`, body: 'Written by the benchmark.', status: 'published', views: 3, userId: blog.userIds[0] }),
    },
  ];

  const mfx = await startChild(
    [join(root, 'bin/mfx.mjs'), 'serve', '--manifest', blog.manifestDir, '--db', `sqlite:${blog.copy()}`, '--port', '0', '--no-docs'],
    /mfx serving (http:\/\/\S+)/,
  );
  const baseline = await startChild([join(root, 'bench/baselines/sqlite.ts'), '--db', blog.copy(), '--port', '0'], /baseline serving (http:\/\/\S+)/);
  const rows: Row[] = [];
  try {
    for (const workload of selected(workloads)) rows.push(await compare(workload, mfx, baseline));
  } finally {
    await mfx.stop();
    await baseline.stop();
  }
  report(rows, { 'GET /posts/:id': 0.75, 'GET /posts?limit=20&page=N': 0.75, 'POST /posts': 0.7 });
}
