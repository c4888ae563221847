import { createPublicKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ApiError, ConfigError } from '../errors/api-error.js';
import type { Hook } from '../pipeline/types.js';
import { authenticator, identity } from './authenticator.js';

/** The JWT signature algorithms bearer() verifies (never `none`). */
export type JwtAlgorithm = 'HS256' | 'HS384' | 'HS512' | 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512';
type Algorithm = JwtAlgorithm;

export interface BearerOptions {
  /** Shared secret for HS256/384/512 (at least 32 bytes in production). */
  secret?: string | Buffer;
  /** PEM public key (RSA for RS256/384/512, EC for ES256/384/512). */
  publicKey?: string | Buffer | KeyObject;
  /** Narrows the algorithms the key type allows; cannot widen them. */
  algorithms?: Algorithm[];
  /** Required `iss`. */
  issuer?: string | string[];
  /** Required `aud` (one of). */
  audience?: string | string[];
  /** Claim holding the tenant id (no tenant when unset). */
  tenantClaim?: string;
  /** Claim holding the scopes: a space-separated string or an array (default `scope`). */
  scopesClaim?: string;
  /** Claim holding the roles: an array or a space-separated string (default `roles`). */
  rolesClaim?: string;
  /** Seconds of clock skew accepted for exp and nbf (default 0). */
  clockToleranceSeconds?: number;
}

const HMAC: Algorithm[] = ['HS256', 'HS384', 'HS512'];
const RSA: Algorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const EC_BY_CURVE: Record<string, Algorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

/** The verification key and the only algorithms it may verify: never `none`, never HS with a public key. */
export function keyAndAlgorithms(options: BearerOptions): { key: string | Buffer | KeyObject; algorithms: Algorithm[] } {
  if (options.secret !== undefined && options.publicKey !== undefined) throw new ConfigError('bearer() takes either secret or publicKey, not both');
  let key: string | Buffer | KeyObject;
  let allowed: Algorithm[];
  if (options.secret !== undefined) {
    const text = options.secret.toString();
    if (text.length === 0) throw new ConfigError('bearer({ secret }) got an empty secret; pass a random string of at least 32 bytes');
    if (text.includes('-----BEGIN')) throw new ConfigError('bearer({ secret }) got a PEM key; pass a public key as publicKey (a key used as an HMAC secret invites algorithm confusion)');
    key = options.secret;
    allowed = HMAC;
  } else if (options.publicKey !== undefined) {
    if (/PRIVATE KEY/.test(options.publicKey.toString())) throw new ConfigError('bearer({ publicKey }) got a private key; pass the public half (the server only verifies)');
    let object: KeyObject;
    try {
      object = typeof options.publicKey === 'object' && 'asymmetricKeyType' in options.publicKey ? options.publicKey : createPublicKey(options.publicKey as string | Buffer);
    } catch (error) {
      throw new ConfigError(`bearer({ publicKey }) is not a readable public key: ${(error as Error).message}`);
    }
    if (object.type !== 'public') throw new ConfigError('bearer({ publicKey }) got a private key; pass the public half');
    const type = object.asymmetricKeyType;
    if (type === 'rsa') allowed = RSA;
    else if (type === 'rsa-pss') allowed = ['PS256', 'PS384', 'PS512'];
    else if (type === 'ec') {
      const curve = object.asymmetricKeyDetails?.namedCurve ?? '';
      const alg = EC_BY_CURVE[curve];
      if (!alg) throw new ConfigError(`bearer({ publicKey }) uses EC curve ${curve || 'unknown'}; supported curves are P-256, P-384 and P-521`);
      allowed = [alg];
    } else throw new ConfigError(`bearer({ publicKey }) is a ${type} key; supported keys are RSA and EC (P-256, P-384, P-521)`);
    key = object;
  } else {
    throw new ConfigError('bearer() needs a secret (HS256/384/512) or a publicKey (RS, PS or ES)');
  }
  if (options.algorithms) {
    const refused = options.algorithms.filter((a) => !allowed.includes(a));
    if (refused.length > 0) throw new ConfigError(`bearer() algorithms ${refused.join(', ')} do not fit the key; this key allows ${allowed.join(', ')}`);
    if (options.algorithms.length === 0) throw new ConfigError('bearer() algorithms is empty; leave it out to allow every algorithm the key supports');
    allowed = options.algorithms;
  }
  return { key, algorithms: allowed };
}

