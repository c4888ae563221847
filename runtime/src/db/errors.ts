import { ApiError } from '../errors/api-error.js';
import type { SqlDialect } from '../sql/dialect.js';
import { AbortedError, TxBeginError, TxCommitError } from './adapter.js';

/** Why a request's signal was aborted: the reason decides the status. */
export const ABORT_TIMEOUT = 'timeout';
export const ABORT_CLIENT_CLOSED = 'client-closed';

/**
 * Turns an error from the database layer into the API's answer: the
 * adapter's own errors here, driver errors by the dialect of the database
 * that raised them (constraint violations keep table, column and the
 * driver's detail; anything else is a generic 500 `DB_ERROR`).
 *
 * @example
 * catch (error) { throw mapDbError(error, ctx.db.dialect, ctx.op); }
 */
export function mapDbError(error: unknown, dialect: SqlDialect, op?: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof AbortedError) return new ApiError('TIMEOUT');
  if (error instanceof TxBeginError) return new ApiError('TX_BEGIN_ERROR');
  if (error instanceof TxCommitError) {
    const inner = mapDbError(error.cause, dialect, op);
    return inner.status < 500 ? inner : new ApiError('TX_COMMIT_ERROR');
  }
  return dialect.mapError(error, op);
}
