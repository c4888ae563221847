import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors/api-error.js';
import type { Context } from '../pipeline/context.js';
import { authFlags, describeHook, type HookEnvironment, hookMeta, type RegisteredHook, type SecurityScheme } from '../pipeline/hook-meta.js';
import type { Hook, Identity } from '../pipeline/types.js';

export interface AuthenticatorSpec {
  label: string;
  scheme: SecurityScheme;
  /** Whether the request carries this authenticator's credential at all. */
  present(req: IncomingMessage): boolean;
  /** Verifies the credential; throws an UNAUTHORIZED ApiError when it is bad. */
  authenticate(ctx: Context): Identity | Promise<Identity>;
  /** Text of the 401 when the credential is missing. */
  missing: string;
  /** Extra headers of the 401 (WWW-Authenticate). */
  challenge?: Record<string, string>;
  /** Problems production validation reports (a short secret). */
  production?: string[];
}

/**
 * A complete identity from the fields an authenticator knows.
 *
 * @example
 * identity({ userId: 'u1', roles: ['admin'], authMethod: 'session' });
 */
export function identity(fields: Partial<Identity>): Identity {
  return {
    userId: fields.userId ?? null,
    roles: fields.roles ?? [],
    claims: fields.claims ?? {},
    tenantId: fields.tenantId ?? null,
    identityType: fields.identityType ?? 'human',
    scopes: fields.scopes ?? [],
    sessionId: fields.sessionId ?? null,
    authMethod: fields.authMethod ?? null,
  };
}

/**
 * Builds an authenticator hook. With a credential it verifies it (a bad one
 * is always 401); without one it lets the request through when an earlier
 * hook already identified the caller, when allowAnonymous() ran, or when
 * another authenticator of the same route will read a credential the request
 * does carry; otherwise 401. Authenticators built with it count for
 * production validation and appear in the OpenAPI security schemes.
 *
 * @example
 * const session = authenticator({
 *   label: 'session()', scheme: { type: 'apiKey', in: 'header', name: 'X-Session' }, missing: 'missing X-Session header',
 *   present: (req) => req.headers['x-session'] !== undefined,
 *   authenticate: async (ctx) => identity(await sessions.lookup(ctx.req.headers['x-session'])),
 * });
 */
export function authenticator(spec: AuthenticatorSpec): Hook {
  let peers: RegisteredHook[] = [];
  const hook: Hook = async (ctx, next) => {
    if (ctx.identity) return next();
    if (!spec.present(ctx.req)) {
      if (authFlags(ctx).anonymousAllowed) return next();
      const model = ctx.model?.name ?? null;
      if (peers.some((p) => p.matches(model, ctx.op) && hookMeta(p.hook)!.present!(ctx.req))) return next();
      throw new ApiError('UNAUTHORIZED', spec.missing, undefined, spec.challenge);
    }
    ctx.identity = await spec.authenticate(ctx);
    await next();
  };
  return describeHook(hook, {
    role: 'authenticator',
    label: spec.label,
    scheme: spec.scheme,
    present: spec.present,
    production: spec.production,
    setup(env: HookEnvironment) {
      peers = env.entries.filter((e) => e.hook !== hook && e.step === 'auth' && hookMeta(e.hook)?.role === 'authenticator');
    },
  });
}
