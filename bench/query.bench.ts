// Issue 4: the list query language on the blog (SQLite, 10,000 posts, 3 comments each)
// beside a hand-written node:http + better-sqlite3 server running the same SQL.
import { join } from 'node:path';
import { seededBlog } from './lib/blog.js';
import { compare, type Row, report, selected, type Workload } from './lib/load.js';
import { startChild } from './lib/process.js';

const root = join(import.meta.dirname, '..');

export async function main(): Promise<void> {
  const blog = await seededBlog();
  const workloads: Workload[] = [
    { name: 'GET /posts?filter=status:eq:published&sort=views:desc&limit=20', path: '/posts?filter=status:eq:published&sort=views:desc&limit=20' },
    // Post's BelongsTo User is declared `relation:author`, so its relation key is `author`.
    { name: 'GET /posts?include=author,comments&limit=20', path: '/posts?include=author,comments&limit=20' },
  ];
  const mfx = await startChild(
    [join(root, 'bin/mfx.mjs'), 'serve', '--manifest', blog.manifestDir, '--db', `sqlite:${blog.copy()}`, '--port', '0', '--no-docs'],
    /mfx serving (http:\/\/\S+)/,
  );
  const baseline = await startChild([join(root, 'bench/baselines/query-sqlite.ts'), '--db', blog.copy(), '--port', '0'], /baseline serving (http:\/\/\S+)/);
  const rows: Row[] = [];
  try {
    for (const workload of selected(workloads)) rows.push(await compare(workload, mfx, baseline));
  } finally {
    await mfx.stop();
    await baseline.stop();
  }
  report(rows, { [workloads[0].name]: 0.75, [workloads[1].name]: 0.6 });
}
