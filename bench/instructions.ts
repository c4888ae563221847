// Instructions per request of `mfx serve` under callgrind: a count that does not
// depend on how loaded the machine is, for comparing two builds of mfx on one
// workload of the blog (SQLite) when req/s and CPU time are too noisy to tell.
//
//   node --conditions=mfx-source --import tsx bench/instructions.ts 'GET /posts/:id' [bin.js ...]
//
// Each bin (default: this tree's compiler/dist/bin.js, after `npm run build`)
// serves a fresh copy of the seeded blog under valgrind with instrumentation
// off; WARM requests (default 8000) warm it up over one keep-alive connection,
// then N (default 300) are counted. Keep WARM at 8000 or more: after 3000 the
// optimising compiler (TurboFan) is still at work, and its instructions are
// counted as the requests'. C=10 sends them over C connections at once
// (default 1: one at a time), as the bench's load does: with requests in
// flight together, more of what each allocates survives a scavenge, which one
// connection never shows. Node flags: BENCH_MFX_NODE_FLAGS as in the bench;
// CG_KEEP=DIR keeps the callgrind dumps (`callgrind_annotate DIR/cg.*`); CG_CACHE=1 simulates
// the caches too (slower) and prints their misses per request beside the instructions, for two
// builds whose instructions and times disagree (CG_LL=size,assoc,line sets the simulated last level,
// e.g. 2097152,16,64 for this machine's 2 MiB L2: valgrind otherwise takes the 32 MiB L3); CG_BRANCH=1
// simulates the branch predictor and prints its misses per request; CG_SERVE_ARGS adds
// flags to `mfx serve` (e.g. '--app bench/lib/events-app.mjs', the events bench's server).
//
// A bin named `peer:raw` or `peer:fastify` serves a blog workload with that hand-written peer of
// bench/baselines/ (under node's defaults, as the bench runs them), so mfx is counted beside it.
//
// The file routes (issue 18): 'files upload' (POST /api/files, a 1 MB part) or
// 'files download' (GET of a 1 MB file uploaded first), each server on a fresh
// `--files` directory; a bin named `raw` is bench/baselines/files-raw.ts.
// Fewer requests suffice there (WARM=20 N=20 is a few seconds per bin).
//
// The admin panel (issue 23): 'admin list page' (GET /admin/posts?page=N, 20 rows rendered
// from an in-process API call) and 'api list page' (GET /api/posts?limit=20&page=N), both on
// `mfx serve --admin --admin-unauthenticated`.
//
// The fields benchmark's tables (issue 17, bench/lib/fields.ts): 'fields list TABLE' (a list of 20)
// or 'fields read TABLE' (by id), TABLE one of profiles, localized_profiles, encrypted_profiles,
// plain_profiles, so that a kind of field is counted beside its plain twin.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { blogWorkload, seededBlog } from './lib/blog.js';
import { fieldsPath, seededFields } from './lib/fields.js';
import { buildServers, mfxNodeFlags } from './lib/process.js';
import { fixtureManifestDir } from '../test/support/fixtures.js';

const [only = 'GET /posts/:id', ...given] = process.argv.slice(2);
const bins = given.length ? given : [join(import.meta.dirname, '../compiler/dist/bin.js')];
const WARM = Number(process.env.WARM ?? 8000);
const N = Number(process.env.N ?? 300);
const C = Number(process.env.C ?? 1);

