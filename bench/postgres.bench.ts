// Issue 5: mfx serve on the blog in PostgreSQL (10,000 posts) beside a hand-written
// node:http + pg server with the same pools, SQL and prepared statements.
import { join } from 'node:path';
import { seededPostgresBlog, POSTS } from './lib/blog.js';
import { compare, type Row, report, selected, type Workload } from './lib/load.js';
import { startChild } from './lib/process.js';

const root = join(import.meta.dirname, '..');

export async function main(): Promise<void> {
  const blog = await seededPostgresBlog();
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

  // Both servers use the one seeded schema; the rows POST adds are a rounding error against 10,000.
  const mfx = await startChild(
    [join(root, 'bin/mfx.mjs'), 'serve', '--manifest', blog.manifestDir, '--db', blog.url, '--port', '0', '--no-docs'],
    /mfx serving (http:\/\/\S+)/,
  );
  const baseline = await startChild([join(root, 'bench/baselines/postgres.ts'), '--db', blog.url, '--port', '0'], /baseline serving (http:\/\/\S+)/);
  const rows: Row[] = [];
  try {
    for (const workload of selected(workloads)) rows.push(await compare(workload, mfx, baseline));
  } finally {
    await mfx.stop();
    await baseline.stop();
    await blog.drop();
  }
  report(rows, { 'GET /posts/:id': 0.85, 'GET /posts?limit=20&page=N': 0.85, 'POST /posts': 0.85 });
}
