/**
 * Every error code the API answers with, its status and its default message.
 *
 * Codes are stable: clients switch on them. Messages of 4xx errors explain
 * what was wrong and how to fix it; messages of 5xx errors are always the
 * generic text below, never a database's or a hook's own words.
 */
export const errorCatalogue = {
  UNAUTHORIZED: { status: 401, message: 'missing or invalid credentials' },
  INVALID_CREDENTIALS: { status: 401, message: 'invalid credentials' },
  FORBIDDEN: { status: 403, message: 'forbidden' },
  NOT_FOUND: { status: 404, message: 'not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'method not allowed' },
  CONFLICT: { status: 409, message: 'the write conflicts with an existing record' },
  FOREIGN_KEY_VIOLATION: { status: 409, message: 'a referenced record does not exist' },
  DELETE_RESTRICTED: { status: 409, message: 'the record still has dependent records' },
  PRECONDITION_FAILED: { status: 412, message: 'If-Match does not match the current ETag' },
  BODY_TOO_LARGE: { status: 413, message: 'request body is too large' },
  FILE_TOO_LARGE: { status: 413, message: 'file is too large' },
  EXPORT_TOO_LARGE: { status: 413, message: 'export exceeds the row limit' },
  URI_TOO_LONG: { status: 414, message: 'request URI is too long' },
  FILE_TYPE_NOT_ALLOWED: { status: 415, message: 'file type is not allowed' },
  VALIDATION_ERROR: { status: 422, message: 'validation failed' },
  MISSING_LOCALE: { status: 422, message: 'a required locale is missing' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'Idempotency-Key was already used with a different body' },
  INVALID_QUERY: { status: 400, message: 'invalid query' },
  INVALID_AGGREGATE: { status: 400, message: 'invalid aggregate' },
  INVALID_JSON: { status: 400, message: 'request body must be a JSON object' },
  EMPTY_BODY: { status: 400, message: 'request body is empty' },
  BODY_READ_ERROR: { status: 400, message: 'request body could not be read' },
  MULTIPART_ERROR: { status: 400, message: 'multipart body could not be parsed' },
  RATE_LIMITED: { status: 429, message: 'too many requests' },
  TIMEOUT: { status: 504, message: 'gateway timeout' },
  NO_STORAGE: { status: 501, message: 'not implemented' },
  DB_ERROR: { status: 500, message: 'internal server error' },
  INTERNAL: { status: 500, message: 'internal server error' },
  PANIC: { status: 500, message: 'internal server error' },
  TX_BEGIN_ERROR: { status: 500, message: 'internal server error' },
  TX_COMMIT_ERROR: { status: 500, message: 'internal server error' },
  ENCRYPTION_NOT_CONFIGURED: { status: 500, message: 'internal server error' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** Status 499: the client went away; nothing is written back. */
export const CLIENT_CLOSED_STATUS = 499;
