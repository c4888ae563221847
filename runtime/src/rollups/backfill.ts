import type { App } from '../app.js';
import type { Adapter } from '../db/adapter.js';
import { type BackfillOptions, type BackfillReport, backfillParents, type Rollup } from './rollup.js';

/**
 * Recomputes every rollup of the app on every parent row, in batches (each
 * batch one transaction that locks its parent rows), with progress after
 * each batch: for data written before a rollup was declared, or by hand.
 * The app has its models registered, its rollups declared and its database
 * set and initialised; it need not be started. `mfx rollups backfill` runs it.
 *
 * @example
 * await app.db.init(app.log);
 * const report = await backfillRollups(app, { batchSize: 1000, onProgress: (p) => console.log(`${p.model}: ${p.done}/${p.total}`) });
 */
export async function backfillRollups(app: App, options: BackfillOptions = {}): Promise<BackfillReport> {
  // Each parent's rollups run on the database that serves it (adapter:NAME); its children are on the same one.
  const byAdapter = new Map<Adapter, Rollup[]>();
  for (const rollup of app.rollups()) {
    const adapter = app.adapterOf(rollup.parent);
    byAdapter.set(adapter, [...(byAdapter.get(adapter) ?? []), rollup]);
  }
  if (byAdapter.size <= 1) return backfillParents(byAdapter.keys().next().value ?? app.db, [...byAdapter.values()].flat(), options);
  const report: BackfillReport = { models: [], complete: true };
  for (const [adapter, rollups] of byAdapter) {
    const part = await backfillParents(adapter, rollups, options);
    report.models.push(...part.models);
    // onProgress stopped it: the other databases are left as they are too.
    if (!part.complete) {
      report.complete = false;
      break;
    }
  }
  report.models.sort((a, b) => (a.model < b.model ? -1 : 1));
  return report;
}
