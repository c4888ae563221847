/**
 * The migration as a plan: the statements that bring the database up to the
 * models, in order, and every drift finding, computed from the schema read
 * once (under the migration lock) without changing anything. `mfx migrate
 * --plan` prints it; the migration runs it. The planner follows what each
 * planned statement does to the schema (tables created, columns added or
 * renamed, indexes dropped and created), so a statement is planned only
 * when it changes something.
 */
import type { ColumnInfo, Executor } from '../db/adapter.js';
import { ConfigError } from '../errors/api-error.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { dropColumnStatement, liveDuplicatesQuery, renameColumnStatement } from '../sql/ddl.js';
import type { SchemaSnapshot, UniqueKeyInfo } from '../sql/dialect.js';
import { type ColumnSpec, constraintName, historyTable, type IndexSpec, type LiveMarker, modelTable, searchColumns, type TableSpec } from '../sql/schema.js';
import { columnFindings, type DriftFinding, note } from './findings.js';
import { systemTablesOf } from './system-tables.js';

/** One statement of a plan. */
export interface MigrationStep {
  sql: string;
  /**
   * Set on a statement that may fail without failing the migration
   * (validating rows written before a foreign key existed): it runs under
   * a savepoint, and on failure this finding is reported instead.
   */
  onFailure?: DriftFinding;
}

export interface MigrationPlan {
  /** In the order they run, in one transaction. Empty when the schema is up to date. */
  steps: MigrationStep[];
  createdTables: string[];
  /** `table.column` of every column added to an existing table. */
  addedColumns: string[];
  /** `table.old → new` of every column renamed (`renamed_from:`). */
  renamedColumns: string[];
  /** Differences the plan does not fix, and notes on what it does, in order. */
  findings: DriftFinding[];
}

/** What the plan leaves of one table. */
interface TableState {
  existed: boolean;
  /** Its columns once the plan ran this far: existing, renamed and added ones. */
  columns: ColumnInfo[];
  /** Its full-text index is gone (dropped for a rename, or with a rebuilt table): created again and refilled. */
  searchGone: boolean;
}

/** How the history entries of a versioned model follow a renamed field: its old and new JSON names. */
interface HistoryKeys {
  table: string;
  keys(column: ColumnSpec): { from: string; to: string } | null;
}

/**
 * Plans the migration of `models` (and the system tables features
 * declared) against the database `db` works in. Reads only: the schema,
 * whether live rows collide on a unique key about to bind them, whether a
 * full-text index is complete. Run it inside the migration's transaction,
 * so the schema cannot change between planning and running.
 *
 * @example
 * const plan = await adapter.migrationTransaction((tx) => planMigration(tx, app.registry.all()));
 * plan.steps.map((s) => s.sql); // ['CREATE TABLE IF NOT EXISTS "posts" (...)', ...]
 */
export async function planMigration(db: Executor, models: readonly ModelMeta[], systemTables: readonly TableSpec[] = []): Promise<MigrationPlan> {
  const names = new Map(models.map((m) => [m.name, m.table]));
  const planned = models.map((model) => ({ model, table: modelTable(model.manifest, names), history: historyTable(model.manifest) }));
  const { tables: system, indexesOf } = systemTablesOf(systemTables, planned.flatMap((p) => (p.history ? [p.table.name, p.history.name] : [p.table.name])));
  // Indexes features declare on the models' tables are created with the tables' own (tableIndexes).
  for (const p of planned) {
    p.table = withIndexes(p.table, indexesOf.get(p.table.name));
    if (p.history) p.history = withIndexes(p.history, indexesOf.get(p.history.name));
  }

  const planner = new Planner(db, await db.dialect.introspect(db));
  for (const { model, table, history } of planned) {
    const state = await planner.table(table, { addColumns: true, history: history ? historyKeysOf(model, history) : undefined });
    if (state.existed) planner.drift(`model ${model.name}`, table, state.columns);
    // A history table is created once and never altered.
    if (history) await planner.table(history, { addColumns: false });
    await planner.search(model, state);
  }
  for (const table of system) await planner.table(table, { addColumns: true });
  // PostgreSQL checks that referenced tables exist, so constraints come after every table.
  planner.foreignKeys([...planned.map((p) => p.table), ...system]);
  return planner.plan;
}

/** `table` with the `extra` indexes a feature declared on it; one named like an index of the table's own must be that index. */
function withIndexes(table: TableSpec, extra: readonly IndexSpec[] | undefined): TableSpec {
  if (!extra || extra.length === 0) return table;
  const added = extra.filter((index) => {
    const own = table.indexes.find((i) => i.name === index.name);
    if (own && JSON.stringify(own) !== JSON.stringify(index)) {
      throw new ConfigError(`the index ${index.name} declared on ${table.name} has the name of one of its model's indexes; give it another name`);
    }
    return !own;
  });
  return { ...table, indexes: [...table.indexes, ...added] };
}

