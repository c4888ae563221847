// Issue 21: what publishing events costs a write. POST /posts on the seeded blog (SQLite) served
// by `mfx serve` with publishEvents on the transactional outbox (the event row inserted in the
// write's transaction, a relay shipping it every second (the default) to an in-process bus; bench/lib/events-app.mjs)
// beside the same server without events. Goal: events/plain req/s ratio at least 0.8.
// On a busy machine compare instructions instead (load-independent):
//   node --conditions=mfx-source --import tsx bench/instructions.ts 'POST /posts'
//   CG_SERVE_ARGS='--app bench/lib/events-app.mjs' node --conditions=mfx-source --import tsx bench/instructions.ts 'POST /posts'
// and the pages each write's commit appends to the WAL, by table and index:
//   node --conditions=mfx-source --import tsx bench/wal-frames.ts plain events
import { join } from 'node:path';
import { blogWorkload, onFreshCopy, seededBlog } from './lib/blog.js';
import { compare, type Contender } from './lib/load.js';
import { median } from './lib/proc.js';
import { startMfx } from './lib/process.js';

const GOAL = 0.8;

export async function main(): Promise<void> {
  const blog = await seededBlog();
  const app = join(import.meta.dirname, 'lib/events-app.mjs');
  const contenders: Contender[] = [
    { name: 'events', label: 'mfx + publishEvents(outboxBus)', start: onFreshCopy(() => blog.copy(), (db) => startMfx(blog.manifestDir, db, [], ['--app', app])) },
    { name: 'plain', label: 'mfx without events', start: onFreshCopy(() => blog.copy(), (db) => startMfx(blog.manifestDir, db)) },
  ];
  const workload = blogWorkload(blog, 'POST /posts');
  const row = await compare(workload, contenders);
  const events = row.samples.get('events')!;
  const plain = row.samples.get('plain')!;
  const rps = events.map((s, i) => s.rps / plain[i]!.rps);
  const cpu = events.map((s, i) => s.cpuUs / plain[i]!.cpuUs);
  console.log(`\n${workload.name}`);
  console.log(`  req/s: events ${median(events.map((s) => s.rps)).toFixed(0)}, plain ${median(plain.map((s) => s.rps)).toFixed(0)}`);
  console.log(`  events/plain: req/s ${median(rps).toFixed(3)} (${Math.min(...rps).toFixed(3)}–${Math.max(...rps).toFixed(3)}), CPU/req ${median(cpu).toFixed(3)}   goal req/s ratio ≥ ${GOAL}: ${median(rps) >= GOAL ? 'met' : 'MISSED'}`);
  const errors = [...events, ...plain].reduce((n, s) => n + s.errors + s.non2xx, 0);
  if (errors) console.log(`  ${errors} errors or non-2xx answers`);
}
