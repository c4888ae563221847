import type { Dialect as DialectName, FieldManifest, FieldType, JsonValue } from '../manifest/types.js';

/**
 * The few places where SQLite and PostgreSQL differ.
 *
 * Everything else (DDL, CRUD statements, the query language) is written once
 * against this interface. Identifiers only ever come from the registry and go
 * through `quote`; values only ever go through `param`.
 */
export interface SqlDialect {
  readonly name: DialectName;
  /** Quote an identifier that came from the registry. */
  quote(identifier: string): string;
  /** Placeholder for the n-th bound value (1-based). */
  param(n: number): string;
  /** Column type in DDL. */
  columnType(field: Pick<FieldManifest, 'type' | 'base'>): string;
  /** SQL literal of a compile-time constant, for DEFAULT clauses only. */
  literal(value: JsonValue, type: FieldType): string;
  /** Literal for a boolean in generated SQL (soft-delete flags, for example). */
  bool(value: boolean): string;
  /** Whether FOREIGN KEY constraints are declared inline (SQLite) or added afterwards (PostgreSQL). */
  readonly inlineForeignKeys: boolean;
  /**
   * Appended to a SELECT that must lock the rows it reads until the
   * transaction ends (` FOR UPDATE`). Empty on SQLite, whose write
   * transactions already hold the one writer (BEGIN IMMEDIATE).
   */
  readonly lockRowsClause: string;
  /**
   * Whether a failed statement poisons the whole transaction (PostgreSQL):
   * work that may fail without failing the request runs inside a SAVEPOINT.
   */
  readonly failedStatementAbortsTransaction: boolean;
  /** Column type of a timestamp the runtime writes itself (history, idempotency). */
  readonly timestampType: string;
}

const quoteIdentifier = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

const quoteString = (value: string): string => `'${value.replaceAll("'", "''")}'`;

export const sqlite: SqlDialect = {
  name: 'sqlite',
  quote: quoteIdentifier,
  param: () => '?',
  columnType(field) {
    switch (field.type) {
      case 'number':
        return 'REAL';
      case 'integer':
      case 'bigint':
      case 'boolean':
        return 'INTEGER';
      default:
        return 'TEXT';
    }
  },
  literal(value, type) {
    if (value === null) return 'NULL';
    if (type === 'boolean') return value ? '1' : '0';
    if (typeof value === 'number') return String(value);
    if (typeof value === 'string' && type !== 'json_array' && type !== 'json_object' && type !== 'localized') {
      return quoteString(value);
    }
    return quoteString(JSON.stringify(value));
  },
  bool: (value) => (value ? '1' : '0'),
  inlineForeignKeys: true,
  lockRowsClause: '',
  failedStatementAbortsTransaction: false,
  timestampType: 'TEXT',
};

export const postgres: SqlDialect = {
  name: 'postgres',
  quote: quoteIdentifier,
  param: (n) => `$${n}`,
  columnType(field) {
    switch (field.type) {
      case 'number':
        return 'double precision';
      case 'integer':
        return 'integer';
      case 'bigint':
        return 'bigint';
      case 'boolean':
        return 'boolean';
      case 'timestamp':
        return 'timestamptz';
      case 'json_array':
      case 'json_object':
      case 'localized':
        return 'jsonb';
      default:
        return 'text';
    }
  },
  literal(value, type) {
    if (value === null) return 'NULL';
    if (type === 'boolean') return value ? 'TRUE' : 'FALSE';
    if (typeof value === 'number') return String(value);
    if (type === 'json_array' || type === 'json_object' || type === 'localized') {
      return `${quoteString(JSON.stringify(value))}::jsonb`;
    }
    return quoteString(String(value));
  },
  bool: (value) => (value ? 'TRUE' : 'FALSE'),
  inlineForeignKeys: false,
  lockRowsClause: ' FOR UPDATE',
  failedStatementAbortsTransaction: true,
  timestampType: 'timestamptz',
};

export const dialects: Record<DialectName, SqlDialect> = { sqlite, postgres };
