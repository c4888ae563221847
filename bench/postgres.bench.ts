// Issue 16 on PostgreSQL (PG_URL): the same workloads and peers as the runtime
// suite, the peers on pg with mfx's pools, SQL and named prepared statements.
import { blogContenders, blogGoals, blogWorkloads, seededPostgresBlog } from './lib/blog.js';
import { runSuite } from './lib/load.js';

export async function main(): Promise<void> {
  const blog = await seededPostgresBlog();
  try {
    await runSuite(blogContenders(blog), blogWorkloads(blog), blogGoals);
  } finally {
    await blog.drop();
  }
}
