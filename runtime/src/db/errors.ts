import { ApiError } from '../errors/api-error.js';
import { AbortedError, TxBeginError, TxCommitError } from './adapter.js';

interface DriverError {
  code?: string;
  message?: string;
  // PostgreSQL
  table?: string;
  column?: string;
  detail?: string;
  constraint?: string;
}

/** Why a request's signal was aborted: the reason decides the status. */
export const ABORT_TIMEOUT = 'timeout';
export const ABORT_CLIENT_CLOSED = 'client-closed';

/**
 * Turns a driver error into the API's answer. Constraint violations keep the
 * table, column and the driver's detail (clients need them to fix the write);
 * anything else becomes a generic 500 `DB_ERROR`.
 */
export function mapDbError(error: unknown, op?: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof AbortedError) return new ApiError('TIMEOUT');
  if (error instanceof TxBeginError) return new ApiError('TX_BEGIN_ERROR');
  if (error instanceof TxCommitError) {
    const inner = mapDbError(error.cause, op);
    return inner.status < 500 ? inner : new ApiError('TX_COMMIT_ERROR');
  }
  const e = (error ?? {}) as DriverError;
  const code = e.code ?? '';
  if (code.startsWith('SQLITE_')) return mapSqlite(code, e.message ?? '', op);
  if (/^[0-9A-Z]{5}$/.test(code)) return mapPostgres(code, e, op);
  return new ApiError('DB_ERROR');
}

function mapSqlite(code: string, message: string, op?: string): ApiError {
  // "UNIQUE constraint failed: users.email" / "NOT NULL constraint failed: posts.title"
  const target = /constraint failed: ([^.\s,]+)\.([^\s,]+)/.exec(message);
  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return new ApiError('CONFLICT', `a record with this ${target?.[2] ?? 'value'} already exists`, {
        table: target?.[1] ?? null,
        column: target?.[2] ?? null,
        detail: message,
      });
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return op === 'delete'
        ? new ApiError('DELETE_RESTRICTED', 'the record is still referenced by other records; delete them first or declare onDelete:cascade or setNull on the relation')
        : new ApiError('FOREIGN_KEY_VIOLATION', 'a foreign key names a record that does not exist');
    case 'SQLITE_CONSTRAINT_NOTNULL':
    case 'SQLITE_CONSTRAINT_CHECK':
      return new ApiError('CONFLICT', 'the write violates a constraint', {
        table: target?.[1] ?? null,
        column: target?.[2] ?? null,
        detail: message,
      });
    default:
      return new ApiError('DB_ERROR');
  }
}

function mapPostgres(code: string, e: DriverError, op?: string): ApiError {
  const keyColumn = keyColumns(e.detail);
  switch (code) {
    case '23505':
      return new ApiError('CONFLICT', `a record with this ${keyColumn ?? 'value'} already exists`, {
        table: e.table ?? null,
        column: keyColumn ?? e.column ?? null,
        detail: e.detail ?? null,
      });
    case '23503':
      return op === 'delete' || /is still referenced/.test(e.detail ?? '')
        ? new ApiError('DELETE_RESTRICTED', 'the record is still referenced by other records; delete them first or declare onDelete:cascade or setNull on the relation')
        : new ApiError('FOREIGN_KEY_VIOLATION', 'a foreign key names a record that does not exist', {
            table: e.table ?? null,
            column: keyColumn ?? null,
            detail: e.detail ?? null,
          });
    case '23502':
    case '23514':
      return new ApiError('CONFLICT', 'the write violates a constraint', {
        table: e.table ?? null,
        column: e.column ?? null,
        detail: e.detail ?? null,
      });
    case '57014':
      return new ApiError('TIMEOUT');
    default:
      return new ApiError('DB_ERROR');
  }
}

/**
 * The column list of a PostgreSQL key detail (`Key ("select", b)=(...)`),
 * unquoted: reserved words and mixed case come back quoted.
 */
function keyColumns(detail: string | undefined): string | undefined {
  const list = /^Key \(((?:"(?:[^"]|"")*"|[^)"])+)\)=/.exec(detail ?? '')?.[1];
  if (list === undefined) return undefined;
  const names = list.match(/"(?:[^"]|"")*"|[^,\s]+/g) ?? [];
  return names.map((n) => (n.startsWith('"') ? n.slice(1, -1).replaceAll('""', '"') : n)).join(', ');
}
