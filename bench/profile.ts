// CPU profile of `mfx serve` (compiled, started as the bench starts it) under one
// workload of the blog suites, summarised as the top self-time functions of the
// main thread (a share of its busy samples) and the share of mfx's own layers.
//
//   node --import tsx bench/profile.ts sqlite 'GET /posts/:id' [out.md]
//   node --import tsx bench/profile.ts postgres 'POST /posts'
//   node --import tsx bench/profile.ts sqlite 'fields list profiles'
//
// BENCH_WARMUP_S and BENCH_DURATION_S (default 2 and 8) set the load; the raw
// .cpuprofile is kept beside the summary when an output file is given. CG_SERVE_ARGS adds flags to
// `mfx serve`, as for bench/instructions.ts (e.g. '--app bench/lib/events-app.mjs').
// BENCH_PROFILE_TOP (25) sets how many functions are listed. The fields benchmark's tables (issue 17)
// are named as for bench/instructions.ts: 'fields list TABLE' or 'fields read TABLE'.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blogWorkload, seededBlog, seededPostgresBlog } from './lib/blog.js';
import { fieldsPath, seededFields } from './lib/fields.js';
import { load, type Workload } from './lib/load.js';
import { startMfx } from './lib/process.js';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  /** µs of the monotonic clock (CLOCK_MONOTONIC, as process.hrtime), the profile's start and each sample's delta. */
  startTime: number;
  timeDeltas: number[];
}

const [backend = 'sqlite', only = 'GET /posts/:id', out] = process.argv.slice(2);
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** Where a frame's file belongs: an mfx layer (`runtime/http`), a package, node itself. */
function layerOf(url: string): string {
  const runtime = /runtime\/(?:dist|src)\/([^/]+)\//.exec(url);
  if (runtime) return runtime[1];
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node';
  return url === '' ? '(native)' : 'other';
}

function label(node: Node): string {
  const { functionName, url } = node.callFrame;
  const file = url.replace(/^file:\/\/.*?\/(runtime|compiler|node_modules)\//, '$1/');
  return `${functionName || '(anonymous)'}${file ? ` (${file})` : ''}`;
}

/** Top self-time functions and layer shares of a profile's busy samples taken from `fromUs` (the measured run: startup and warm-up left out). */
export function summarise(profile: Profile, fromUs = 0, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const layers = new Map<string, number>();
  let busy = 0;
  let taken = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i];
    if (at < fromUs) continue;
    taken++;
    const node = byId.get(profile.samples[i])!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy++;
    const name = label(node);
    self.set(name, (self.get(name) ?? 0) + 1);
    const layer = layerOf(node.callFrame.url);
    layers.set(layer, (layers.get(layer) ?? 0) + 1);
  }
  const pct = (n: number) => `${((100 * n) / busy).toFixed(1).padStart(5)}%`;
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  const layerRows = [...layers].sort((a, b) => b[1] - a[1]).slice(0, 15);
  return [
    `busy samples: ${busy} of ${taken} in the measured run`,
    '',
    'Top self time (share of busy samples):',
    '',
    '```',
    ...rows.map(([name, n]) => `${pct(n)}  ${name}`),
    '```',
    '',
    'Self time by layer (runtime/<dir>, package, node, native):',
    '',
    '```',
    ...layerRows.map(([name, n]) => `${pct(n)}  ${name}`),
    '```',
  ].join('\n');
}

interface Target {
  manifestDir: string;
  db: string;
  workload: Workload;
  drop?: () => Promise<void>;
}

/** The seeded database and workload named on the command line: a blog workload, or a fields table's read or list. */
async function target(): Promise<Target> {
  const fields = /^fields (list|read) (\w+)$/.exec(only);
  if (fields) {
    const { manifestDir, file, ids } = await seededFields();
    return { manifestDir, db: `sqlite:${file}`, workload: { name: only, path: fieldsPath(fields[1] as 'list' | 'read', fields[2]!, ids) } };
  }
  const blog = backend === 'postgres' ? await seededPostgresBlog() : await seededBlog();
  const workload = blogWorkload(blog, only);
  return { manifestDir: blog.manifestDir, db: 'url' in blog ? blog.url : `sqlite:${blog.copy()}`, workload, drop: 'drop' in blog ? () => blog.drop() : undefined };
}

async function main(): Promise<void> {
  const { manifestDir, db, workload, drop } = await target();
  const dir = mkdtempSync(join(tmpdir(), 'mfx-prof-'));
  let measuredFrom = 0;
  const extra = (process.env.CG_SERVE_ARGS ?? '').split(' ').filter(Boolean);
  const server = await startMfx(manifestDir, db, ['--cpu-prof', '--cpu-prof-interval', '250', '--cpu-prof-dir', dir], extra);
  try {
    await load(server.url, workload, env('BENCH_WARMUP_S', 2));
    measuredFrom = Number(process.hrtime.bigint() / 1000n);
    const result = await load(server.url, workload, env('BENCH_DURATION_S', 8));
    console.log(`${workload.name} on ${backend}: ${result.rps.toFixed(0)} req/s`);
  } finally {
    await server.stop();
    await drop?.();
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const summary = summarise(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile, measuredFrom, env('BENCH_PROFILE_TOP', 25));
  console.log(summary);
  if (out) {
    writeFileSync(out, `# ${workload.name} on ${backend}\n\n${summary}\n`);
    copyFileSync(join(dir, file), out.replace(/\.md$/, '') + '.cpuprofile');
  }
}

await main();
