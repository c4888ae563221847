// System calls per request of each blog server on one workload (SQLite), from `strace -c -f`
// attached to the running server: whether mfx asks the kernel for more than its peers do
// (WAL page writes, file locks, socket writes, futex wake-ups).
//
//   node --conditions=mfx-source --import tsx bench/syscalls.ts 'POST /posts' [seconds]
//
// strace slows every call it counts: read the counts, not the rate. Needs `strace` and the right to
// attach to the server, a sibling of strace (root, or kernel.yama.ptrace_scope 0).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { blogContenders, blogWorkload, seededBlog } from './lib/blog.js';
import { load } from './lib/load.js';
import { buildServers } from './lib/process.js';

const [only = 'POST /posts', secondsArg = '5'] = process.argv.slice(2);

/** Attaches `strace -c -f` to a process; resolves once it is attached, with a stop that resolves once the summary is written. */
async function traced(pid: number, out: string): Promise<() => Promise<void>> {
  const tracer = spawn('strace', ['-c', '-f', '-p', String(pid), '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => tracer.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let said = '';
    tracer.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('attached')) resolve();
    });
    tracer.once('exit', (code) => reject(new Error(`strace ended (${code}) before attaching: ${said.trim()}`)));
    tracer.once('error', (error) => reject(new Error(`strace could not start (${error.message}); install it (Debian: apt-get install strace)`)));
  });
  return () => {
    tracer.kill('SIGINT');
    return exited;
  };
}

/** The calls per request of each system call in a `strace -c` summary. */
function callsPerRequest(summary: string, requests: number): [string, number][] {
  return summary
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 5 && /^[0-9.]+$/.test(f[0]) && f[f.length - 1] !== 'total')
    .map((f) => [f[f.length - 1], Number(f[3]) / requests] as [string, number])
    .sort((a, b) => b[1] - a[1]);
}

buildServers();
const blog = await seededBlog();
const workload = blogWorkload(blog, only);
for (const contender of blogContenders(blog)) {
  const server = await contender.start();
  try {
    await load(server.url, workload, 3);
    const out = `${server.logFile}.strace`;
    const stop = await traced(server.pid, out);
    const { requests } = await load(server.url, workload, Number(secondsArg));
    await stop();
    const calls = callsPerRequest(readFileSync(out, 'utf8'), requests);
    console.log(`\n${contender.name} (${requests} requests): ${calls.reduce((sum, [, n]) => sum + n, 0).toFixed(2)} calls a request`);
    for (const [name, n] of calls) if (n >= 0.01) console.log(`  ${name.padEnd(16)} ${n.toFixed(3)}`);
  } finally {
    await server.stop();
  }
}
