import type { Row } from '../../db/adapter.js';
import { ApiError } from '../../errors/api-error.js';
import type { UniqueKeyInfo } from '../dialect.js';

/** `"name"`, inner quotes doubled: the same on both databases. */
export const quoteIdentifier = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

/** `'text'`, inner quotes doubled: for DEFAULT literals and catalogue names only, never user input. */
export const quoteString = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** The fields of a driver error the two databases' mappings read. */
export interface DriverError {
  code?: string;
  message?: string;
  // PostgreSQL
  table?: string;
  column?: string;
  detail?: string;
  constraint?: string;
}

/** Where a constraint violation happened, as the error details clients fix the write with. */
export interface ViolationDetails {
  table: string | null;
  column: string | null;
  detail: string | null;
}

/** A unique key (or primary key) already holds the value; `key` names its columns when the driver says. */
export const duplicateKey = (key: string | undefined, details: ViolationDetails): ApiError =>
  new ApiError('CONFLICT', `a record with this ${key ?? 'value'} already exists`, details);

/** A NOT NULL or CHECK constraint refused the write. */
export const constraintViolated = (details: ViolationDetails): ApiError => new ApiError('CONFLICT', 'the write violates a constraint', details);

/** A delete of a parent that children still reference. */
export const deleteRestricted = (): ApiError =>
  new ApiError('DELETE_RESTRICTED', 'the record is still referenced by other records; delete them first or declare onDelete:cascade or setNull on the relation');

/** A write naming a parent that does not exist. */
export const missingParent = (details?: ViolationDetails): ApiError =>
  new ApiError('FOREIGN_KEY_VIOLATION', 'a foreign key names a record that does not exist', details);

/**
 * Unique keys from catalogue rows of one column each (`table`, `name`,
 * `partial`, `column`), in key-column order: the shape both introspections
 * return; `kind` reads the row's own way of saying constraint or index.
 */
export function groupUniqueKeys(rows: readonly Row[], kind: (row: Row) => UniqueKeyInfo['kind']): UniqueKeyInfo[] {
  const keys = new Map<string, UniqueKeyInfo>();
  for (const row of rows) {
    const id = `${String(row.table)}\0${String(row.name)}`;
    let key = keys.get(id);
    if (!key) {
      key = { table: String(row.table), name: String(row.name), columns: [], partial: row.partial === true || row.partial === 1, kind: kind(row) };
      keys.set(id, key);
    }
    key.columns.push(String(row.column));
  }
  return [...keys.values()];
}
