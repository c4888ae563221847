/**
 * What auth hooks tell the OpenAPI document. Authenticators and gates are
 * plain hooks; the ones that want to be documented carry an `AuthDoc` under
 * a symbol (set with `documentAuth`). The generator reads the hooks scoped
 * onto each (model, op) and derives `security`, the 401 and 403 responses
 * and `components.securitySchemes` from them, so a scope change shows up in
 * the document at once.
 */
import type { Hook } from '../pipeline/types.js';
import type { Schema, SecurityRequirement } from './types.js';

/** An OpenAPI security scheme object (http bearer, apiKey, ...). */
export type SecurityScheme = Schema & { type: 'http' | 'apiKey' | 'oauth2' | 'openIdConnect' | 'mutualTLS' };

export type AuthDoc =
  /** Verifies a credential: a missing or bad one is 401. */
  | { kind: 'authenticator'; scheme: string; definition: SecurityScheme }
  /** Refuses some callers with 403 (role, scope, block, tenancy); `scopes` are required OAuth-style scopes. */
  | { kind: 'gate'; scopes?: string[] }
  /** Lets requests without a credential through (the operation's security then also lists `{}`). */
  | { kind: 'anonymous' };

const authDocKey = Symbol.for('mfx.openapi.auth');

/**
 * Attaches OpenAPI metadata to an auth hook and returns the hook.
 *
 * @example
 * const auth = documentAuth(myJwtHook, { kind: 'authenticator', scheme: 'bearerAuth', definition: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } });
 * app.use('auth', auth, { ops: ['create', 'update', 'delete'] });
 */
export function documentAuth<H extends Hook>(hook: H, doc: AuthDoc): H {
  (hook as unknown as Record<symbol, AuthDoc>)[authDocKey] = doc;
  return hook;
}

export function authDocOf(hook: Hook): AuthDoc | undefined {
  return (hook as unknown as Record<symbol, AuthDoc | undefined>)[authDocKey];
}

/** The documented effect of the auth hooks on one operation. */
export interface OperationAuth {
  security: SecurityRequirement[] | null;
  /** 401 when an authenticator applies, 403 when a gate does. */
  statuses: ('401' | '403')[];
  schemes: Record<string, SecurityScheme>;
}

/**
 * Reads the hooks of one operation's Auth step.
 *
 * @example operationAuth(pipeline.hooksFor('auth', 'Post', 'create')).security // [{ bearerAuth: [] }]
 */
export function operationAuth(hooks: readonly Hook[]): OperationAuth {
  const schemes: Record<string, SecurityScheme> = {};
  const scopes: string[] = [];
  let gated = false;
  let anonymous = false;
  for (const hook of hooks) {
    const doc = authDocOf(hook);
    if (!doc) continue;
    if (doc.kind === 'authenticator') schemes[doc.scheme] = doc.definition;
    else if (doc.kind === 'gate') {
      gated = true;
      scopes.push(...(doc.scopes ?? []));
    } else anonymous = true;
  }
  const names = Object.keys(schemes);
  const statuses: ('401' | '403')[] = [];
  if (names.length > 0) statuses.push('401');
  if (gated) statuses.push('403');
  if (names.length === 0) return { security: null, statuses, schemes };
  const security: SecurityRequirement[] = names.map((name) => ({ [name]: [...new Set(scopes)] }));
  if (anonymous) security.push({});
  return { security, statuses, schemes };
}
