// Issue 5: mfx serve on the blog in PostgreSQL (10,000 posts) beside a hand-written
// node:http + pg server with the same pools, SQL and prepared statements.
import { crudWorkloads, seededPostgresBlog } from './lib/blog.js';
import { runSuite } from './lib/load.js';
import { startBaseline, startMfx } from './lib/process.js';

export async function main(): Promise<void> {
  const blog = await seededPostgresBlog();
  const workloads = crudWorkloads(blog);

  // Both servers use the one seeded schema; the rows POST adds are a rounding error against 10,000.
  const servers = { mfx: await startMfx(blog.manifestDir, blog.url), baseline: await startBaseline('postgres', blog.url) };
  try {
    await runSuite(servers, workloads, { 'GET /posts/:id': 0.85, 'GET /posts?limit=20&page=N': 0.85, 'POST /posts': 0.85 });
  } finally {
    await blog.drop();
  }
}
