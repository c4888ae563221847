// Instructions per request of `mfx serve` under callgrind: a count that does not
// depend on how loaded the machine is, for comparing two builds of mfx on one
// workload of the blog (SQLite) when req/s and CPU time are too noisy to tell.
//
//   node --conditions=mfx-source --import tsx bench/instructions.ts 'GET /posts/:id' [bin.js ...]
//
// Each bin (default: this tree's compiler/dist/bin.js, after `npm run build`)
// serves a fresh copy of the seeded blog under valgrind with instrumentation
// off; WARM requests (default 400) warm it up over one keep-alive connection,
// then N (default 300) are counted. Node flags: BENCH_MFX_NODE_FLAGS as in the bench;
// CG_KEEP=DIR keeps the callgrind dumps (`callgrind_annotate DIR/cg.*`).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { blogWorkloads, seededBlog } from './lib/blog.js';
import { mfxNodeFlags } from './lib/process.js';

const [only = 'GET /posts/:id', ...given] = process.argv.slice(2);
const bins = given.length ? given : [join(import.meta.dirname, '../compiler/dist/bin.js')];
const WARM = Number(process.env.WARM ?? 400);
const N = Number(process.env.N ?? 300);

const blog = await seededBlog();
const workload = blogWorkloads(blog).find((w) => w.name.includes(only));
if (!workload) throw new Error(`no workload matches "${only}"`);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(base: string): Promise<number> {
  const path = new URL(base).pathname + (typeof workload!.path === 'function' ? workload!.path() : workload!.path);
  const body = workload!.body ? JSON.stringify(workload!.body()) : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { method: workload!.method ?? 'GET', agent, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function count(bin: string): Promise<number> {
  const db = blog.copy();
  const out = join(dirname(db), `cg.${Date.now()}.out`);
  const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`, process.execPath, ...mfxNodeFlags, bin, 'serve', '--manifest', blog.manifestDir, '--db', `sqlite:${db}`, '--port', '0', '--no-docs'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const url: string = await new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      const m = /mfx serving (http:\/\/\S+)/.exec(String(d));
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(err.slice(-3000))));
  });
  for (let i = 0; i < WARM; i++) if ((await send(url)) >= 300) throw new Error(`${workload!.name} answered an error while warming up`);
  spawnSync('callgrind_control', ['-i', 'on', String(child.pid)]);
  for (let i = 0; i < N; i++) await send(url);
  spawnSync('callgrind_control', ['-i', 'off', String(child.pid)]);
  spawnSync('callgrind_control', ['-d', String(child.pid)]);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  let total = 0;
  for (const file of readdirSync(dirname(out)).filter((f) => f.startsWith(`cg.`))) {
    const m = /^totals: (\d+)/m.exec(readFileSync(join(dirname(out), file), 'utf8'));
    if (m) total = Math.max(total, Number(m[1]));
    // CG_KEEP=DIR keeps the dumps there, for callgrind_annotate.
    if (process.env.CG_KEEP) copyFileSync(join(dirname(out), file), join(process.env.CG_KEEP, file));
    rmSync(join(dirname(out), file));
  }
  rmSync(db, { force: true });
  return total / N;
}

for (const bin of bins) console.log(`${workload.name}  ${bin}: ${(await count(bin) / 1000).toFixed(1)} k instructions/request (${N} requests after ${WARM})`);
agent.destroy();
