/**
 * Every error code the API answers with, its status and its default message.
 *
 * Codes are stable: clients switch on them. Messages of 4xx errors explain
 * what was wrong and how to fix it; messages of 5xx errors are always the
 * generic text below, never a database's or a hook's own words. `when` is
 * the spec's condition, for the OpenAPI error responses.
 */
export const errorCatalogue = {
  UNAUTHORIZED: { status: 401, message: 'missing or invalid credentials', when: 'a credential is missing or invalid' },
  INVALID_CREDENTIALS: { status: 401, message: 'invalid credentials', when: 'a login action got bad credentials' },
  FORBIDDEN: { status: 403, message: 'forbidden', when: 'a role or scope gate refused the caller, an operation is blocked, or the tenant is undeterminable' },
  CSRF_TOKEN_MISSING: { status: 403, message: 'missing CSRF token', when: 'csrf(): an unsafe request without the CSRF header; nothing was written' },
  CSRF_COOKIE_MISSING: { status: 403, message: 'missing CSRF cookie', when: 'csrf(): an unsafe request without the CSRF cookie; nothing was written' },
  CSRF_TOKEN_MISMATCH: { status: 403, message: 'CSRF token does not match', when: 'csrf(): the CSRF header differs from the CSRF cookie; nothing was written' },
  CSRF_ORIGIN_REJECTED: { status: 403, message: 'request origin is not allowed', when: 'csrf(): an unsafe request whose Origin (or Referer) is not an allowed origin; nothing was written' },
  NOT_FOUND: { status: 404, message: 'not found', when: 'no such record (or not visible to the caller)' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'method not allowed', when: "the path exists but not with this method (see Allow); every method on a singleton's id path" },
  CONFLICT: { status: 409, message: 'the write conflicts with an existing record', when: 'a unique or similar constraint refused the write (details name table, column and detail), or an idempotent request is still running' },
  FOREIGN_KEY_VIOLATION: { status: 409, message: 'a referenced record does not exist', when: 'the write references a record that does not exist' },
  DELETE_RESTRICTED: { status: 409, message: 'the record still has dependent records', when: 'the record still has dependent records and no onDelete action' },
  PRECONDITION_FAILED: { status: 412, message: 'If-Match does not match the current ETag', when: 'If-Match does not match the current ETag; nothing was written' },
  BODY_TOO_LARGE: { status: 413, message: 'request body is too large', when: 'the request body is over the limit; nothing was written' },
  FILE_TOO_LARGE: { status: 413, message: 'file is too large', when: 'a file is over its max_size; nothing was written or stored' },
  EXPORT_TOO_LARGE: { status: 413, message: 'export exceeds the row limit', when: 'the export would exceed the row limit' },
  URI_TOO_LONG: { status: 414, message: 'request URI is too long', when: 'the request URI is over 8 KiB (answered before routing; past 64 KiB of request head the connection closes)' },
  EXPECTATION_FAILED: { status: 417, message: 'expectation failed', when: 'an Expect header other than 100-continue' },
  HEADERS_TOO_LARGE: { status: 431, message: 'request headers are too large', when: 'the request line and headers are over 64 KiB together; the connection closes' },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'range not satisfiable', when: "a file download's Range starts past the file's end (Content-Range names its size)" },
  FILE_TYPE_NOT_ALLOWED: { status: 415, message: 'file type is not allowed', when: "a file's declared type or content is not accepted by its field; nothing was written or stored" },
  VALIDATION_ERROR: { status: 422, message: 'validation failed', when: 'a directive rule failed; details list each bad field' },
  MISSING_LOCALE: { status: 422, message: 'a required locale is missing', when: 'a required locale key is absent or empty' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'Idempotency-Key was already used with a different body', when: 'the Idempotency-Key was already used with a different body' },
  INVALID_QUERY: { status: 400, message: 'invalid query', when: 'a malformed filter, sort, group index or other query parameter' },
  INVALID_FORMAT: { status: 400, message: 'invalid format', when: 'an export format other than csv or xlsx' },
  INVALID_AGGREGATE: { status: 400, message: 'invalid aggregate', when: 'an invalid aggregate spec, or a body sent to the aggregate route' },
  INVALID_JSON: { status: 400, message: 'request body must be a JSON object', when: 'the body is not a JSON object, not UTF-8, or has an unpaired surrogate escape' },
  EMPTY_BODY: { status: 400, message: 'request body is empty', when: 'the body is empty' },
  BODY_READ_ERROR: { status: 400, message: 'request body could not be read', when: 'the body could not be read' },
  MULTIPART_ERROR: { status: 400, message: 'multipart body could not be parsed', when: 'a multipart body could not be parsed' },
  BAD_REQUEST: {
    status: 400,
    message: 'bad request',
    when: 'the request is not valid HTTP/1.1 (broken chunked framing, both Content-Length and Transfer-Encoding, a NUL or other invalid character in a header, no Host header); the connection closes',
  },
  REQUEST_TIMEOUT: { status: 408, message: 'request timeout', when: 'the request head or body did not arrive in time; the connection closes' },
  RATE_LIMITED: { status: 429, message: 'too many requests', when: 'too many requests; retry after Retry-After seconds' },
  TIMEOUT: { status: 504, message: 'gateway timeout', when: "the request did not finish within QueryTimeout (or the database's statement timeout)" },
  METHOD_NOT_IMPLEMENTED: { status: 501, message: 'not implemented', when: 'the method is not one HTTP defines, or CONNECT (this server is not a proxy); the connection closes' },
  NO_STORAGE: { status: 501, message: 'not implemented', when: 'multipart bodies and file routes need file storage' },
  EXPORT_BUSY: { status: 503, message: 'service unavailable', when: 'maxConcurrentExports exports are running; retry after Retry-After seconds' },
  REALTIME_BUSY: { status: 503, message: 'service unavailable', when: 'realtime(): maxConnections streams are open, or the server is stopping; retry after Retry-After seconds' },
  XLSX_NOT_INSTALLED: { status: 501, message: 'not implemented', when: 'an XLSX export was asked for but the exceljs package is not installed' },
  DB_ERROR: { status: 500, message: 'internal server error', when: 'any other database error (redacted)' },
  INTERNAL: { status: 500, message: 'internal server error', when: 'a hook returned an error' },
  PANIC: { status: 500, message: 'internal server error', when: 'a hook or the framework panicked' },
  TX_BEGIN_ERROR: { status: 500, message: 'internal server error', when: 'a transaction could not begin' },
  TX_COMMIT_ERROR: { status: 500, message: 'internal server error', when: 'a transaction could not commit' },
  ENCRYPTION_NOT_CONFIGURED: { status: 500, message: 'internal server error', when: 'an encrypted field was used without a key provider; nothing was written' },
  ROLLUP_NO_TX: {
    status: 500,
    message: 'internal server error',
    when: "a write of a rollup's child model ran without a transaction (register transaction() for its create, update and delete); nothing was written",
  },
  JOB_ENQUEUE_FAILED: {
    status: 500,
    message: 'internal server error',
    when: "the write was committed, but the job it enqueues after the commit (a queue that cannot join the transaction, such as redisQueue) could not be enqueued: the record stands, the job does not exist (no job_statuses row)",
  },
  INVALID_JOB_TYPE: {
    status: 500,
    message: 'internal server error',
    when: "a hook or action enqueued a job whose type is not a job type name (dotted segments of letters, digits, '_' or '-'): the code's mistake, logged with the type and why; nothing is enqueued, and the transaction the request runs in rolls back",
  },
  DECRYPTION_ERROR: { status: 500, message: 'internal server error', when: 'a stored encrypted value fails authentication or names an unknown key id (logged with model, id and field, never the value)' },
} as const satisfies Record<string, { status: number; message: string; when: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** Every status the catalogue answers with. */
export type ErrorStatus = (typeof errorCatalogue)[ErrorCode]['status'];

/** Status 499: the client went away; nothing is written back. */
export const CLIENT_CLOSED_STATUS = 499;
