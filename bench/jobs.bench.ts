// Issue 22: the SQL job queue. (1) Throughput of no-op jobs through sqlQueue
// on SQLite (a WAL file) and PostgreSQL (PG_URL) with 1, 4 and 16 workers
// (worker instances of concurrency 1 sharing the queue, as replicas would).
// (2) What a transactional enqueue costs a POST: POST /tags alone against
// POST /tags whose transaction also enqueues a job (goal: ≥ 0.8 of alone),
// in-process servers on SQLite, sequential requests. BENCH_JOBS (2000) and
// BENCH_POSTS (2000) set the sizes; BENCH_ROUNDS (3) the rounds (medians).
// On a busy machine compare instructions instead (the same POST as `mfx serve`, bench/lib/jobs-app.mjs):
//   CG_SERVE_ARGS='--app bench/lib/jobs-app.mjs' node --conditions=mfx-source --import tsx bench/instructions.ts 'POST /posts'
//   BENCH_ENQUEUE=1 CG_SERVE_ARGS='--app bench/lib/jobs-app.mjs' node --conditions=mfx-source --import tsx bench/instructions.ts 'POST /posts'
// and the pages each write's commit appends to the WAL, by table and index:
//   node --conditions=mfx-source --import tsx bench/wal-frames.ts tx enqueue
import { performance } from 'node:perf_hooks';
import { type App, type Adapter, createServer, loadManifest, memoryQueue, migrate, Registry, silentLogger, sqlQueue, transaction } from '@mfx/runtime';
import { Worker } from '../runtime/src/jobs/worker.js';
import { backends, sqliteFileBackend } from '../test/support/backends.js';
import { fixtureManifestDir } from '../test/support/fixtures.js';
import { median } from './lib/proc.js';

const JOBS = Number(process.env.BENCH_JOBS ?? 2000);
const POSTS = Number(process.env.BENCH_POSTS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function throughput(adapter: Adapter, workers: number): Promise<number> {
  const queue = sqlQueue(adapter);
  await migrate(adapter, [], silentLogger, [...queue.tables]);
  await adapter.raw('DELETE FROM mfx_jobs');
  await queue.enqueue(Array.from({ length: JOBS }, () => ({ type: 'noop' })));
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const onTransition = (t: { status: string }) => {
    if (t.status === 'succeeded' && ++done === JOBS) finish();
  };
  const pool = Array.from({ length: workers }, () => new Worker({ queue, handlers: { noop: () => ({}) }, concurrency: 1, pollMs: 5, onTransition }, null, silentLogger));
  const started = performance.now();
  for (const worker of pool) worker.start();
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(pool.map((worker) => worker.stop(1000)));
  return JOBS / seconds;
}

async function postRate(withEnqueue: boolean): Promise<number> {
  const app: App = createServer({ port: 0, host: '127.0.0.1', logger: silentLogger, handleSignals: false });
  app.register(loadManifest(await fixtureManifestDir('blog')));
  const { adapter, drop } = await sqliteFileBackend.open(app.registry);
  app.setDB(adapter);
  app.use('service', transaction(), { models: ['Tag'], ops: ['create'] });
  if (withEnqueue) {
    // A queue nobody works off: only the enqueue's cost is measured.
    app.jobs({ queue: sqlQueue(adapter), handlers: {}, concurrency: 1, pollMs: 3_600_000 });
    app.use('db', async (ctx, next) => {
      await next();
      await app.enqueue({ type: 'tag.created', payload: { name: ctx.body?.name } }, ctx);
    }, { models: ['Tag'], ops: ['create'], position: 'after' });
  } else {
    app.jobs({ queue: memoryQueue(), handlers: {}, statusRoutes: false, pollMs: 3_600_000 });
  }
  const { url } = await app.start();
  try {
    for (let i = 0; i < 100; i++) await post(url, `warm-${i}`);
    const started = performance.now();
    for (let i = 0; i < POSTS; i++) await post(url, `tag-${i}`);
    return POSTS / ((performance.now() - started) / 1000);
  } finally {
    await app.stop();
    await drop();
  }
}

async function post(url: string, name: string): Promise<void> {
  const response = await fetch(`${url}/tags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  if (response.status !== 201) throw new Error(`POST /tags answered ${response.status}: ${await response.text()}`);
}

export async function main(): Promise<void> {
  console.log(`no-op jobs through sqlQueue (${JOBS} jobs, median of ${ROUNDS} rounds), jobs/s:`);
  const [, postgres] = await backends();
  for (const backend of [sqliteFileBackend, postgres!]) {
    if (backend.skip) {
      console.log(`  ${backend.name}: skipped (${backend.skip})`);
      continue;
    }
    const line: string[] = [];
    for (const workers of [1, 4, 16]) {
      const rates: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const { adapter, drop } = await backend.open(new Registry());
        try {
          rates.push(await throughput(adapter, workers));
        } finally {
          await adapter.close();
          await drop();
        }
      }
      line.push(`${workers} worker${workers > 1 ? 's' : ''}: ${Math.round(median(rates))}`);
    }
    console.log(`  ${backend.name}: ${line.join(', ')}`);
  }
  const ratios: number[] = [];
  const alone: number[] = [];
  const withJob: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = await postRate(false);
    const b = await postRate(true);
    alone.push(a);
    withJob.push(b);
    ratios.push(b / a);
  }
  const ratio = median(ratios);
  console.log(`POST /tags (SQLite file, ${POSTS} sequential requests): alone ${Math.round(median(alone))} req/s, with a transactional enqueue ${Math.round(median(withJob))} req/s`);
  console.log(`  ratio ${ratio.toFixed(2)} (min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}); goal ≥ 0.8: ${ratio >= 0.8 ? 'met' : 'MISSED'}`);
}
