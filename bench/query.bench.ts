// Issue 4: the list query language on the blog (SQLite, 10,000 posts, 3 comments each)
// beside a hand-written node:http + better-sqlite3 server running the same SQL.
import { seededBlog } from './lib/blog.js';
import { runSuite, type Workload } from './lib/load.js';
import { startBaseline, startMfx } from './lib/process.js';

export async function main(): Promise<void> {
  const blog = await seededBlog();
  const workloads: Workload[] = [
    { name: 'GET /posts?filter=status:eq:published&sort=views:desc&limit=20', path: '/posts?filter=status:eq:published&sort=views:desc&limit=20' },
    // Post's BelongsTo User is declared `relation:author`, so its relation key is `author`.
    { name: 'GET /posts?include=author,comments&limit=20', path: '/posts?include=author,comments&limit=20' },
  ];
  const servers = { mfx: await startMfx(blog.manifestDir, `sqlite:${blog.copy()}`), baseline: await startBaseline('query-sqlite', blog.copy()) };
  await runSuite(servers, workloads, { [workloads[0].name]: 0.75, [workloads[1].name]: 0.6 });
}
