// WAL frames per request on SQLite (issues 21 and 22): how many pages each write's commit appends
// to the write-ahead log, by B-tree, for POST /posts on the seeded blog served in this process
//   plain    no events, no transaction (the `events` bench's peer)
//   events   publishEvents on the outbox (bench/lib/events-app.mjs), its relay drained after the
//            requests and counted apart
//   tx       POST in transaction() (bench/lib/jobs-app.mjs without BENCH_ENQUEUE: the `jobs` bench's peer)
//   enqueue  the same with a job enqueued on sqlQueue in the transaction (BENCH_ENQUEUE=1)
//
//   node --conditions=mfx-source --import tsx bench/wal-frames.ts [plain events tx enqueue]
//
// Every frame is a page written (4 KiB and a header) at COMMIT, and every 1000 of them
// a checkpoint copies the distinct pages among them into the database file, so frames and
// distinct pages per request are the load-independent measure of what a commit costs the disk
// path, beside bench/instructions.ts's CPU. The automatic checkpoint is turned off on the
// server's connection while it counts, so the WAL holds every frame written; a frame's page
// is named by its B-tree through SQLite's dbstat table. WARM (200) and N (500) set the sizes.
import { readFileSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { type App, createServer, loadManifest, memoryBus, memoryQueue, openSqlite, outboxBus, publishEvents, silentLogger, sqlQueue, transaction } from '@mfx/runtime';
import { blogWorkload, seededBlog } from './lib/blog.js';

const WARM = Number(process.env.WARM ?? 200);
const N = Number(process.env.N ?? 500);
const chosen = process.argv.slice(2);
const scenarios = chosen.length ? chosen : ['plain', 'events', 'tx', 'enqueue'];

/** Frames of a WAL file: each frame's page number, and how many ended a transaction. */
function walFrames(file: string): { pages: number[]; commits: number } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return { pages: [], commits: 0 };
  }
  if (bytes.length < 32) return { pages: [], commits: 0 };
  const pageSize = bytes.readUInt32BE(8);
  const pages: number[] = [];
  let commits = 0;
  let current: number[] = [];
  for (let at = 32; at + 24 + pageSize <= bytes.length; at += 24 + pageSize) {
    pages.push(bytes.readUInt32BE(at));
    current.push(bytes.readUInt32BE(at));
    if (bytes.readUInt32BE(at + 4) !== 0) {
      commits++;
      if (process.env.WAL_DUMP && commits <= Number(process.env.WAL_DUMP)) console.log(`commit ${commits}: ${current.join(' ')}`);
      current = [];
    }
  }
  return { pages, commits };
}

/** Page number → the table or index it belongs to. */
function btreeOfPage(file: string): Map<number, string> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT pageno, name, pagetype FROM dbstat').all() as { pageno: number; name: string; pagetype: string }[];
    return new Map(rows.map((r) => [r.pageno, `${r.name} (${r.pagetype})`]));
  } finally {
    db.close();
  }
}

function summary(label: string, frames: { pages: number[]; commits: number }, names: Map<number, string>, requests: number): void {
  const by = new Map<string, number>();
  for (const page of frames.pages) {
    const name = names.get(page) ?? 'a free page (the freelist)';
    by.set(name, (by.get(name) ?? 0) + 1);
  }
  const per = (n: number) => (n / requests).toFixed(2);
  console.log(`  ${label}: ${per(frames.pages.length)} frames/request, ${per(new Set(frames.pages).size)} distinct pages/request, ${per(frames.commits)} commits/request`);
  for (const [name, n] of [...by].sort((a, b) => b[1] - a[1])) console.log(`    ${per(n).padStart(6)}  ${name}`);
}

async function measure(scenario: string, blog: Awaited<ReturnType<typeof seededBlog>>): Promise<void> {
  const file = blog.copy();
  const app: App = createServer({ port: 0, host: '127.0.0.1', logger: silentLogger, handleSignals: false });
  app.register(loadManifest(blog.manifestDir));
  const adapter = openSqlite(file, app.registry);
  app.setDB(adapter);
  let relay: (() => Promise<number>) | null = null;
  if (scenario === 'events') {
    // The relay runs only when asked below, so its frames are counted apart from the requests'.
    const outbox = outboxBus(() => app.db, { relayTo: memoryBus(), interval: '1h' });
    app.use('db', publishEvents(outbox), { position: 'after', models: ['Post'] });
    relay = () => outbox.relayOnce();
  } else if (scenario === 'tx' || scenario === 'enqueue') {
    app.use('service', transaction(), { models: ['Post'], ops: ['create'] });
    if (scenario === 'tx') app.jobs({ queue: memoryQueue(), handlers: {}, statusRoutes: false, pollMs: 3_600_000 });
    else {
      app.jobs({ queue: sqlQueue(adapter), handlers: {}, concurrency: 1, pollMs: 3_600_000 });
      app.use('db', async (ctx, next) => {
        await next();
        await app.enqueue({ type: 'post.created', payload: { title: (ctx.body as { title?: string } | null)?.title } }, ctx);
      }, { models: ['Post'], ops: ['create'], position: 'after' });
    }
  } else if (scenario !== 'plain') throw new Error(`unknown scenario ${scenario}: plain, events, tx or enqueue`);
  const workload = blogWorkload(blog, 'POST /posts');
  const { url } = await app.start();
  const post = async () => {
    const response = await fetch(`${url}/posts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(workload.body!()) });
    if (response.status !== 201) throw new Error(`POST /posts answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  const drain = async () => {
    while (relay && (await relay()) > 0);
  };
  try {
    for (let i = 0; i < WARM; i++) await post();
    await drain();
    await adapter.exec('PRAGMA wal_autocheckpoint = 0');
    await adapter.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    for (let i = 0; i < N; i++) await post();
    const requests = walFrames(`${file}-wal`);
    // Named before the relay ships: a batch shipped empties the pending index, whose pages are then free.
    const names = btreeOfPage(file);
    console.log(`${scenario} (${N} requests after ${WARM})`);
    summary('requests', requests, names, N);
    if (!relay) return;
    await drain();
    const all = walFrames(`${file}-wal`);
    summary('relay', { pages: all.pages.slice(requests.pages.length), commits: all.commits - requests.commits }, btreeOfPage(file), N);
  } finally {
    await app.stop();
    rmSync(file, { force: true });
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
  }
}

const blog = await seededBlog();
for (const scenario of scenarios) await measure(scenario, blog);
