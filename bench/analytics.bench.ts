// Issue 19: the read-side analytics routes over 100,000 rows on SQLite, beside a
// hand-written node:http peer running the same SQL (bench/baselines/analytics-raw.ts).
// Add a workload: one entry in WORKLOADS (and its statement in the peer's ROUTES).
import { randomUUID } from 'node:crypto';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fixtureManifestDir } from '../test/support/fixtures.js';
import { migratedSqlite, onFreshCopy } from './lib/blog.js';
import { type Contender, type Goal, runSuite, type Workload } from './lib/load.js';
import { type Child, mfxAccessLog, startMfx, startPeer } from './lib/process.js';
import { exportWorkload } from './lib/export-workload.js';

export const SALES = 100_000;
const REGIONS = 20;

const aggregate = (spec: unknown) => `/sales/aggregate?aggregate=${encodeURIComponent(JSON.stringify(spec))}`;

/** The measured workloads and mfx's goal over the peer (req/s ratio). */
const WORKLOADS: (Workload & { goal: Goal })[] = [
  {
    name: 'GET /sales/aggregate (count, sum, avg, max by region over 100,000 rows)',
    path: aggregate({
      select: [{ op: 'count' }, { op: 'sum', field: 'qty' }, { op: 'avg', field: 'price' }, { op: 'max', field: 'big' }],
      group_by: ['region'],
      order_by: [{ field: 'region' }],
    }),
    goal: { raw: 0.9 },
  },
];

/** The aggregates fixture migrated by mfx, then filled directly: SALES rows over REGIONS regions; `copy()` gives a fresh copy of the file. */
async function seeded(): Promise<{ manifestDir: string; copy(): string; remove(): void }> {
  const manifestDir = await fixtureManifestDir('aggregates');
  const { dir, file } = await migratedSqlite(manifestDir, 'sales.db');
  const db = new Database(file);
  const insert = db.prepare(
    'INSERT INTO sales (id, region, status, qty, price, cost, big, paid, "soldAt", rank, note, secret, tenant, tags, unit_count, created_at, updated_at, deleted_at) ' +
      'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, NULL)',
  );
  db.transaction(() => {
    for (let i = 0; i < SALES; i++) {
      const at = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
      insert.run(randomUUID(), `region-${String(i % REGIONS).padStart(2, '0')}`, i % 3 ? 'paid' : 'open', (i * 7) % 100, (i % 1000) / 8, i % 50, i * 1000, i % 2, at, i, `t${i % 4}`, '[]', i % 10, at, at);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  let copies = 0;
  return {
    manifestDir,
    remove: () => rmSync(dir, { recursive: true, force: true }),
    copy() {
      const target = join(dir, `run-${copies++}.db`);
      copyFileSync(file, target);
      return target;
    },
  };
}

export async function main(): Promise<void> {
  const seed = await seeded();
  // Each start gets a fresh copy of the seeded file, removed once its server stops.
  const on = (start: (db: string) => Promise<Child>) => onFreshCopy(() => seed.copy(), start);
  const contenders: Contender[] = [
    { name: 'mfx', label: `mfx (access log ${mfxAccessLog ? 'on' : 'off'})`, start: on((db) => startMfx(seed.manifestDir, db)) },
    { name: 'raw', label: 'raw node:http, same SQL', start: on((db) => startPeer('analytics-raw', db)) },
  ];
  try {
    await runSuite(contenders, WORKLOADS, Object.fromEntries(WORKLOADS.map((w) => [w.name, w.goal])));
  } finally {
    seed.remove();
  }
  // The 100,000-row CSV export beside its own hand-written peer, with mfx's RSS peak (bench/lib/export-workload.ts).
  await exportWorkload();
}