/**
 * History entries keep values by field name: when a renamed column's field
 * had the old column's name (no `db:`), its entries move to the new name.
 * Not when another field of the model has that name now.
 */
function historyKeysOf(model: ModelMeta, history: TableSpec): HistoryKeys {
  return {
    table: history.name,
    keys(column) {
      const from = column.renamedFrom;
      const field = model.fields.find((f) => f.column === column.name);
      if (from === undefined || !field || field.renamedFrom !== from || from === field.name || model.fields.some((f) => f.name === from)) return null;
      return { from, to: field.name };
    },
  };
}

const keyOf = (table: string, name: string) => `${table}\0${name}`;

/** One plan in the making, against the schema read once, following what each planned statement changes. */
class Planner {
  readonly plan: MigrationPlan = { steps: [], createdTables: [], addedColumns: [], renamedColumns: [], findings: [] };
  /** Index name → its table, as the plan leaves them. */
  private readonly indexes: Map<string, string>;
  private uniqueKeys: UniqueKeyInfo[];
  /** Foreign keys added apart from their column → validated. */
  private readonly foreignKeyState: Map<string, boolean>;

  constructor(
    private readonly db: Executor,
    private readonly schema: SchemaSnapshot,
  ) {
    this.indexes = new Map(schema.indexes);
    this.uniqueKeys = schema.uniqueKeys.map((k) => ({ ...k, columns: [...k.columns] }));
    this.foreignKeyState = new Map(schema.foreignKeys.map((k) => [keyOf(k.table, k.name), k.validated]));
  }

  private get dialect() {
    return this.db.dialect;
  }

  private add(...statements: string[]): void {
    for (const sql of statements) this.plan.steps.push({ sql });
  }

  /** A declared column as the database will describe it once created. */
  private columnInfo(column: ColumnSpec): ColumnInfo {
    return { name: column.name, type: this.dialect.columnType(column.type).toLowerCase(), nullable: !column.primaryKey && column.nullable, hasDefault: column.default !== undefined };
  }

  /**
   * Creates the table, or renames (`renamed_from:`) and adds the columns it
   * lacks (when `addColumns`) and moves its unique keys to live rows; then
   * its missing indexes.
   */
  async table(table: TableSpec, options: { addColumns: boolean; history?: HistoryKeys }): Promise<TableState> {
    const existing = this.schema.tables.get(table.name);
    if (!existing) {
      this.add(this.dialect.createTable(table));
      this.plan.createdTables.push(table.name);
      this.createIndexes(table, new Set());
      return { existed: false, columns: table.columns.map((c) => this.columnInfo(c)), searchGone: false };
    }
    const state: TableState = { existed: true, columns: existing.map((c) => ({ ...c })), searchGone: false };
    let skipped = new Set<string>();
    if (options.addColumns) {
      const added = new Set<string>();
      /** New name → the name the database has before the plan runs. */
      const renamed = new Map<string, string>();
      const has = (name: string) => state.columns.some((c) => c.name === name);
      for (const column of table.columns) {
        const old = column.renamedFrom;
        if (has(column.name)) {
          if (old !== undefined && has(old)) this.plan.findings.push(this.bothExist(table.name, old, column.name));
          continue;
        }
        if (old !== undefined && has(old)) {
          this.rename(table, old, column, state, options.history);
          renamed.set(column.name, old);
          continue;
        }
        const addition = this.dialect.addColumn(table.name, column);
        this.add(...addition.statements);
        if (addition.warning) this.plan.findings.push(note(table.name, column.name, addition.warning));
        this.plan.addedColumns.push(`${table.name}.${column.name}`);
        state.columns.push(this.columnInfo(column));
        added.add(column.name);
      }
      skipped = await this.moveUniqueKeysToLiveRows(table, state, added, renamed);
    }
    this.createIndexes(table, skipped);
    return state;
  }

  private createIndexes(table: TableSpec, skipped: ReadonlySet<string>): void {
    for (const index of table.indexes) {
      if (skipped.has(index.name) || this.indexes.has(index.name)) continue;
      this.add(this.dialect.createIndex(table.name, index));
      this.indexes.set(index.name, table.name);
    }
  }

