// Where two servers' CPU time goes on one workload, symbol by symbol, under Linux `perf`: real
// time with cache misses and kernel work included, which callgrind's instruction counts
// (bench/instructions.ts) leave out, and JIT-compiled JavaScript named through --perf-basic-prof.
//
//   node --conditions=mfx-source --import tsx bench/perf.ts 'GET /posts/:id' fastify mfx
//   node --conditions=mfx-source --import tsx bench/perf.ts 'fields list' plain_profiles profiles
//
// Contenders: mfx, raw or fastify on a blog workload (bench/lib/blog.ts, SQLite), or two tables of
// the fields benchmark ('fields list', 'fields read'; bench/lib/fields.ts) served by mfx. Each
// server starts fresh, pinned as the bench pins it; after BENCH_WARMUP_S (3) of load, perf samples
// it at 4000 Hz for BENCH_DURATION_S (6). Printed: µs of CPU per request on the main thread and on
// the others (GC helpers, libuv), then the BENCH_PERF_TOP (40) symbols whose cost per request
// differs most, second minus first. BENCH_PERF_CALLGRAPH=1 records call chains too, for
// `perf report -i <data> --no-children -S <symbol> -G` afterwards. Needs `perf` (Debian's linux-perf) and a
// kernel.perf_event_paranoid of 2 or less; a measurement aid, not part of `npm run bench`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blogWorkload, seededBlog } from './lib/blog.js';
import { fieldsPath, seededFields } from './lib/fields.js';
import { load, type Workload } from './lib/load.js';
import { type Child, startMfx, startPeer } from './lib/process.js';

const [only = 'GET /posts/:id', first = 'fastify', second = 'mfx'] = process.argv.slice(2);
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const HZ = 4000;

interface Target {
  start(contender: string): Promise<Child>;
  /** What the contender is loaded with (the fields tables each get their own paths). */
  workload(contender: string): Workload;
}

/** The seeded database of the workload, and how each contender serves it. */
async function target(dir: string): Promise<Target> {
  // V8 writes a log beside --perf-basic-prof's map; each server gets its own, in this run's directory.
  const flags = (name: string) => ['--perf-basic-prof', `--logfile=${join(dir, `${name}.v8.log`)}`, '--no-logfile-per-isolate'];
  const fields = /^fields (list|read)$/.exec(only);
  if (fields) {
    const { manifestDir, file, ids } = await seededFields();
    return {
      start: (table) => startMfx(manifestDir, `sqlite:${file}`, flags(table)),
      workload: (table) => ({ name: only, path: fieldsPath(fields[1] as 'list' | 'read', table, ids) }),
    };
  }
  const blog = await seededBlog();
  const workload = blogWorkload(blog, only);
  return {
    start(contender) {
      const db = `sqlite:${blog.copy()}`;
      return contender === 'mfx' ? startMfx(blog.manifestDir, db, flags(contender)) : startPeer(contender, db, flags(contender));
    },
    workload: () => workload,
  };
}

interface Sampled {
  /** µs per request by symbol (`[.]` user space, `[k]` kernel). */
  symbols: Map<string, number>;
  mainUs: number;
  otherUs: number;
  rps: number;
}

/** Loads one contender's fresh server and samples it. */
async function sample(t: Target, contender: string, dir: string): Promise<Sampled> {
  const server = await t.start(contender);
  const workload = t.workload(contender);
  const data = join(dir, `${contender}.data`);
  try {
    await load(server.url, workload, env('BENCH_WARMUP_S', 3));
    const chains = process.env.BENCH_PERF_CALLGRAPH === '1' ? ['-g'] : [];
    const perf = spawn('perf', ['record', '-F', String(HZ), ...chains, '-o', data, '-p', String(server.pid)], { stdio: 'ignore' });
    const result = await load(server.url, workload, env('BENCH_DURATION_S', 6));
    perf.kill('SIGINT');
    await new Promise((resolve) => perf.once('exit', resolve));
    if (result.non2xx || result.errors) throw new Error(`${contender}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
    const report = spawnSync('perf', ['report', '-i', data, '-n', '--no-children', '--sort', 'pid,symbol', '-g', 'none', '--percent-limit', '0', '--stdio'], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    const perRequest = 1e6 / HZ / result.requests;
    const symbols = new Map<string, number>();
    let mainUs = 0;
    let otherUs = 0;
    for (const line of report.stdout.split('\n')) {
      const row = /^\s*[\d.]+%\s+(\d+)\s+(\d+):\S+\s+(\[[.k]\]\s+.*?)\s*$/.exec(line);
      if (!row) continue;
      const us = Number(row[1]) * perRequest;
      if (Number(row[2]) === server.pid) mainUs += us;
      else otherUs += us;
      // Paths differ between trees and peers; the symbol is what compares.
      const symbol = row[3].replace(/file:\/\/\S*?\/(runtime|node_modules|bench)\//, '$1/').replace(/\s+-\s+-$/, '');
      symbols.set(symbol, (symbols.get(symbol) ?? 0) + us);
    }
    return { symbols, mainUs, otherUs, rps: result.rps };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-perf-'));
  const t = await target(dir);
  const a = await sample(t, first, dir);
  const b = await sample(t, second, dir);
  const f = (n: number) => n.toFixed(2).padStart(7);
  console.log(`${only}: ${first} ${a.rps.toFixed(0)} req/s, ${second} ${b.rps.toFixed(0)} req/s (sampled at ${HZ} Hz; data in ${dir})`);
  console.log(`CPU µs per request, main thread: ${first} ${a.mainUs.toFixed(1)}, ${second} ${b.mainUs.toFixed(1)}; other threads: ${a.otherUs.toFixed(1)}, ${b.otherUs.toFixed(1)}`);
  console.log(`\n${'diff'.padStart(7)} ${first.slice(0, 7).padStart(7)} ${second.slice(0, 7).padStart(7)}  symbol`);
  const names = [...new Set([...a.symbols.keys(), ...b.symbols.keys()])];
  const diff = (name: string) => (b.symbols.get(name) ?? 0) - (a.symbols.get(name) ?? 0);
  for (const name of names.sort((x, y) => Math.abs(diff(y)) - Math.abs(diff(x))).slice(0, env('BENCH_PERF_TOP', 40))) {
    console.log(`${f(diff(name))} ${f(a.symbols.get(name) ?? 0)} ${f(b.symbols.get(name) ?? 0)}  ${name.slice(0, 120)}`);
  }
}

await main();
