/**
 * The manifest: what `mfx build` writes and the runtime loads.
 *
 * This file is the contract between the compiler and the runtime. Everything in
 * it is plain JSON (no functions, no classes) so a manifest can be diffed,
 * committed and read by other tools. The compiler resolves every TypeScript
 * question (types, nullability, relations, table names) so the runtime never
 * needs the TypeScript compiler.
 */

/** Bumped whenever the shape below changes incompatibly. */
export const MANIFEST_FORMAT = 1;

export interface SourceLocation {
  /** Path relative to the manifest directory, with forward slashes. */
  file: string;
  line: number;
  col: number;
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * The storage and wire type of a field.
 *
 * | type        | TypeScript                     | SQLite  | PostgreSQL        | JSON      |
 * |-------------|--------------------------------|---------|-------------------|-----------|
 * | string      | string                         | TEXT    | text              | string    |
 * | number      | number                         | REAL    | double precision  | number    |
 * | integer     | Int                            | INTEGER | integer           | integer   |
 * | bigint      | bigint                         | INTEGER | bigint            | integer (safe range) |
 * | boolean     | boolean                        | INTEGER | boolean           | boolean   |
 * | timestamp   | Date                           | TEXT    | timestamptz       | ISO 8601 string |
 * | json_array  | T[] of scalars                 | TEXT    | jsonb             | array     |
 * | json_object | Record / object literal / unknown | TEXT | jsonb             | object    |
 * | localized   | Localized                      | TEXT    | jsonb             | see spec  |
 */
export type FieldType =
  | 'string'
  | 'number'
  | 'integer'
  | 'bigint'
  | 'boolean'
  | 'timestamp'
  | 'json_array'
  | 'json_object'
  | 'localized';

/** Element type of a `json_array` column when the compiler knows it. */
export type ScalarType = 'string' | 'number' | 'integer' | 'bigint' | 'boolean' | 'timestamp';

/** The base record columns, plus the two soft-delete markers. */
export type BaseColumn = 'id' | 'created_at' | 'updated_at' | 'deleted_at' | 'is_deleted';

export type LocaleMode = 'split' | 'resolve' | 'dynamic';

export interface FieldManifest {
  /** JSON name: the property name as written. */
  name: string;
  /** Column name: `db:` directive, else the JSON name. */
  column: string;
  /** `renamed_from:OLD`: the column's previous name, which the migration renames to `column` where the table still has it. */
  renamedFrom?: string;
  type: FieldType;
  /** Element type for `json_array` columns, when known. */
  items?: ScalarType;
  /** True when the TypeScript type includes `null` or the property is optional. */
  nullable: boolean;
  /** Set on the base record columns and the soft-delete marker. */
  base?: BaseColumn;
  /** JSDoc text of the property (without the @mfx lines). */
  description?: string;

  // Validation
  required: boolean;
  enum?: string[];
  min?: number;
  max?: number;
  minlen?: number;
  maxlen?: number;
  /** Applied when the field is absent on create; already cast to the field type. */
  default?: JsonValue;

  // Access
  readonly: boolean;
  immutable: boolean;
  writeonly: boolean;
  hidden: boolean;

  // Query
  filterable: boolean;
  sortable: boolean;
  searchable: boolean;

  // Storage
  unique: boolean;
  index: boolean;

  /** Key of the BelongsTo relation this field is the foreign key of. */
  relation?: string;
  file?: { maxSize?: number; accept?: string[]; autoDelete: boolean };
  /** `encrypted`, with `key:` (default `default`); `unique` adds the `<column>_hmac` column. */
  encrypted?: { keyId: string; unique: boolean };
  scheduled?:
    | { action: 'soft-delete' }
    | { action: 'hard-delete' }
    | { action: 'set-field'; field: string; to: JsonValue; from?: JsonValue };
  /** Set on `localized` fields. */
  locale?: { mode?: LocaleMode; defaultLocale?: string };