  private bothExist(table: string, old: string, name: string): DriftFinding {
    const q = this.dialect.quote;
    return {
      table,
      column: name,
      message: `${table}.${name} is declared renamed_from:${old} but both columns exist, so nothing was renamed and ${table}.${old} keeps its values`,
      fix: `move what you need from ${old} to ${name} (UPDATE ${q(table)} SET ${q(name)} = ${q(old)} copies every row), then drop the old column: ${dropColumnStatement(this.dialect, table, old)}`,
      breaking: false,
    };
  }

  /**
   * Renames column `from` to `column.name`, with what is named after it:
   * the indexes and foreign key the migration named `idx_`/`uq_`/`fk_<table>_<column>`,
   * a full-text index that names its columns (SQLite), and the history
   * entries recorded under the field's old name.
   */
  private rename(table: TableSpec, from: string, column: ColumnSpec, state: TableState, history: HistoryKeys | undefined): void {
    const t = table.name;
    const to = column.name;
    if (!state.searchGone) {
      const drop = this.dialect.dropSearchBeforeRename(t, this.schema);
      this.add(...drop);
      state.searchGone = drop.length > 0;
    }
    this.add(renameColumnStatement(this.dialect, t, from, to));
    this.plan.renamedColumns.push(`${t}.${from} → ${to}`);
    state.columns.find((c) => c.name === from)!.name = to;
    const marker = table.indexes.find((i) => i.liveOnly)?.liveOnly;
    for (const key of this.uniqueKeys) {
      if (key.table === t) key.columns = key.columns.map((c) => (c === from ? to : c));
    }
    for (const prefix of ['idx', 'uq']) {
      const [oldName, newName] = [constraintName(prefix, t, from), constraintName(prefix, t, to)];
      if (this.indexes.get(oldName) !== t || this.indexes.has(newName)) continue;
      const key = this.uniqueKeys.find((k) => k.table === t && k.name === oldName);
      // A partial unique index keeps its WHERE: only while the model still says which rows are live.
      if (key?.partial && !marker) continue;
      const shape: IndexSpec = { name: newName, columns: key ? key.columns : [to], unique: prefix === 'uq', ...(key?.partial && marker ? { liveOnly: marker } : {}) };
      this.add(...this.dialect.renameIndex(t, oldName, shape));
      this.indexes.delete(oldName);
      this.indexes.set(newName, t);
      if (key) key.name = newName;
    }
    const [oldKey, newKey] = [constraintName('fk', t, from), constraintName('fk', t, to)];
    const validated = this.foreignKeyState.get(keyOf(t, oldKey));
    if (validated !== undefined && !this.foreignKeyState.has(keyOf(t, newKey))) {
      this.add(this.dialect.renameConstraint(t, oldKey, newKey));
      this.foreignKeyState.delete(keyOf(t, oldKey));
      this.foreignKeyState.set(keyOf(t, newKey), validated);
    }
    const keys = history?.keys(column);
    if (history && keys && this.schema.tables.has(history.table)) {
      for (const json of ['diff', 'snapshot']) this.add(this.dialect.renameJsonKey(history.table, json, keys.from, keys.to));
    }
  }

  /**
   * Soft-delete models bind unique values among live rows: an existing
   * table's unique constraint (or full unique index) over the same columns
   * is dropped and the partial index created in its place. An index live
   * rows already violate is not created (a finding names it, and the old
   * key, if any, stays); the same when SQLite would have to rebuild a table
   * that differs from the model. Returns the names of the indexes left out.
   */
  private async moveUniqueKeysToLiveRows(table: TableSpec, state: TableState, added: ReadonlySet<string>, renamed: ReadonlyMap<string, string>): Promise<Set<string>> {
    const skipped = new Set<string>();
    const keys = this.uniqueKeys.filter((k) => k.table === table.name);
    const moves: { index: IndexSpec; old: UniqueKeyInfo[] }[] = [];
    for (const index of table.indexes) {
      if (!index.liveOnly || keys.some((k) => k.name === index.name && k.partial)) continue;
      const names = index.columns.map((c) => (typeof c === 'string' ? c : c.column));
      if (await this.liveDuplicates(table, index.liveOnly, names, added, renamed)) {
        skipped.add(index.name);
        this.plan.findings.push(
          note(
            table.name,
            names.join(', '),
            `${table.name}.${names.join(', ')} holds the same value on several live rows, so the unique index ${index.name} (unique among rows that are not soft-deleted) was not created and the value is not unique yet; fix those rows and migrate again`,
          ),
        );
        continue;
      }
      const replaced = keys.filter((k) => !k.partial && (k.name === index.name || (k.columns.length === names.length && k.columns.every((c, i) => c === names[i]))));
      moves.push({ index, old: replaced });
    }
    const old = [...new Map(moves.flatMap((m) => m.old).map((k) => [k.name, k])).values()];
    if (old.length === 0) return skipped;
    const dropped = this.dialect.dropUniqueKeys(table, old);
    const differences = dropped.rebuildsTable ? columnFindings(table, state.columns, this.dialect, 'the model') : [];
    if (differences.length > 0) {
      for (const { index } of moves) {
        skipped.add(index.name);
        this.plan.findings.push(
          note(
            table.name,
            null,
            `${table.name}: the unique key on ${index.columns.join(', ')} still binds soft-deleted rows: moving it to live rows means rebuilding the table (SQLite), which migration does only when the table matches the model, and ${differences.map((d) => d.message).join('; ')}`,
          ),
        );
      }
      return skipped;
    }
    this.add(...dropped.statements);
    const gone = new Set(old.map((k) => k.name));
    this.uniqueKeys = this.uniqueKeys.filter((k) => k.table !== table.name || !gone.has(k.name));
    for (const name of gone) this.indexes.delete(name);
    if (dropped.rebuildsTable) {
      // Every index and trigger of the table went with it.
      for (const [name, owner] of this.indexes) if (owner === table.name) this.indexes.delete(name);
      state.searchGone = true;
      this.plan.findings.push(
        note(
          table.name,
          null,
          `${table.name} was rebuilt to move its unique keys to live rows (SQLite cannot drop a column's UNIQUE): its rows were copied, its declared indexes and search triggers recreated; indexes or triggers created on it by hand are gone`,
        ),
      );
    }
    return skipped;
  }

