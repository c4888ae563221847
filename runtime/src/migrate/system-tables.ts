import { ConfigError } from '../errors/api-error.js';
import type { TableSpec } from '../sql/schema.js';

/**
 * The system tables one migration creates: each name once (features that
 * declare the same table, two idempotency hooks sharing a store say, must
 * declare it alike), and none named like a model's or a history table.
 *
 * @example
 * systemTablesOf([idempotencyTable(), idempotencyTable()], ['posts']) // one mfx_idempotency
 */
export function systemTablesOf(declared: readonly TableSpec[], modelTables: readonly string[]): TableSpec[] {
  const taken = new Set(modelTables);
  const byName = new Map<string, TableSpec>();
  for (const table of declared) {
    if (taken.has(table.name)) {
      throw new ConfigError(`the system table ${table.name} has the name of a model's table; give the feature that declares it another table name`);
    }
    const first = byName.get(table.name);
    if (!first) byName.set(table.name, table);
    else if (first !== table && JSON.stringify(first) !== JSON.stringify(table)) {
      throw new ConfigError(`the system table ${table.name} is declared twice with different columns or indexes; give one of the features that declare it another table name`);
    }
  }
  return [...byName.values()];
}
