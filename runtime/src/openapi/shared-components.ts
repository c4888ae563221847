/**
 * Components every document holds: the error envelope, pagination meta, the
 * error responses by status, and the parameters all models share.
 */
import { errorCatalogue, type ErrorStatus } from '../errors/catalogue.js';
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

/** The component name of each error status: a status the catalogue gains without a name here does not compile. */
const responseNames: Record<ErrorStatus, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'RequestTimeout',
  409: 'Conflict',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  414: 'UriTooLong',
  415: 'UnsupportedMediaType',
  416: 'RangeNotSatisfiable',
  417: 'ExpectationFailed',
  422: 'ValidationFailed',
  429: 'RateLimited',
  431: 'RequestHeaderFieldsTooLarge',
  500: 'InternalError',
  501: 'NotImplemented',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/**
 * Error responses by status, generated from the error catalogue: each lists
 * the codes of its status with when they are answered, one paragraph each
 * (`NOT_FOUND: no such record ...`). Operations reference the ones they can
 * answer.
 */
export const errorResponses: Record<string, { name: string; response: Response }> = groupByStatus();

function groupByStatus(): Record<string, { name: string; response: Response }> {
  const lines = new Map<ErrorStatus, string[]>();
  for (const [code, entry] of Object.entries(errorCatalogue)) {
    const list = lines.get(entry.status) ?? [];
    list.push(`${code}: ${entry.when}`);
    lines.set(entry.status, list);
  }
  const out: Record<string, { name: string; response: Response }> = {};
  for (const [status, list] of [...lines].sort(([a], [b]) => a - b)) {
    out[status] = { name: responseNames[status], response: { description: list.join('\n\n'), content: errorContent } };
  }
  return out;
}

export const sharedParameters: Record<string, Parameter> = {
  id: { name: 'id', in: 'path', required: true, description: 'the record id', schema: { type: 'string' } },
  page: { name: 'page', in: 'query', description: '1-based page number', schema: { type: 'integer', minimum: 1, default: 1 } },
  limit: {
    name: 'limit',
    in: 'query',
    // No `maximum`: larger values are accepted and clamped, so a validating client must not refuse them.
    description: `page size; default ${DEFAULT_LIMIT}; any larger value is accepted and clamped to ${MAX_LIMIT} (meta.limit says what was used)`,
    schema: { type: 'integer', minimum: 1, default: DEFAULT_LIMIT },
  },
  locale: {
    name: 'locale',
    in: 'query',
    description:
      'locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it.',
    schema: { type: 'string' },
  },
  ifMatch: {
    name: 'If-Match',
    in: 'header',
    description: 'ETag of the record as read (or `*`); a stale ETag answers 412 and writes nothing',
    schema: { type: 'string' },
  },
};
