// The plan a database makes for a statement, as text the tests search for an index's name: SQLite's
// EXPLAIN QUERY PLAN (one `detail` line per step) and PostgreSQL's EXPLAIN (not ANALYZE: nothing runs,
// a DELETE deletes nothing). PostgreSQL plans with the statement's parameters, in a transaction of its
// own where `settings` apply (`SET LOCAL`, gone with it): a tiny table is read whole unless told not to.
import type { Adapter } from '@mfx/runtime';

/**
 * The plan of `sql` with `params` on `db`, one step a line.
 *
 * @example
 * const plan = await queryPlan(app.db, 'DELETE FROM t WHERE x <= ?', [1], { enable_seqscan: 'off' });
 * assert.match(plan, /ix_t_x/);
 */
export async function queryPlan(db: Adapter, sql: string, params: readonly unknown[] = [], settings: Record<string, string> = {}): Promise<string> {
  if (db.dialect.name === 'sqlite') {
    const rows = await db.raw(`EXPLAIN QUERY PLAN ${sql}`, [...params]);
    return rows.map((row) => String(row.detail)).join('\n');
  }
  return db.transaction(async (tx) => {
    for (const [name, value] of Object.entries(settings)) await tx.raw(`SET LOCAL ${name} = ${value}`);
    const rows = await tx.raw(`EXPLAIN ${sql}`, [...params]);
    return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
  });
}

/**
 * The definition of index `name` as the database keeps it (SQLite's `sqlite_master.sql`,
 * PostgreSQL's `pg_indexes.indexdef` in the adapter's schema), or null when there is none.
 */
export async function indexDefinition(db: Adapter, name: string): Promise<string | null> {
  const rows =
    db.dialect.name === 'sqlite'
      ? await db.raw(`SELECT sql AS definition FROM sqlite_master WHERE type = 'index' AND name = ?`, [name])
      : await db.raw(`SELECT indexdef AS definition FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ?`, [name]);
  return rows.length > 0 ? String(rows[0]!.definition) : null;
}