const files = /^files (upload|download)$/.exec(only)?.[1];
const panel = /^(admin|api) list page$/.exec(only)?.[1];
const fieldsWorkload = /^fields (list|read) (\w+)$/.exec(only);
const fields = fieldsWorkload ? await seededFields() : null;
const blog = files || fields ? null : await seededBlog();
const page = () => 1 + Math.floor(Math.random() * 50);
const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;
const panelWorkloads = [
  // The panel lives beside the API's prefix: its path is absolute (see send).
  { name: 'admin list page', method: 'GET', path: () => `/../admin/posts?page=${page()}` },
  { name: 'api list page', method: 'GET', path: () => `/posts?limit=20&page=${page()}` },
];
const workload = panel
  ? panelWorkloads.find((w) => w.name === only)
  : blog
    ? blogWorkload(blog, only)
    : fields
      ? {
          name: only,
          method: 'GET',
          path: fieldsPath(fieldsWorkload![1] as 'list' | 'read', fieldsWorkload![2]!, fields.ids),
        }
      : { name: only, method: files === 'upload' ? 'POST' : 'GET', path: '/files' };
if (!workload) throw new Error(`no workload matches "${only}"`);
const agent = new http.Agent({ keepAlive: true, maxSockets: C });
const BOUNDARY = 'mfx-bench-boundary-3f9a';
const upload = Buffer.concat([
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="report.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
  randomBytes(1024 * 1024),
  Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
]);
/** The key a download workload reads (uploaded once per server). */
let downloadKey = '';

function send(base: string, forceUpload = false, retried = false): Promise<number> {
  let path = new URL(base).pathname + (typeof workload!.path === 'function' ? workload!.path() : workload!.path);
  let body: string | Buffer | undefined = 'body' in workload! && workload.body ? JSON.stringify(workload.body()) : undefined;
  let method = workload!.method ?? 'GET';
  let headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
  if (files === 'upload' || forceUpload) [method, body, headers] = ['POST', upload, { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }];
  else if (files) path += `/${downloadKey}`;
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { method, agent, headers }, (res) => {
      let text = '';
      res.on('data', (d) => forceUpload && (text += d));
      res.on('end', () => {
        if (forceUpload) downloadKey = (JSON.parse(text) as { data: { key: string } }).data.key;
        resolve(res.statusCode!);
      });
    });
    // A keep-alive connection the server closed as idle just as a request went out on it (valgrind is
    // slow enough for node's 5 s keepAliveTimeout to pass between two requests): sent again once.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' && !retried ? send(base, forceUpload, true).then(resolve, reject) : reject(error)));
    req.end(body);
  });
}

/** Sends `n` requests over C connections, each connection sending its next when its last is answered. */
async function sendMany(url: string, n: number, when: string): Promise<void> {
  let left = n;
  const connection = async () => {
    while (left-- > 0) if ((await send(url)) >= 300) throw new Error(`${workload!.name} answered an error ${when}`);
  };
  await Promise.all(Array.from({ length: C }, connection));
}

/** The command line of one bin: mfx serving the blog, or (files) mfx or the raw peer on a fresh directory. */
async function commandOf(bin: string, dir: string): Promise<{ args: string[]; ready: RegExp; db?: string }> {
  if (bin === 'raw') {
    buildServers();
    return { args: [join(import.meta.dirname, '.generated/baselines/files-raw.js'), '--dir', dir, '--port', '0'], ready: /files-raw serving (http:\/\/\S+)/ };
  }
  const peer = /^peer:(\w+)$/.exec(bin)?.[1];
  if (peer && blog) {
    buildServers();
    const db = blog.copy();
    return { args: [join(import.meta.dirname, `.generated/baselines/${peer}.js`), '--db', `sqlite:${db}`, '--port', '0'], ready: new RegExp(`${peer} serving (http://\\S+)`), db };
  }
  const ready = /mfx serving (http:\/\/\S+)/;
  if (fields) {
    const db = join(dir, 'fields.db');
    copyFileSync(fields.file, db);
    return { args: [...mfxNodeFlags, bin, 'serve', '--manifest', fields.manifestDir, '--db', `sqlite:${db}`, '--port', '0', '--no-docs'], ready };
  }
  if (files) return { args: [...mfxNodeFlags, bin, 'serve', '--manifest', await fixtureManifestDir('blog'), '--db', 'sqlite::memory:', '--port', '0', '--no-docs', '--files', dir], ready };
  const db = blog!.copy();
  const admin = panel ? ['--admin', '--admin-unauthenticated'] : [];
  const extra = (process.env.CG_SERVE_ARGS ?? '').split(' ').filter(Boolean);
  return { args: [...mfxNodeFlags, bin, 'serve', '--manifest', blog!.manifestDir, '--db', `sqlite:${db}`, '--port', '0', '--no-docs', ...admin, ...extra], ready, db };
}

