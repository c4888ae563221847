/**
 * `csrf()`: double-submit-cookie protection for browser clients that
 * authenticate with cookies (DESIGN.md, "Validation and request-safety
 * hooks"). An Auth-step hook, so a refusal ends the request before its body
 * is read and nothing is written.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, ConfigError } from '../errors/api-error.js';
import { inProcessOf } from '../http/in-process.js';
import { describeHook, hookMeta, type RegisteredHook } from '../pipeline/hook-meta.js';
import { type Hook, OPS } from '../pipeline/types.js';

export interface CsrfOptions {
  /** Name of the token cookie (default `csrf_token`). */
  cookie?: string;
  /** Request header that echoes the token (default `X-CSRF-Token`). */
  header?: string;
  /** Origins (`https://app.example.com`) an unsafe request's Origin, or else Referer, must come from; unchecked when not given. */
  origins?: string[];
  /** Requests authenticated by `Authorization: Bearer` skip the check: no ambient credential to forge (default true). */
  exemptBearer?: boolean;
  /** Mark the cookie Secure (default true; turn off for plain-http development only). */
  secure?: boolean;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$/;
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_NAME = /^[A-Za-z0-9-]+$/;
/** 32 random bytes, hex. */
const TOKEN = /^[0-9a-f]{64}$/;

/** The value of cookie `name` in a Cookie header, or undefined. */
function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  const header = headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The origin (`scheme://host[:port]`) a request comes from: Origin, else Referer's; undefined when it says none. */
function requestOrigin(headers: IncomingHttpHeaders): string | undefined {
  const origin = headers.origin;
  if (typeof origin === 'string' && origin !== 'null') return origin.toLowerCase();
  if (typeof origin === 'string') return 'null';
  const referer = headers.referer;
  if (typeof referer !== 'string') return undefined;
  try {
    return new URL(referer).origin.toLowerCase();
  } catch {
    return 'null';
  }
}

const sameToken = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * CSRF protection by double-submit cookie, for the Auth step, registered
 * after the authenticator. A safe request (GET, HEAD, OPTIONS) without a
 * token cookie is given one: 32 random bytes in hex, `SameSite=Lax`,
 * `Secure` unless `secure: false`, not HttpOnly (the page's script reads it
 * and echoes it in the header), `Path` the API prefix. An unsafe request is
 * refused 403, in this order: an `Origin` (or, without one, a `Referer`)
 * outside `origins` is `CSRF_ORIGIN_REJECTED`; no header
 * `CSRF_TOKEN_MISSING`; no cookie `CSRF_COOKIE_MISSING`; a header that
 * differs from the cookie (compared in constant time) `CSRF_TOKEN_MISMATCH`.
 * A request that an authenticator accepted with `Authorization: Bearer` is
 * exempt unless `exemptBearer: false`. A request made in this process and
 * marked with `markInProcess` (the admin panel's calls, which check their
 * own double-submit token) is let through: no browser sent it.
 *
 * @example
 * app.use('auth', sessionAuth);
 * app.use('auth', csrf({ origins: ['https://app.example.com'] }));
 */
export function csrf(options: CsrfOptions = {}): Hook {
  const cookie = options.cookie ?? 'csrf_token';
  const header = (options.header ?? 'X-CSRF-Token').toLowerCase();
  const exemptBearer = options.exemptBearer ?? true;
  const secure = options.secure ?? true;
  if (!COOKIE_NAME.test(cookie)) throw new ConfigError(`csrf(): cookie "${cookie}" is not a cookie name (letters, digits and !#$%&'*+-.^_\`|~ only)`);
  if (!HEADER_NAME.test(header)) throw new ConfigError(`csrf(): header "${options.header}" is not a header name (letters, digits and dashes only)`);
  if (options.origins !== undefined && (!Array.isArray(options.origins) || options.origins.length === 0)) {
    throw new ConfigError('csrf(): origins, when given, lists the allowed origins, such as ["https://app.example.com"]; leave it out to skip the origin check');
  }
  for (const origin of options.origins ?? []) {
    if (!ORIGIN.test(origin)) throw new ConfigError(`csrf(): origin "${origin}" must be scheme://host[:port] with no path or trailing slash`);
  }
  const origins = options.origins ? new Set(options.origins.map((o) => o.toLowerCase())) : null;
  const headerName = options.header ?? 'X-CSRF-Token';
  let setCookie = '';

  const hook: Hook = (ctx, next) => {
    // A satellite's in-process call (the admin panel): no browser sent it, and the satellite checked the browser's request itself.
    if (inProcessOf(ctx.req)) return next();
    const headers = ctx.req.headers;
    const token = readCookie(headers, cookie);
    if (SAFE.has(ctx.req.method ?? 'GET')) {
      if (token === undefined || !TOKEN.test(token)) ctx.headers['Set-Cookie'] = `${cookie}=${randomBytes(32).toString('hex')}${setCookie}`;
      return next();
    }
    if (exemptBearer && ctx.identity && /^Bearer\s/i.test(headers.authorization ?? '')) return next();
    if (origins) {
      const from = requestOrigin(headers);
      if (from !== undefined && !origins.has(from)) {
        throw new ApiError('CSRF_ORIGIN_REJECTED', `requests from origin ${from} are not accepted; allowed origins: ${[...origins].join(', ')}`);
      }
    }
    const sent = headers[header];
    if (typeof sent !== 'string' || sent === '') throw new ApiError('CSRF_TOKEN_MISSING', `missing ${headerName} header: send the value of the ${cookie} cookie in it`);
    if (token === undefined || token === '') throw new ApiError('CSRF_COOKIE_MISSING', `missing ${cookie} cookie: make a GET request first to receive it, then send its value in ${headerName}`);
    if (!sameToken(sent, token)) throw new ApiError('CSRF_TOKEN_MISMATCH', `the ${headerName} header does not match the ${cookie} cookie`);
    return next();
  };

  return describeHook(hook, {
    role: 'other',
    label: 'csrf()',
    openapi: {
      ops: ['create', 'update', 'delete', 'action'],
      statuses: ['403'],
      headers: [{ name: headerName, description: `the value of the ${cookie} cookie (csrf()); required unless the request is authenticated with a bearer token` }],
    },
    setup({ entry, entries, models, pathPrefix }) {
      if (entry.step !== 'auth') throw new ConfigError(`csrf() belongs at the auth step, registered after the authenticator, not at ${entry.step}`);
      setCookie = `; Path=${pathPrefix || '/'}; SameSite=Lax${secure ? '; Secure' : ''}`;
      if (!exemptBearer) return;
      const mine = entries.indexOf(entry);
      // An authenticator that runs after csrf() on some route csrf() covers.
      const overlaps = (e: RegisteredHook) => (e.matches(null, 'action') && entry.matches(null, 'action')) || models.some((m) => OPS.some((op) => e.matches(m.name, op) && entry.matches(m.name, op)));
      const later = entries.find((e, i) => i > mine && e.step === 'auth' && e.position === entry.position && hookMeta(e.hook)?.role === 'authenticator' && overlaps(e));
      if (later) {
        throw new ConfigError(`csrf() is registered before ${hookMeta(later.hook)!.label}, so it cannot see a bearer caller to exempt; register csrf() after the authenticator`);
      }
    },
  });
}
