// Issue 19, the export workload of bench/analytics.bench.ts: a 100,000-row CSV download of `readings` from the compiled `mfx serve`, beside a
// hand-written node:http + better-sqlite3 peer (bench/baselines/export-raw.ts) that runs the
// same statement and writes the same CSV. Rounds are interleaved; each reports the server's
// CPU per export and wall time, their ratios (goal: the peer's CPU / mfx's ≥ 0.9), and the
// rise of mfx's resident set over its idle size during the download.
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, loadManifest, openSqlite, silentLogger } from '@mfx/runtime';
import { fixtureManifestDir } from '../../test/support/fixtures.js';
import { cpuMs, median, memory } from './proc.js';
import { buildServers, type Child, startChild, startMfx } from './process.js';

const ROWS = 100_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const GOAL = 0.9;

/** The fixture's schema on a SQLite file with ROWS readings. */
async function seeded(manifestDir: string): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'mfx-bench-analytics-')), 'analytics.db');
  const app = createServer({ logger: silentLogger, handleSignals: false });
  app.register(loadManifest(manifestDir));
  const adapter = openSqlite(file, app.registry);
  app.setDB(adapter);
  await app.migrate();
  await adapter.raw(
    `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ${ROWS - 1}) ` +
      `INSERT INTO readings (id, n, sensor, value, created_at, updated_at) SELECT printf('r%06d', i), i, 'sensor-' || (i % 97), i * 0.25, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM s`,
  );
  await adapter.close();
  return file;
}

interface Download {
  cpuMs: number;
  wallMs: number;
  bytes: number;
  /** Highest resident set seen during the download, MB. */
  peakMb: number;
}

/** One export, the server's CPU and RSS sampled around and during it. */
function download(child: Child, path: string): Promise<Download> {
  const cpuBefore = cpuMs(child.pid);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(`${child.url}${path}`, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${path}: status ${res.statusCode}`));
        let bytes = 0;
        let peakMb = 0;
        let chunks = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (++chunks % 16 === 0) peakMb = Math.max(peakMb, memory(child.pid).rssMb);
        });
        res.on('end', () => resolve({ cpuMs: cpuMs(child.pid) - cpuBefore, wallMs: performance.now() - started, bytes, peakMb: Math.max(peakMb, memory(child.pid).rssMb) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The export workload of `npm run bench -- analytics`. */
export async function exportWorkload(): Promise<void> {
  const manifestDir = await fixtureManifestDir('analytics');
  const file = await seeded(manifestDir);
  buildServers();
  const mfx = await startMfx(manifestDir, `sqlite:${file}`);
  const peer = await startChild([join(import.meta.dirname, '../.generated/baselines/export-raw.js'), '--db', `sqlite:${file}`, '--port', '0'], /export-raw serving (http:\/\/\S+)/);
  try {
    // Warm-up: code paths loaded, caches filled, on both.
    for (const child of [mfx, peer]) await download(child, '/readings/export');
    const idleMb = memory(mfx.pid).rssMb;
    const runs: { mfx: Download; peer: Download }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved, the order alternating, so drift in the machine's load falls on both.
      const first = round % 2 === 0;
      const a = await download(first ? mfx : peer, '/readings/export');
      const b = await download(first ? peer : mfx, '/readings/export');
      runs.push(first ? { mfx: a, peer: b } : { mfx: b, peer: a });
    }
    const cpu = runs.map((r) => r.peer.cpuMs / r.mfx.cpuMs);
    const wall = runs.map((r) => r.peer.wallMs / r.mfx.wallMs);
    const peak = Math.max(...runs.map((r) => r.mfx.peakMb));
    const ratio = median(cpu);
    console.log(`\nGET /readings/export (CSV, ${ROWS} rows, ${(runs[0].mfx.bytes / 1024 / 1024).toFixed(1)} MB; peer ${(runs[0].peer.bytes / 1024 / 1024).toFixed(1)} MB), ${ROUNDS} interleaved rounds`);
    console.log(`  server CPU per export: mfx ${median(runs.map((r) => r.mfx.cpuMs)).toFixed(0)} ms, peer ${median(runs.map((r) => r.peer.cpuMs)).toFixed(0)} ms (${((median(runs.map((r) => r.mfx.cpuMs)) * 1000) / ROWS).toFixed(2)} µs per row for mfx)`);
    console.log(`  peer/mfx: CPU ${ratio.toFixed(3)} (${Math.min(...cpu).toFixed(3)}–${Math.max(...cpu).toFixed(3)}), wall time ${median(wall).toFixed(3)}   goal CPU ratio ≥ ${GOAL}: ${ratio >= GOAL ? 'met' : 'MISSED'}`);
    console.log(`  mfx RSS: ${idleMb.toFixed(1)} MB idle after the warm-up, peak ${peak.toFixed(1)} MB during the exports (+${(peak - idleMb).toFixed(1)} MB)`);
  } finally {
    await mfx.stop();
    await peer.stop();
  }
}
