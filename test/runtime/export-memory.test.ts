// A 200,000-row export keeps the server's memory flat: rows go from the database to the
// socket with backpressure, never all at once. The server is a process of its own
// (`mfx serve`), its resident set sampled from /proc while the file downloads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { after, it } from 'node:test';
import Database from 'better-sqlite3';
import { sqliteFileBackend } from '../support/backends.js';
import { cliDatabase, runMfx, type Running, servingUrl, startMfx } from '../support/cli.js';
import { fixtureManifestDir } from '../support/fixtures.js';
import { eachBackend, postgres } from '../support/suite.js';

const ROWS = 200_000;
/** Growth of the server's resident set over its warmed-up size that a download may cause; the rows are about 23 MB as CSV and several times that as objects. */
const ALLOWED_GROWTH_MB = 16;
/**
 * The server's old-generation cap: V8 otherwise lets garbage pile up to far
 * more than this before collecting, which would hide a leak as well as it
 * hides a flat line. A server that held the rows could not stay under it.
 */
const HEAP_MB = 64;

/** Resident set size of a process, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

/** Fills `readings` with ROWS rows in one statement. */
async function seed(backend: string, url: string, query: (sql: string) => Promise<unknown>): Promise<void> {
  const sensor = `'sensor-' || (i % 97) || '-${'x'.repeat(40)}'`;
  if (backend === 'postgres') {
    await query(
      `INSERT INTO readings (id, n, sensor, value, created_at, updated_at) SELECT 'r' || lpad(i::text, 6, '0'), i, ${sensor}, i * 0.5, now(), now() FROM generate_series(0, ${ROWS - 1}) AS s(i)`,
    );
    return;
  }
  const db = new Database(url.replace(/^sqlite:/, ''));
  try {
    db.exec(
      `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ${ROWS - 1}) ` +
        `INSERT INTO readings (id, n, sensor, value, created_at, updated_at) SELECT printf('r%06d', i), i, ${sensor}, i * 0.5, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM s`,
    );
  } finally {
    db.close();
  }
}

/** Downloads a URL, sampling the server's RSS on every chunk; the body's line count and the peak. */
function download(url: string, pid: number): Promise<{ lines: number; peak: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        let lines = 0;
        let bytes = 0;
        let peak = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
          peak = Math.max(peak, rssMb(pid));
        });
        res.on('end', () => resolve({ lines, peak, bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

eachBackend(
  'a 200,000-row export',
  (backend) => {
    const running: Running[] = [];
    after(async () => {
      for (const serve of running) await serve.stop();
    });

    it('streams with flat memory: under a 64 MB heap cap, repeated exports keep the resident set where the first left it', async () => {
      const db = await cliDatabase(backend);
      after(() => db.drop());
      const dir = await fixtureManifestDir('analytics');
      const migrated = await runMfx(['migrate', '--db', db.url, '--manifest', dir]);
      assert.equal(migrated.code, 0, migrated.stderr);
      await seed(backend.name, db.url, (sql) => db.query(sql));

      const serve = startMfx(['serve', '--port', '0', '--db', db.url, '--manifest', dir, '--log-level', 'warn', '--no-docs'], { env: { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` } });
      running.push(serve);
      const url = await servingUrl(serve);
      const pid = serve.child.pid!;
      // Warm up: one full export loads the code paths and lets the heap reach the size it works at.
      assert.equal((await download(`${url}/readings/export?sort=n:desc`, pid)).lines, ROWS + 1);
      const before = rssMb(pid);
      const peaks: number[] = [];
      for (let round = 0; round < 2; round++) {
        const { lines, peak, bytes } = await download(`${url}/readings/export?sort=n:desc`, pid);
        assert.equal(lines, ROWS + 1, 'the header and every row');
        assert.ok(bytes > 15 * 1024 * 1024, `${bytes} bytes`);
        peaks.push(peak);
      }
      const growth = Math.max(...peaks) - before;
      console.log(`# ${backend.name}: RSS ${before.toFixed(1)} MB after a first export, peaks ${peaks.map((p) => p.toFixed(1)).join(' and ')} MB during the next two (+${growth.toFixed(1)} MB)`);
      assert.ok(growth < ALLOWED_GROWTH_MB, `RSS grew by ${growth.toFixed(1)} MB during an export (allowed ${ALLOWED_GROWTH_MB} MB)`);
    });
  },
  [sqliteFileBackend, postgres],
);