  source: SourceLocation;
}

export type OnDelete = 'cascade' | 'setNull' | 'restrict' | 'noAction';

export type RelationManifest =
  | {
      kind: 'belongsTo';
      /** Relation key used by `include` and dotted filters, e.g. `user`, `manager`. */
      key: string;
      target: string;
      /** JSON name and column of the foreign-key field on this model. */
      field: string;
      column: string;
      /** `noAction` when the declaration names none: the database refuses a hard delete of a parent that still has children. */
      onDelete: OnDelete;
      /** Companion property that holds the embedded parent (explicit relations only). */
      companion?: string;
      source: SourceLocation;
    }
  | {
      kind: 'hasMany';
      key: string;
      target: string;
      /** The child's BelongsTo that points back here: its key, field and column. */
      inverse: string;
      remoteField: string;
      remoteColumn: string;
      source: SourceLocation;
    }
  | {
      kind: 'manyToMany';
      key: string;
      target: string;
      /** The junction model and its two foreign-key columns. */
      through: string;
      throughTable: string;
      /** Junction column that references this model's id. */
      localColumn: string;
      /** Junction column that references the target's id. */
      targetColumn: string;
      source: SourceLocation;
    };

export interface IndexManifest {
  name: string;
  /** Column names. */
  columns: string[];
  unique: boolean;
}

export interface QueryLimits {
  maxFilters: number;
  maxOrGroups: number;
  maxOrGroupClauses: number;
  maxSorts: number;
  maxIncludes: number;
  /** Related records one relation of one record may carry (`include`); more are cut and the record marks the key in `_truncated`. */
  maxIncludePerParent: number;
  /** Related records one response may carry through `include`, every path and level counted as sent; more is 400. */
  maxIncludeRows: number;
  aggregateSelect: number;
  aggregateGroupBy: number;
  aggregateWhere: number;
  aggregateHaving: number;
  aggregateOrderBy: number;
}

export interface ModelOptions {
  softDelete: null | { field: string; column: string; type: 'timestamp' | 'boolean' };
  versioned: null | { diffOnly: boolean; required: boolean };
  singleton: boolean;
  headless: boolean;
  aggregate: boolean;
  export: boolean;
  maxExportRows: number;
  /** In the global search (`GET {prefix}/search`); absent in manifests written before it: false. */
  globalSearch?: boolean;
  /**
   * Served read-only: no create, update or delete routes, so those methods
   * answer 405. No directive sets it; the runtime's own models do (the job
   * status model). Absent: false.
   */
  readOnly?: boolean;
  optimisticLock: boolean;
  /** JSON name of the keyset pagination field, or null. */
  cursorField: string | null;
  indices: IndexManifest[];
  defaultLocale: string | null;
  localeMode: LocaleMode | null;
  /** Name of the adapter this model is routed to, or null for the default. */
  adapter: string | null;
  queryLimits: Partial<QueryLimits>;
}

/**
 * Statement templates for one dialect, every identifier quoted, every value
 * a placeholder. The DDL is the dialect's rendering of the model's table
 * spec (`modelTable` in `@mfx/runtime/sql`): the migration renders that same
 * spec itself, so it can add to an existing table only what it lacks.
 */
export interface SqlTemplates {
  /** CREATE TABLE IF NOT EXISTS, with defaults and constraints (SQLite: foreign keys too). */
  createTable: string;
  /** CREATE [UNIQUE] INDEX IF NOT EXISTS statements. */
  createIndexes: string[];
  /**
   * Statements that add the foreign-key constraints once every table exists
   * (PostgreSQL checks the referenced table at creation time), `NOT VALID`
   * so older rows are validated apart. Empty on SQLite, where references are
   * declared inline.
   */
  foreignKeys: string[];
  /**
   * INSERT of every stored column, in `insertColumns` order, RETURNING every
   * column: the statement of every create (keys a body lacks take the
   * field's default).
   */
  insert: string;
  insertColumns: string[];
  /** SELECT every column by id (soft-deleted rows excluded). */
  selectById: string;
  /** Hard DELETE by id. */
  deleteById: string;
  /** UPDATE of the soft-delete marker by id; null for models without soft delete. */
  softDeleteById: string | null;
  /**
   * Idempotent statements that create the full-text index over the searchable
   * fields (SQLite: an FTS5 external-content table kept in sync by triggers;
   * PostgreSQL: a GIN index on a tsvector). Empty when nothing is searchable.
   */
  search: string[];
  /** Fills a newly created full-text index from existing rows; null when not needed. */
  searchBackfill: string | null;
}

export type Dialect = 'sqlite' | 'postgres';

export interface ModelManifest {
  /** The interface name, e.g. `BlogPost`. */
  name: string;
  /** snake_case plural, or `table:`. */
  table: string;
  description?: string;
  /** Base columns first (id), then declared fields in order, then created_at, updated_at and the soft-delete marker. */
  fields: FieldManifest[];
  relations: RelationManifest[];
  options: ModelOptions;
  /** JSON Schemas of the create and update bodies; validators.js holds them precompiled. */
  schemas: { create: object; update: object };
  sql: Record<Dialect, SqlTemplates>;
  source: SourceLocation;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  compiler: { name: string; version: string };
  /** sha256 over the sorted source files and their contents. */
  sourceHash: string;
  /** Every source file the models came from, relative to the manifest directory, with its sha256. */
  sources: { file: string; sha256: string }[];
  /** Sorted by name. */
  models: ModelManifest[];
}

/** The name of the adapter that models without `adapter:NAME` (or with `adapter:default`) use: the one `app.setDB(adapter)` sets. */
export const DEFAULT_ADAPTER = 'default';

/**
 * Why `name` cannot name a database adapter (`adapter:NAME`, `app.setDB(adapter, { name })`), or null when it can:
 * a letter, then letters, digits, `_` or `-`, at most 63 characters. One rule for the compiler and the runtime.
 *
 * @example
 * adapterNameProblem('analytics'); // null
 * adapterNameProblem('my db');     // 'an adapter name starts with a letter ...'
 */
export function adapterNameProblem(name: unknown): string | null {
  if (typeof name === 'string' && /^[A-Za-z][A-Za-z0-9_-]{0,62}$/.test(name)) return null;
  return 'an adapter name starts with a letter, then letters, digits, _ or -, at most 63 characters (such as analytics or reports_pg)';
}

/** Name of the export in validators.js that validates a model's create or update body. */
export function validatorExportName(model: string, op: 'create' | 'update'): string {
  return `${model}__${op}`;
}

export { FIELD_ROLES, type FieldRole, type FieldRoles, fieldRoles } from './roles.js';
