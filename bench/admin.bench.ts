// Issue 23: the admin panel's list page (20 rows, rendered from an in-process
// call of the API) beside the API's own GET /posts?limit=20, on the seeded blog
// (10,000 posts), through the same compiled `mfx serve --admin
// --admin-unauthenticated` process on a fresh copy of the database per run.
// Both ask for a random page among the first 50. The goal: the panel at 0.5
// or more of the API's requests per second.
import { onFreshCopy, seededBlog } from './lib/blog.js';
import { compare, type Contender, type Workload } from './lib/load.js';
import { median } from './lib/proc.js';
import { startMfx } from './lib/process.js';

const GOAL = 0.5;

export async function main(): Promise<void> {
  const blog = await seededBlog();
  const start = onFreshCopy(() => blog.copy(), (db) => startMfx(blog.manifestDir, db, [], ['--admin', '--admin-unauthenticated']));
  const contenders: Contender[] = [
    { name: 'api', label: 'GET /api/posts?limit=20', start },
    {
      name: 'admin',
      label: 'GET /admin/posts (20 rows)',
      async start() {
        const child = await start();
        return { ...child, url: `${new URL(child.url).origin}/admin` };
      },
    },
  ];
  // The panel reads only `page` (its page size is 20); the API reads both.
  const workload: Workload = { name: 'a list page of 20 posts', path: () => `/posts?limit=20&page=${1 + Math.floor(Math.random() * 50)}` };
  await checkAnswers(start);
  console.log('the seeded blog on SQLite; one compiled mfx serve --admin --admin-unauthenticated per run, the API and the panel measured alike');
  const row = await compare(workload, contenders);
  const admin = row.samples.get('admin')!;
  const api = row.samples.get('api')!;
  const rps = admin.map((s, i) => s.rps / api[i]!.rps);
  const cpu = admin.map((s, i) => s.cpuUs / api[i]!.cpuUs);
  const spread = (values: number[]) => `${median(values).toFixed(3)} (${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)})`;
  const errors = [...admin, ...api].reduce((n, s) => n + s.errors + s.non2xx, 0);
  console.log(`\n${workload.name}`);
  console.log(`  req/s: panel ${median(admin.map((s) => s.rps)).toFixed(0)}, API ${median(api.map((s) => s.rps)).toFixed(0)}   CPU µs/req: panel ${median(admin.map((s) => s.cpuUs)).toFixed(0)}, API ${median(api.map((s) => s.cpuUs)).toFixed(0)}`);
  console.log(`  p99 ms: panel ${median(admin.map((s) => s.p99)).toFixed(0)}, API ${median(api.map((s) => s.p99)).toFixed(0)}   peak RSS MB: panel run ${Math.max(...admin.map((s) => s.peakMb)).toFixed(0)}`);
  console.log(`  panel/API: req/s ${spread(rps)}   CPU/req ${spread(cpu)}   goal req/s ≥ ${GOAL}: ${median(rps) >= GOAL ? 'met' : 'MISSED'}`);
  if (errors) console.log(`  ${errors} errors or non-2xx answers`);
}

/** The panel's page shows the very rows the API's page holds. */
async function checkAnswers(start: () => ReturnType<Contender['start']>): Promise<void> {
  const child = await start();
  try {
    const api = (await (await fetch(`${child.url}/posts?limit=20&page=3`)).json()) as { data: Array<{ title: string }> };
    const page = await fetch(`${new URL(child.url).origin}/admin/posts?page=3`);
    const html = await page.text();
    const missing = api.data.filter((row) => !html.includes(`>${row.title}</a>`));
    if (page.status !== 200 || api.data.length !== 20 || missing.length > 0) console.log(`ANSWERS DIFFER: the panel answers ${page.status}, missing ${missing.length} of the API's ${api.data.length} rows`);
  } finally {
    await child.stop();
  }
}
