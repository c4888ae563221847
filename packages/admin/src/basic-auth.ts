import { ApiError, type Hook, type Identity } from '@mfx/runtime';

export interface BasicAuthOptions {
  /**
   * Checks a user name and password; answers the caller's identity, or null
   * when they are wrong. Typically a lookup of the user model and
   * `verifyPassword`.
   */
  verify: (user: string, password: string) => Identity | null | Promise<Identity | null>;
  /** The realm the browser shows (default `admin`). */
  realm?: string;
}

/**
 * HTTP Basic authentication for the admin panel's browser users: an Auth-step
 * hook that reads `Authorization: Basic ...` and asks `verify`; without it, or
 * with wrong credentials, 401 with a `WWW-Authenticate` challenge, so the
 * browser asks for a user name and a password. Use it over HTTPS only.
 *
 * @example
 * app.plugin(admin({ auth: [basicAuth({ verify: async (email, password) => {
 *   const user = await findOneBy(app.store('User'), app.db, 'email', email);
 *   return user && (await verifyPassword(password, String(user.password))) ? identity({ userId: String(user.id), roles: [String(user.role)], authMethod: 'basic' }) : null;
 * } }), requireRole('admin')] }));
 */
export function basicAuth(options: BasicAuthOptions): Hook {
  if (!options || typeof options.verify !== 'function') throw new TypeError('basicAuth({ verify }) needs verify(user, password) => identity | null');
  const challenge = { 'WWW-Authenticate': `Basic realm="${(options.realm ?? 'admin').replace(/["\\]/g, '')}", charset="UTF-8"` };
  return async (ctx, next) => {
    if (ctx.identity) return next();
    const header = ctx.req.headers.authorization;
    const match = typeof header === 'string' ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
    if (!match) throw new ApiError('UNAUTHORIZED', 'sign in with your user name and password', undefined, challenge);
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const found = colon === -1 ? null : await options.verify(decoded.slice(0, colon), decoded.slice(colon + 1));
    if (!found) throw new ApiError('UNAUTHORIZED', 'the user name or the password is wrong', undefined, challenge);
    ctx.identity = found;
    await next();
  };
}
