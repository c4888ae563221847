// Issue 3: mfx serve on the blog (SQLite, 10,000 posts) beside a hand-written
// node:http + better-sqlite3 server doing the same SQL.
import { runSuite } from './lib/load.js';
import { crudWorkloads, seededBlog } from './lib/blog.js';
import { startBaseline, startMfx } from './lib/process.js';

export async function main(): Promise<void> {
  const blog = await seededBlog();
  const workloads = crudWorkloads(blog);

  const servers = { mfx: await startMfx(blog.manifestDir, `sqlite:${blog.copy()}`), baseline: await startBaseline('sqlite', blog.copy()) };
  await runSuite(servers, workloads, { 'GET /posts/:id': 0.75, 'GET /posts?limit=20&page=N': 0.75, 'POST /posts': 0.7 });
}
