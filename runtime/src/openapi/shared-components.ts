/**
 * Components every document holds: the error envelope, pagination meta, the
 * error responses by status, and the parameters all models share.
 */
import { errorCatalogue } from '../errors/catalogue.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../query/types.js';
import { type Parameter, type Response, ref, type Schema } from './types.js';

export const sharedSchemas: Record<string, Schema> = {
  Error: {
    type: 'object',
    description: 'The error envelope of every 4xx and 5xx answer (5xx messages are always generic).',
    properties: {
      error: {
        type: 'object',
        properties: {
          code: { type: 'string', enum: Object.keys(errorCatalogue), description: 'stable code; switch on it' },
          message: { type: 'string', description: 'what went wrong and how to fix it' },
          details: {
            description: 'VALIDATION_ERROR: one entry per bad field; CONFLICT and FOREIGN_KEY_VIOLATION: table, column and detail',
            anyOf: [{ type: 'array', items: ref('schemas', 'ValidationDetail') }, { type: 'object' }],
          },
        },
        required: ['code', 'message'],
        additionalProperties: false,
      },
    },
    required: ['error'],
    additionalProperties: false,
  },
  ValidationDetail: {
    type: 'object',
    properties: { field: { type: 'string' }, message: { type: 'string' } },
    required: ['field', 'message'],
  },
  PageMeta: {
    type: 'object',
    properties: {
      total: { type: 'integer', minimum: 0, description: 'rows matching the query' },
      page: { type: 'integer', minimum: 1 },
      limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
      pages: { type: 'integer', minimum: 0 },
      _dir: { type: 'string', enum: ['rtl'], description: 'set when the resolved locale is right-to-left' },
    },
    required: ['total', 'page', 'limit', 'pages'],
    additionalProperties: false,
  },
  CursorMeta: {
    type: 'object',
    description: 'Keyset pagination: pass next_cursor as `cursor` for the next page.',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
      next_cursor: { type: ['string', 'null'] },
      has_more: { type: 'boolean' },
      _dir: { type: 'string', enum: ['rtl'] },
    },
    required: ['limit', 'next_cursor', 'has_more'],
    additionalProperties: false,
  },
  RecordMeta: {
    type: 'object',
    properties: { _dir: { type: 'string', enum: ['rtl'], description: 'set when the resolved locale is right-to-left' } },
    additionalProperties: false,
  },
};

const errorContent = { 'application/json': { schema: ref('schemas', 'Error') } };
const errorResponse = (description: string): Response => ({ description, content: errorContent });

/** Error responses by status; operations reference the ones they can answer. */
export const errorResponses: Record<string, { name: string; response: Response }> = {
  '400': { name: 'BadRequest', response: errorResponse('INVALID_QUERY, INVALID_JSON, EMPTY_BODY or BODY_READ_ERROR: the request is malformed; the message says which part') },
  '401': { name: 'Unauthorized', response: errorResponse('UNAUTHORIZED: a credential is missing or invalid') },
  '403': { name: 'Forbidden', response: errorResponse('FORBIDDEN: a role or scope gate refused the caller, or the tenant is undeterminable') },
  '404': { name: 'NotFound', response: errorResponse('NOT_FOUND: no such record (or not visible to the caller)') },
  '405': { name: 'MethodNotAllowed', response: errorResponse('METHOD_NOT_ALLOWED: the path exists but not with this method; see Allow') },
  '409': { name: 'Conflict', response: errorResponse('CONFLICT, FOREIGN_KEY_VIOLATION or DELETE_RESTRICTED: the write conflicts with other records') },
  '412': { name: 'PreconditionFailed', response: errorResponse('PRECONDITION_FAILED: If-Match does not match the current ETag') },
  '413': { name: 'PayloadTooLarge', response: errorResponse('BODY_TOO_LARGE: the body is over the limit; nothing was written') },
  '414': { name: 'UriTooLong', response: errorResponse('URI_TOO_LONG: the request URI is over 8 KiB') },
  '422': { name: 'ValidationFailed', response: errorResponse('VALIDATION_ERROR (details list each bad field), MISSING_LOCALE or IDEMPOTENCY_KEY_REUSED') },
  '429': { name: 'RateLimited', response: errorResponse('RATE_LIMITED: too many requests; retry after Retry-After seconds') },
  '500': { name: 'InternalError', response: errorResponse('DB_ERROR, INTERNAL or PANIC, with a generic message') },
  '501': { name: 'NotImplemented', response: errorResponse('NO_STORAGE: multipart bodies and file routes need file storage') },
  '504': { name: 'Timeout', response: errorResponse('TIMEOUT: the request did not finish within QueryTimeout') },
};

export const sharedParameters: Record<string, Parameter> = {
  id: { name: 'id', in: 'path', required: true, description: 'the record id', schema: { type: 'string' } },
  page: { name: 'page', in: 'query', description: '1-based page number', schema: { type: 'integer', minimum: 1, default: 1 } },
  limit: {
    name: 'limit',
    in: 'query',
    description: `page size; default ${DEFAULT_LIMIT}, values above ${MAX_LIMIT} are clamped to ${MAX_LIMIT}`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  },
  locale: { name: 'locale', in: 'query', description: 'locale code for localized fields', schema: { type: 'string' } },
  ifMatch: {
    name: 'If-Match',
    in: 'header',
    description: 'ETag of the record as read (or `*`); a stale ETag answers 412 and writes nothing',
    schema: { type: 'string' },
  },
};