/** `roles` as an array or a space-separated string. */
function listClaim(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  return [];
}

function explain(error: unknown): string {
  if (error instanceof jwt.TokenExpiredError) return `the bearer token expired at ${error.expiredAt.toISOString()}; sign in again`;
  if (error instanceof jwt.NotBeforeError) return `the bearer token is not valid before ${error.date.toISOString()}`;
  const message = (error as Error).message ?? '';
  if (message === 'jwt malformed' || message === 'jwt must be provided' || message.startsWith('invalid token') || message.startsWith('Unexpected token')) {
    return 'the bearer token is malformed: expected three base64url segments header.payload.signature';
  }
  if (message === 'invalid algorithm' || message.startsWith('jwt signature is required')) return 'the bearer token is signed with an algorithm this server does not accept';
  if (message === 'invalid signature') return 'the bearer token signature is invalid';
  if (message.startsWith('jwt issuer invalid')) return 'the bearer token has the wrong issuer';
  if (message.startsWith('jwt audience invalid')) return 'the bearer token has the wrong audience';
  return 'the bearer token is invalid';
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer' };

/**
 * Bearer JWT authenticator for the Auth step. Allowed algorithms follow the
 * key: HS256/384/512 for a secret, RS and PS for an RSA key, ES for an EC key.
 * Claims: `sub` user id, `roles`, `scope`, `jti` session id, the configured
 * tenant claim; every claim is kept in `identity.claims`.
 *
 * @example
 * app.use('auth', bearer({ secret: process.env.JWT_SECRET!, issuer: 'blog' }), { models: ['Post'], ops: ['create', 'update', 'delete'] });
 */
export function bearer(options: BearerOptions): Hook {
  const { key, algorithms } = keyAndAlgorithms(options);
  const verifyOptions: jwt.VerifyOptions & { complete?: false } = {
    algorithms,
    clockTolerance: options.clockToleranceSeconds ?? 0,
  };
  if (options.issuer !== undefined) verifyOptions.issuer = options.issuer as string | [string, ...string[]];
  if (options.audience !== undefined) verifyOptions.audience = options.audience as string | [string, ...string[]];
  const scopesClaim = options.scopesClaim ?? 'scope';
  const rolesClaim = options.rolesClaim ?? 'roles';

  return authenticator({
    label: 'bearer()',
    scheme: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    present: (req) => req.headers.authorization !== undefined,
    missing: 'missing bearer token: send Authorization: Bearer <token>',
    challenge: CHALLENGE,
    production:
      options.secret !== undefined && Buffer.byteLength(options.secret) < 32
        ? [`bearer() secret is ${Buffer.byteLength(options.secret)} bytes; use at least 32 random bytes (HS256 is only as strong as its secret)`]
        : [],
    authenticate(ctx) {
      const header = ctx.req.headers.authorization ?? '';
      const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
      if (!match) throw new ApiError('UNAUTHORIZED', 'the Authorization header must be "Bearer <token>"', undefined, CHALLENGE);
      let claims: jwt.JwtPayload;
      try {
        const payload = jwt.verify(match[1], key as jwt.Secret, verifyOptions);
        if (typeof payload === 'string') throw new Error('invalid token');
        claims = payload;
      } catch (error) {
        throw new ApiError('UNAUTHORIZED', explain(error), undefined, CHALLENGE);
      }
      const tenant = options.tenantClaim ? claims[options.tenantClaim] : undefined;
      return identity({
        userId: typeof claims.sub === 'string' ? claims.sub : null,
        roles: listClaim(claims[rolesClaim]),
        scopes: listClaim(claims[scopesClaim]),
        claims,
        tenantId: typeof tenant === 'string' || typeof tenant === 'number' ? String(tenant) : null,
        sessionId: typeof claims.jti === 'string' ? claims.jti : null,
        identityType: 'human',
        authMethod: 'jwt',
      });
    },
  });
}
