import type { ColumnInfo, Executor } from '../db/adapter.js';
import type { ApiError } from '../errors/api-error.js';
import type { Dialect as DialectName, FieldType, JsonValue } from '../manifest/types.js';
import type { SqlBuilder } from './builder.js';
import { postgres } from './dialects/postgres.js';
import { sqlite } from './dialects/sqlite.js';
import type { ColumnSpec, ForeignKeySpec, IndexSpec, TableSpec } from './schema.js';

/** What the database holds, as migration compares it with the registry. */
export interface SchemaSnapshot {
  /** Table name → its columns. */
  tables: Map<string, ColumnInfo[]>;
  /**
   * Foreign keys added apart from their column (PostgreSQL): their table,
   * name, and whether the rows written before them were checked. Empty where
   * foreign keys are declared with their column (SQLite).
   */
  foreignKeys: { table: string; name: string; validated: boolean }[];
  /** Unique constraints and unique indexes (primary keys left out), their columns in order. */
  uniqueKeys: UniqueKeyInfo[];
  /** Every index of the schema by name (index names are unique in a schema), with its table. */
  indexes: Map<string, string>;
}

/** A unique key the database holds on a table. */
export interface UniqueKeyInfo {
  table: string;
  name: string;
  columns: string[];
  /** A partial index (a WHERE clause): unique among some rows only. */
  partial: boolean;
  /** `constraint`: declared with the table (a column's UNIQUE; SQLite's autoindex); `index`: CREATE UNIQUE INDEX. */
  kind: 'constraint' | 'index';
}

/** How unique keys are removed from an existing table. */
export interface DroppedKeys {
  statements: string[];
  /**
   * The table is recreated from its spec and its rows copied (SQLite cannot
   * drop a column's UNIQUE): the existing table must match the spec, and
   * every index and trigger of it is gone afterwards (recreate them).
   */
  rebuildsTable: boolean;
}

/** How one column is added to an existing table. */
export interface AddedColumn {
  statements: string[];
  /** Set when the column could not be added exactly as declared: what is missing and how to get it. */
  warning: string | null;
}

/**
 * The places where SQLite and PostgreSQL differ.
 *
 * Everything else (CRUD statements, the query language, migration) is
 * written once against this interface. Identifiers only ever come from the
 * registry and go through `quote`; values only ever go through `param` (or
 * `SqlBuilder.value`). DDL is rendered here from structured specs
 * (`sql/schema.ts`), never by editing SQL text.
 */
export interface SqlDialect {
  readonly name: DialectName;
  /** Quote an identifier that came from the registry. */
  quote(identifier: string): string;
  /** Placeholder for the n-th bound value (1-based). */
  param(n: number): string;
  /** Column type in DDL. */
  columnType(type: FieldType): string;
  /** SQL literal of a compile-time constant, for DEFAULT clauses only. */
  literal(value: JsonValue, type: FieldType): string;
  /** Literal for a boolean in generated SQL (soft-delete flags, for example). */
  bool(value: boolean): string;
  /**
   * Appended to a SELECT that must lock the rows it reads until the
   * transaction ends (` FOR UPDATE`). Empty on SQLite, whose write
   * transactions already hold the one writer (BEGIN IMMEDIATE).
   */
  readonly lockRowsClause: string;
  /**
   * Like lockRowsClause for a row whose key stays as it is while another of
   * its columns is rewritten (a rollup's parent): ` FOR NO KEY UPDATE` on
   * PostgreSQL, which serialises the writers of the row without waiting for
   * the KEY SHARE lock every child insert's foreign-key check takes on it
   * (FOR UPDATE would deadlock two concurrent child writes). Empty on SQLite.
   */
  readonly lockRowsNoKeyClause: string;
  /**
   * Like lockRowsClause for a batch that claims rows: ` FOR UPDATE SKIP
   * LOCKED` on PostgreSQL, so concurrent claimers split the rows instead of
   * waiting for each other, and rows a writer holds wait for a later batch.
   * Empty on SQLite (the write transaction holds the database).
   */
  readonly lockRowsSkipLockedClause: string;
  /**
   * A reference to a column (already quoted or a registry name) that the
   * planner is not to answer through an index: `+column` on SQLite, whose
   * planner has no statistics unless ANALYZE ran and takes a unary plus as
   * "not through an index"; the column itself on PostgreSQL, which plans by
   * its statistics (and has no unary plus for text).
   */
  unindexed(column: string): string;
  /**
   * Whether a sorted page is read in two steps in one statement: the ids of
   * its rows first (sorted, limited and offset), then those rows by id. On
   * SQLite the sorter copies every selected column of each row that could
   * still make the page (all the rows before it too), so a page of wide rows
   * sorted on an unindexed column took twice as long at page 21 (docs/
   * decisions.md, "Per-request cost, eighth round"). PostgreSQL's sort keeps
   * rows as they are and gained nothing.
   */
  readonly latePageRows: boolean;
  /**
   * Whether a failed statement poisons the whole transaction (PostgreSQL):
   * work that may fail without failing the request runs inside a SAVEPOINT.
   */
  readonly failedStatementAbortsTransaction: boolean;
  /** The API's answer to a driver error of this database (constraint violations keep table and column); `DB_ERROR` for anything else. */
  mapError(error: unknown, op?: string): ApiError;

  // Schema: DDL from structured specs, the database's own catalogue, the migration lock.

