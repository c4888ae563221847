// Issue 15: cold start of `mfx serve` as a user runs it (the compiled command
// under plain node, no --app) to the first 200 on /live, on SQLite, and the
// process's RSS then; the median of several fresh processes (goals: under
// 300 ms and 70 MB). The same command from the TypeScript sources through tsx
// (the repository's bin/mfx.mjs) is measured beside it for reference.
// `npm run bench -- startup`; STARTUP_RUNS sets the number of processes
// (default 11). Figures only; timings are never asserted.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureManifestDir } from '../test/support/fixtures.js';
import { cpuMs, median, memory } from './lib/proc.js';
import { buildServers, pinned } from './lib/process.js';

const root = join(import.meta.dirname, '..');
const RUNS = Number(process.env.STARTUP_RUNS ?? 11);
const GOAL_MS = 300;
const GOAL_MB = 70;

interface Sample {
  /** From spawn to the first 200 on /live, in ms. */
  ms: number;
  /** CPU time (user + system) the process used until then, in ms: less sensitive than the wall clock to a busy machine. */
  cpuMs: number;
  /** Resident set size right after that answer, in MB. */
  rssMb: number;
}

/**
 * Spawns `node args...` (pinned to CPU 0 like the other suites' servers),
 * waits for `mfx serving URL`, asks URL/live, and measures spawn → 200.
 */
async function startOnce(args: string[]): Promise<Sample> {
  const [command, prefix] = pinned ? ['/usr/bin/taskset', ['-c', '0', process.execPath]] : [process.execPath, []];
  const started = performance.now();
  const child = spawn(command, [...prefix, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        const match = /mfx serving (http:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]);
      });
      child.stderr.on('data', (chunk) => (output += chunk));
      child.once('exit', (code) => reject(new Error(`mfx serve exited with ${code}:\n${output}`)));
    });
    const live = await fetch(`${url}/live`);
    const ms = performance.now() - started;
    if (live.status !== 200) throw new Error(`/live answered ${live.status}`);
    await live.arrayBuffer();
    // The server itself (taskset execs node in place, so the pid is node's).
    return { ms, cpuMs: cpuMs(child.pid!), rssMb: memory(child.pid!).rssMb };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/** Median wall time of `node -e ''`, the floor of any start on this machine at this moment. */
function baseline(): number {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '']);
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function measure(label: string, args: (db: string) => string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-bench-startup-'));
  try {
    // The first start creates the tables; the measured ones start on the migrated file.
    const db = `sqlite:${join(dir, 'app.db')}`;
    const first = await startOnce(args(db));
    const samples: Sample[] = [];
    for (let i = 0; i < RUNS; i++) samples.push(await startOnce(args(db)));
    const times = samples.map((s) => s.ms);
    const cpu = samples.map((s) => s.cpuMs);
    const rss = samples.map((s) => s.rssMb);
    console.log(label);
    console.log(
      `  first 200 on /live: median ${median(times).toFixed(0)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}; ` +
        `the first start, creating the tables: ${first.ms.toFixed(0)} ms); CPU time until then: median ${median(cpu).toFixed(0)} ms`,
    );
    console.log(`  RSS then: median ${median(rss).toFixed(1)} MB (max ${Math.max(...rss).toFixed(1)})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  buildServers();
  const manifest = await fixtureManifestDir('blog');
  console.log(`mfx serve of the blog manifest on a SQLite file, ${RUNS} fresh processes each (goals: ${GOAL_MS} ms, ${GOAL_MB} MB)`);
  console.log(`(for scale: an empty node process takes ${baseline().toFixed(0)} ms here now)`);
  await measure('compiled (node compiler/dist/bin.js)', (db) => [join(root, 'compiler/dist/bin.js'), 'serve', '--manifest', manifest, '--db', db, '--port', '0']);
  await measure('from the sources through tsx (bin/mfx.mjs)', (db) => [join(root, 'bin/mfx.mjs'), 'serve', '--manifest', manifest, '--db', db, '--port', '0']);
}
