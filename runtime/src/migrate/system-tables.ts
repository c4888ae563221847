import { ConfigError } from '../errors/api-error.js';
import type { IndexSpec, TableSpec } from '../sql/schema.js';

/** The declared tables of one migration, sorted out by `systemTablesOf`. */
export interface DeclaredTables {
  /** The system tables to create (or complete), each once. */
  tables: TableSpec[];
  /** Indexes declared on tables the models own (`tableIndexes`), by table name: the migration creates those the table lacks. */
  indexesOf: Map<string, IndexSpec[]>;
}

/**
 * The system tables one migration creates: each name once (features that
 * declare the same table, two idempotency hooks sharing a store say, must
 * declare it alike), and none named like a model's or a history table.
 * A declaration without columns (`tableIndexes`) adds indexes to the table
 * of that name, which must be one of `modelTables`: the runtime's partial
 * index on its own `job_statuses`, which the model directives cannot
 * declare.
 *
 * @example
 * systemTablesOf([idempotencyTable(), idempotencyTable()], ['posts']).tables // one mfx_idempotency
 */
export function systemTablesOf(declared: readonly TableSpec[], modelTables: readonly string[]): DeclaredTables {
  const taken = new Set(modelTables);
  const byName = new Map<string, TableSpec>();
  const indexesOf = new Map<string, IndexSpec[]>();
  for (const table of declared) {
    if (table.columns.length === 0) {
      addIndexes(indexesOf, table, taken);
      continue;
    }
    if (taken.has(table.name)) {
      throw new ConfigError(`the system table ${table.name} has the name of a model's table; give the feature that declares it another table name`);
    }
    const first = byName.get(table.name);
    if (!first) byName.set(table.name, table);
    else if (first !== table && JSON.stringify(first) !== JSON.stringify(table)) {
      throw new ConfigError(`the system table ${table.name} is declared twice with different columns or indexes; give one of the features that declare it another table name`);
    }
  }
  return { tables: [...byName.values()], indexesOf };
}

/** The indexes of a declaration without columns, added to those already declared on its table (each name once, declared alike). */
function addIndexes(indexesOf: Map<string, IndexSpec[]>, table: TableSpec, taken: ReadonlySet<string>): void {
  if (!taken.has(table.name)) {
    throw new ConfigError(`indexes are declared on the table ${table.name}, which no model of this database has; a system table needs its columns`);
  }
  const indexes = indexesOf.get(table.name) ?? [];
  for (const index of table.indexes) {
    const same = indexes.find((i) => i.name === index.name);
    if (!same) indexes.push(index);
    else if (same !== index && JSON.stringify(same) !== JSON.stringify(index)) {
      throw new ConfigError(`the index ${index.name} on ${table.name} is declared twice with different columns or conditions; give one of them another name`);
    }
  }
  indexesOf.set(table.name, indexes);
}
