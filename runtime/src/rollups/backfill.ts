import type { App } from '../app.js';
import { type BackfillOptions, type BackfillReport, backfillParents } from './rollup.js';

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
export function backfillRollups(app: App, options: BackfillOptions = {}): Promise<BackfillReport> {
  return backfillParents(app.db, app.rollups(), options);
}