  /** CREATE TABLE IF NOT EXISTS of a table, with its column constraints. */
  createTable(table: TableSpec): string;
  /** CREATE [UNIQUE] INDEX IF NOT EXISTS of one index of `table`. */
  createIndex(table: string, index: IndexSpec): string;
  /** The statements that add `column` to the existing `table`, as close to its declaration as the database allows. */
  addColumn(table: string, column: ColumnSpec): AddedColumn;
  /**
   * Statements that add the foreign key of `column` to an existing table,
   * checked for new writes at once and for older rows by `validateForeignKey`.
   * Empty where foreign keys are declared with their column.
   */
  addForeignKey(table: string, column: string, key: ForeignKeySpec): string[];
  /** Checks the rows written before a foreign key was added; fails while some point at missing parents. */
  validateForeignKey(table: string, name: string): string;
  /**
   * Statements that remove `keys` (unique constraints or indexes of
   * `table`) inside the migration's transaction, so a unique index among
   * live rows can take their place.
   */
  dropUniqueKeys(table: TableSpec, keys: readonly UniqueKeyInfo[]): DroppedKeys;
  /**
   * Statements that give the index `from` of `table` the name and columns of
   * `to` after its column was renamed: PostgreSQL renames it (the index
   * already follows the column); SQLite, which cannot rename an index, drops
   * it and creates `to`.
   */
  renameIndex(table: string, from: string, to: IndexSpec): string[];
  /** Renames a constraint added apart from its column (PostgreSQL's foreign keys). */
  renameConstraint(table: string, from: string, to: string): string;
  /**
   * Statements that remove the full-text index of `table` before one of its
   * columns is renamed, when that index names the columns (SQLite's FTS5
   * table and its triggers; the migration creates it again and refills it).
   * Empty where the index follows the column (PostgreSQL) or there is none.
   */
  dropSearchBeforeRename(table: string, schema: SchemaSnapshot): string[];
  /**
   * An UPDATE that moves the value under key `from` to key `to` in the JSON
   * text of `column`, on the rows that have `from` and not `to` (history
   * entries recorded under a field's old name).
   */
  renameJsonKey(table: string, column: string, from: string, to: string): string;
  /**
   * The statements a person runs to give an existing column the declared
   * type and nullability (`current` is what the database holds). Migration
   * never runs them: converting values may fail or lose data, which is a
   * decision for the team.
   */
  alterColumnByHand(table: string, column: ColumnSpec, current: ColumnInfo): { statements: string[]; note: string | null };
  /** Reads the tables, columns and pending foreign keys of the schema `db` works in. */
  introspect(db: Executor): Promise<SchemaSnapshot>;
  /**
   * Run first in the migration's transaction: the lock that makes
   * migrations of one schema take turns, and no statement timeout for them.
   * Empty where opening the transaction already takes it (SQLite's BEGIN IMMEDIATE).
   */
  readonly migrationLock: readonly string[];
  /** Statements that create the full-text index of `columns` (idempotent). */
  searchStatements(table: string, columns: readonly string[]): string[];
  /** Fills a newly created full-text index from the rows already in `table`, or null when the index fills itself. */
  searchBackfill(table: string): string | null;
  /** A query answering `{ missing }`: how many parts of the full-text index of `table` do not exist yet (null: nothing to check). */
  searchMissingParts(table: string): string | null;

  // The query language: writers into a SqlBuilder, only where the two databases really differ.

  /** `<column>` matches a case-sensitive raw `like` pattern (`%`, `_` wildcards, no escape character). */
  likeSensitive(sql: SqlBuilder, column: string, pattern: string): void;
  /** `<column>` matches a case-insensitive raw `ilike` pattern. */
  likeInsensitive(sql: SqlBuilder, column: string, pattern: string): void;
  /** `<column>` matches case-insensitively a pattern whose literal `%`, `_` and `\` are escaped with a backslash. */
  likeInsensitiveEscaped(sql: SqlBuilder, column: string, pattern: string): void;
  /** `<column>` holds a JSON array with `element` in it. */
  jsonArrayHas(sql: SqlBuilder, column: string, element: unknown): void;
  /** `<column>` holds a JSON object whose `key` has `value` (compared as text). */
  jsonObjectHas(sql: SqlBuilder, column: string, key: string, value: string): void;
  /** Position (1-based, 0 when absent) of `needle` in `haystack`, both SQL expressions. */
  textPosition(sql: SqlBuilder, haystack: string, needle: string): void;
  /** `<column>` (a text column) is one of `values`, with one statement text whatever their number. */
  inTextValues(sql: SqlBuilder, column: string, values: readonly string[]): void;
  /**
   * The text of a localized column (runtime/src/locale): the value under the
   * key `locale` (bound), null when absent or the column is no map; or, with
   * `locale` null, the whole column as text.
   */
  localeText(sql: SqlBuilder, column: string, locale: string | null): void;
  /** The row `alias` of `table` matches every word of `words` in `columns`. */
  searchMatch(sql: SqlBuilder, table: string, alias: string, columns: readonly string[], words: readonly string[]): void;
  /**
   * Global search over one model: `SELECT id, rank, snippet` of the rows of
   * `table` (alias `alias`) whose searchable `columns` hold every word, best
   * first (`rank` higher is better: SQLite's bm25 negated, PostgreSQL's
   * ts_rank), ties by id, at most `limit`. `where` adds ` AND ...` conditions
   * on the alias (live rows, scope). `snippet` is plain text around the
   * matches, fragments joined by `…`.
   */
  searchRanked(sql: SqlBuilder, input: RankedSearch): void;
}

export { postgres, sqlite };

export const dialects: Record<DialectName, SqlDialect> = { sqlite, postgres };

/** What `SqlDialect.searchRanked` searches. */
export interface RankedSearch {
  table: string;
  alias: string;
  columns: readonly string[];
  words: readonly string[];
  limit: number;
  where(sql: SqlBuilder): void;
}
