// Issue 16 on SQLite: mfx serve (compiled) on the blog (10,000 posts, 3 comments each)
// beside hand-written node:http and Fastify 5 peers running the same SQL
// (bench/baselines/), a fresh server per contender per round.
import { blogContenders, blogGoals, blogWorkloads, seededBlog } from './lib/blog.js';
import { runSuite } from './lib/load.js';

export async function main(): Promise<void> {
  const blog = await seededBlog();
  await runSuite(blogContenders(blog), blogWorkloads(blog), blogGoals);
}
