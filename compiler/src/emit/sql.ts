/**
 * SQL statement templates per dialect, built by the runtime's SQL layer so
 * the compiler and the runtime can never disagree about SQL.
 */
import type { Dialect, SqlTemplates } from '@mfx/runtime/manifest';
import { buildSqlTemplates, dialects, type ModelShape } from '@mfx/runtime/sql';

const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

/**
 * Templates of one model for every dialect; `tables` maps every model name to its table.
 *
 * @example sqlTemplates(shape, tables).sqlite.insert // 'INSERT INTO "posts" (…) VALUES (?, …) RETURNING …'
 */
export function sqlTemplates(model: ModelShape, tables: ReadonlyMap<string, string>): Record<Dialect, SqlTemplates> {
  return Object.fromEntries(DIALECTS.map((dialect) => [dialect, buildSqlTemplates(model, tables, dialects[dialect])])) as Record<
    Dialect,
    SqlTemplates
  >;
}
