import type { Executor, QueryOptions } from '../db/adapter.js';
import { SqlBuilder } from '../sql/builder.js';
import { notDeleted } from '../sql/templates.js';
import type { RecordData } from './codec.js';
import type { ModelStore } from './model-store.js';

/**
 * The first live record whose field equals a value (a login by email, for
 * example). The field comes from the registry, the value is bound. Returns
 * every column, writeonly ones included: never send it as is.
 *
 * @example
 * const user = await findOneBy(app.store('User'), ctx.db, 'email', email);
 */
export async function findOneBy(store: ModelStore, db: Executor, field: string, value: unknown, options: QueryOptions = {}): Promise<RecordData | null> {
  const meta = store.model.field(field);
  if (!meta) throw new Error(`mfx: ${store.model.name} has no field ${field}`);
  const sql = new SqlBuilder(store.dialect).text('SELECT ');
  sql.join(store.model.columns.map((c) => c.column), ', ', (column, s) => s.id(column));
  sql.text(' FROM ').id(store.model.table).text(' WHERE ').id(meta.column).text(' = ').value(value);
  const live = notDeleted(store.model.manifest, store.dialect);
  if (live) sql.text(` AND ${live}`);
  sql.text(' LIMIT 1');
  const row = await db.get(sql.sql, sql.params, options);
  return row ? store.decode(row) : null;
}
