import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError } from '../errors/api-error.js';
import type { HttpMiddleware } from '../probes/probes.js';
import { describeMiddleware } from '../security/middleware-meta.js';

export interface CorsOptions {
  /** Exact origins (`https://app.example.com`), or `['*']` without credentials. */
  origins: string[];
  /** Send Access-Control-Allow-Credentials (never with a wildcard). */
  credentials?: boolean;
  /** Methods a preflight may ask for (default GET, HEAD, POST, PATCH, DELETE). */
  methods?: string[];
  /** Request headers a preflight may ask for. */
  headers?: string[];
  /** Response headers the browser may read. */
  exposeHeaders?: string[];
  /** Seconds a preflight answer may be cached (default 600). */
  maxAgeSeconds?: number;
}

const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$/;

/**
 * Cross-origin middleware for app.httpMiddleware: runs before routing and
 * Auth. An allowed origin gets CORS headers; a valid preflight from it is
 * answered 204 before the pipeline; any other origin gets no CORS headers.
 *
 * @example
 * app.httpMiddleware(cors({ origins: ['https://app.example.com'], credentials: true }));
 */
export function cors(options: CorsOptions): HttpMiddleware {
  const origins = options?.origins ?? [];
  if (!Array.isArray(origins) || origins.length === 0) throw new ConfigError('cors() needs explicit origins, e.g. { origins: ["https://app.example.com"] }');
  const wildcard = origins.includes('*');
  if (wildcard && options.credentials) throw new ConfigError('cors(): a wildcard origin with credentials is refused by browsers and unsafe; list the origins explicitly');
  if (wildcard && origins.length > 1) throw new ConfigError('cors(): "*" cannot be combined with explicit origins');
  for (const origin of origins) {
    if (origin !== '*' && !ORIGIN.test(origin)) throw new ConfigError(`cors(): origin "${origin}" must be scheme://host[:port] with no path or trailing slash`);
  }
  const allowed = new Set(origins.map((o) => o.toLowerCase()));
  const methods = (options.methods ?? ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE']).map((m) => m.toUpperCase());
  const headers = options.headers ?? ['Authorization', 'Content-Type', 'X-API-Key', 'X-Request-Id', 'Idempotency-Key', 'If-Match', 'X-Read-Primary', 'traceparent'];
  const allowedHeaders = new Set(headers.map((h) => h.toLowerCase()));
  const expose = (options.exposeHeaders ?? ['X-Request-Id', 'Retry-After', 'ETag', 'Idempotent-Replayed']).join(', ');
  const maxAge = String(options.maxAgeSeconds ?? 600);

  const middleware: HttpMiddleware = (req: IncomingMessage, res: ServerResponse, next) => {
    const origin = req.headers.origin;
    if (typeof origin !== 'string') return next();
    res.setHeader('Vary', 'Origin');
    if (!wildcard && !allowed.has(origin.toLowerCase())) return next();
    const allowOrigin = wildcard ? '*' : origin;
    const requested = req.headers['access-control-request-method'];
    if (req.method === 'OPTIONS' && typeof requested === 'string') {
      const askedHeaders = String(req.headers['access-control-request-headers'] ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean);
      // A preflight asking for a method or header we do not allow gets no CORS headers: the browser stops there.
      if (!methods.includes(requested.toUpperCase()) || askedHeaders.some((h) => !allowedHeaders.has(h))) return next();
      res.setHeader('Access-Control-Allow-Origin', allowOrigin);
      if (options.credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Allow-Methods', methods.join(', '));
      res.setHeader('Access-Control-Allow-Headers', headers.join(', '));
      res.setHeader('Access-Control-Max-Age', maxAge);
      // Answered before routing: the request id the router assigned still goes back.
      const requestId = (req as IncomingMessage & { requestId?: string }).requestId;
      if (requestId) res.setHeader('X-Request-Id', requestId);
      res.writeHead(204);
      res.end();
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', allowOrigin);
    if (options.credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
    if (expose) res.setHeader('Access-Control-Expose-Headers', expose);
    next();
  };
  return describeMiddleware(middleware, { label: 'cors()', controlsAccess: false });
}
