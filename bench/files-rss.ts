// What a server's memory does while a 1 MB file is downloaded (or uploaded) over
// and over: mfx serve --files DIR beside the hand-written peer
// (bench/baselines/files-raw.ts), each freshly started on a fresh directory,
// under BENCH_CONNECTIONS (10) connections for BENCH_DURATION_S (10 s) after
// BENCH_WARMUP_S (3 s). Prints RSS idle (after the first upload) and at its peak
// (VmHWM), and the peaks of V8's heap and of ArrayBuffer memory
// (process.memoryUsage(), sampled in the server by bench/lib/memory-probe.mjs).
//
//   node --conditions=mfx-source --import tsx bench/files-rss.ts [download|upload] [mfx-bin.js ...]
//
// Bins default to this tree's compiler/dist/bin.js (built first); `raw` is the peer.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { fixtureManifestDir } from '../test/support/fixtures.js';
import { memory } from './lib/proc.js';
import { buildServers, mfxNodeFlags, startChild } from './lib/process.js';

const [kind = 'download', ...given] = process.argv.slice(2);
const root = join(import.meta.dirname, '..');
const bins = given.length ? given : [join(root, 'compiler/dist/bin.js'), 'raw'];
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const probe = ['--import', join(root, 'bench/lib/memory-probe.mjs')];
const BOUNDARY = 'mfx-bench-boundary-3f9a';
const body = Buffer.concat([
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="report.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
  randomBytes(1024 * 1024),
  Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
]);
const contentType = `multipart/form-data; boundary=${BOUNDARY}`;

if (existsSync('/usr/bin/taskset')) spawnSync('/usr/bin/taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
buildServers();
const manifestDir = await fixtureManifestDir('blog');

function load(url: string, durationS: number) {
  return autocannon({
    url,
    connections: env('BENCH_CONNECTIONS', 10),
    duration: durationS,
    ...(kind === 'upload' ? { method: 'POST', headers: { 'content-type': contentType }, body } : {}),
  });
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

for (const bin of bins) {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-files-rss-'));
  const args =
    bin === 'raw'
      ? [...probe, join(root, 'bench/.generated/baselines/files-raw.js'), '--dir', dir]
      : [...mfxNodeFlags, ...probe, bin, 'serve', '--manifest', manifestDir, '--db', 'sqlite::memory:', '--port', '0', '--no-docs', '--files', dir];
  const child = await startChild(bin === 'raw' ? [...args, '--port', '0'] : args, /(?:mfx|files-raw) serving (http:\/\/\S+)/);
  try {
    const res = await fetch(`${child.url}/files`, { method: 'POST', headers: { 'content-type': contentType }, body: new Uint8Array(body) });
    const { data } = (await res.json()) as { data: { key: string } };
    const url = kind === 'upload' ? `${child.url}/files` : `${child.url}/files/${data.key}`;
    await new Promise((r) => setTimeout(r, 300));
    const idle = memory(child.pid).rssMb;
    await load(url, env('BENCH_WARMUP_S', 3));
    const result = await load(url, env('BENCH_DURATION_S', 10));
    const peak = memory(child.pid).peakMb;
    const samples = readFileSync(child.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('MEM '))
      .map((line) => JSON.parse(line.slice(4)) as NodeJS.MemoryUsage);
    const problems = readFileSync(child.logFile, 'utf8')
      .split('\n')
      .filter((line) => /"level":(40|50|60)/.test(line));
    for (const line of problems.slice(0, 3)) console.log(`  server: ${line.slice(0, 400)}`);
    const most = (field: keyof NodeJS.MemoryUsage) => mb(Math.max(...samples.map((s) => s[field])));
    console.log(
      `${kind} ${bin === 'raw' ? 'raw' : bin}: ${result.requests.average.toFixed(0)} req/s, ${result.non2xx} non-2xx, ${result.errors} errors (${result.timeouts} timeouts); RSS idle ${idle.toFixed(1)} MB, peak ${peak.toFixed(1)} MB (+${(peak - idle).toFixed(1)}); ` +
        `peaks: heapUsed ${most('heapUsed')} MB, heapTotal ${most('heapTotal')} MB, external ${most('external')} MB, arrayBuffers ${most('arrayBuffers')} MB`,
    );
  } finally {
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