  /**
   * Whether live rows share a value of `columns` once the plan's added
   * columns hold their default on every row: NULL never collides, and a
   * constant collides on every pair of rows that share the other columns.
   * The query reads the columns by the names they have before the plan runs.
   */
  private async liveDuplicates(table: TableSpec, marker: LiveMarker, columns: readonly string[], added: ReadonlySet<string>, renamed: ReadonlyMap<string, string>): Promise<boolean> {
    const spec = (name: string) => table.columns.find((c) => c.name === name);
    if (columns.some((c) => added.has(c) && (spec(c)?.default ?? null) === null)) return false;
    const existing = columns.filter((c) => !added.has(c)).map((c) => renamed.get(c) ?? c);
    // A marker column the plan adds marks every row live.
    const live = added.has(marker.column) ? null : { ...marker, column: renamed.get(marker.column) ?? marker.column };
    return (await this.db.raw(liveDuplicatesQuery(this.dialect, table.name, existing, live))).length > 0;
  }

  /** Columns of a model's existing table that differ from the model: kept as they are, and named. */
  drift(declarer: string, table: TableSpec, columns: readonly ColumnInfo[]): void {
    this.plan.findings.push(...columnFindings(table, columns, this.dialect, declarer));
  }

  /**
   * The full-text index, when it is missing or incomplete. When the table
   * has rows the index may not have seen (the index or one of its sync
   * triggers did not exist), it is refilled from the table once created.
   */
  async search(model: ModelMeta, state: TableState): Promise<void> {
    const columns = searchColumns(model);
    if (columns.length === 0) return;
    let missing = true;
    if (state.existed && !state.searchGone) {
      const check = this.dialect.searchMissingParts(model.table);
      if (check !== null) missing = Number((await this.db.raw(check))[0]?.missing ?? 0) > 0;
    }
    if (!missing) return;
    this.add(...this.dialect.searchStatements(model.table, columns));
    const backfill = this.dialect.searchBackfill(model.table);
    if (state.existed && backfill !== null) this.add(backfill);
  }

  /**
   * Adds the foreign keys the database lacks (where they are not declared
   * with their column), then validates every one not validated yet: older
   * rows that point at missing parents leave a finding naming table and
   * column, and the key applies to new writes until they are fixed.
   */
  foreignKeys(tables: readonly TableSpec[]): void {
    const pending: { table: string; column: ColumnSpec; name: string }[] = [];
    for (const table of tables) {
      for (const column of table.columns) {
        const key = column.references;
        if (!key) continue;
        const validated = this.foreignKeyState.get(keyOf(table.name, key.name));
        if (validated === undefined) {
          const statements = this.dialect.addForeignKey(table.name, column.name, key);
          this.add(...statements);
          if (statements.length > 0) pending.push({ table: table.name, column, name: key.name });
        } else if (!validated) {
          pending.push({ table: table.name, column, name: key.name });
        }
      }
    }
    for (const { table, column, name } of pending) {
      this.plan.steps.push({
        sql: this.dialect.validateForeignKey(table, name),
        onFailure: note(
          table,
          column.name,
          `${table}.${column.name} has rows whose parent does not exist; the foreign key applies to new writes only until they are fixed (the next migration validates it)`,
        ),
      });
    }
  }
}
