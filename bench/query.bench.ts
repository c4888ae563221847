// Issue 4: the list query language on the blog (SQLite, 10,000 posts, 3 comments each):
// the first page of a filtered, sorted list, and a page with author and comments
// included, beside the node:http and Fastify peers running the same SQL.
import { blogContenders, seededBlog } from './lib/blog.js';
import { runSuite, type Workload } from './lib/load.js';

export async function main(): Promise<void> {
  const blog = await seededBlog();
  const workloads: Workload[] = [
    { name: 'GET /posts?filter=status:eq:published&sort=views:desc&limit=20', path: '/posts?filter=status:eq:published&sort=views:desc&limit=20' },
    { name: 'GET /posts?include=author,comments&limit=20', path: '/posts?include=author,comments&limit=20' },
  ];
  await runSuite(blogContenders(blog), workloads, { [workloads[0].name]: { raw: 0.75 }, [workloads[1].name]: { raw: 0.9 } });
}
