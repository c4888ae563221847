import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The double-submit cookie (DESIGN.md: Admin panel) and the form field that mirrors it. */
export const CSRF_COOKIE = 'mfx_admin_csrf';
export const CSRF_FIELD = '_csrf';

const TOKEN = /^[0-9a-f]{64}$/;

/** A fresh token: 32 random bytes as hex. */
export function newCsrfToken(): string {
  return randomBytes(32).toString('hex');
}

/** The value of one cookie of the request, or null. */
export function cookieOf(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The request's token when it carries a well-formed one; null means a new one must be issued. */
export function csrfTokenOf(req: IncomingMessage): string | null {
  const token = cookieOf(req, CSRF_COOKIE);
  return token !== null && TOKEN.test(token) ? token : null;
}

/** The Set-Cookie value of a token: HttpOnly, SameSite=Lax, scoped to the panel, Secure unless turned off. */
export function csrfCookie(token: string, path: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${token}; Path=${path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * Whether a mutating POST carries the same token in the cookie and in the
 * form field, compared in constant time.
 *
 * @example
 * if (!csrfMatches(req, form.get('_csrf'))) return forbidden();
 */
export function csrfMatches(req: IncomingMessage, submitted: string | null | undefined): boolean {
  const cookie = csrfTokenOf(req);
  if (cookie === null || typeof submitted !== 'string' || !TOKEN.test(submitted)) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(submitted));
}