const CACHE = process.env.CG_CACHE === '1';
const BRANCH = process.env.CG_BRANCH === '1';

/** The events of a callgrind run per request: instructions (Ir), and with CG_CACHE the caches' misses. */
type Counts = Record<string, number>;

async function count(bin: string): Promise<Counts> {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-cg-'));
  const { args, ready, db } = await commandOf(bin, dir);
  const out = join(dir, `cg.${Date.now()}.out`);
  const cache = [...(CACHE ? ['--cache-sim=yes', ...(process.env.CG_LL ? [`--LL=${process.env.CG_LL}`] : [])] : []), ...(BRANCH ? ['--branch-sim=yes'] : [])];
  const child = spawn('valgrind', ['--tool=callgrind', ...cache, '--instr-atstart=no', `--callgrind-out-file=${out}`, process.execPath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const url: string = await new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      const m = ready.exec(String(d));
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(err.slice(-3000))));
  });
  if (files === 'download' && (await send(url, true)) !== 201) throw new Error('the upload a download reads failed');
  await sendMany(url, WARM, 'while warming up');
  spawnSync('callgrind_control', ['-i', 'on', String(child.pid)]);
  await sendMany(url, N, 'while counted');
  spawnSync('callgrind_control', ['-i', 'off', String(child.pid)]);
  spawnSync('callgrind_control', ['-d', String(child.pid)]);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  let totals: Counts = {};
  for (const file of readdirSync(dirname(out)).filter((f) => f.startsWith(`cg.`))) {
    const dump = readFileSync(join(dirname(out), file), 'utf8');
    const events = /^events: (.+)$/m.exec(dump)?.[1].split(' ') ?? ['Ir'];
    const values = /^totals: (.+)$/m.exec(dump)?.[1].split(' ').map(Number) ?? [];
    // The dump of the main thread is the one with the most instructions (Ir, the first event).
    if ((values[0] ?? 0) > (totals.Ir ?? 0)) totals = Object.fromEntries(events.map((e, i) => [e, values[i] ?? 0]));
    // CG_KEEP=DIR keeps the dumps there, for callgrind_annotate.
    if (process.env.CG_KEEP) copyFileSync(join(dirname(out), file), join(process.env.CG_KEEP, file));
    rmSync(join(dirname(out), file));
  }
  if (db) rmSync(db, { force: true });
  rmSync(dir, { recursive: true, force: true });
  return Object.fromEntries(Object.entries(totals).map(([event, total]) => [event, total / N]));
}

for (const bin of bins) {
  const counts = await count(bin);
  // I1mr, D1mr and D1mw: first-level misses (instruction fetch, data read, data write); ILmr, DLmr, DLmw: last-level.
  // Bc and Bi: conditional and indirect branches; Bcm and Bim: those the simulated predictor missed.
  const misses = CACHE || BRANCH ? `; per request: ${[...(CACHE ? ['I1mr', 'D1mr', 'D1mw', 'ILmr', 'DLmr', 'DLmw'] : []), ...(BRANCH ? ['Bc', 'Bcm', 'Bi', 'Bim'] : [])].map((e) => `${e} ${(counts[e] ?? 0).toFixed(0)}`).join(', ')}` : '';
  console.log(`${workload.name}  ${bin}: ${((counts.Ir ?? 0) / 1000).toFixed(1)} k instructions/request (${N} requests after ${WARM}${C > 1 ? `, ${C} at once` : ''})${misses}`);
}
agent.destroy();
