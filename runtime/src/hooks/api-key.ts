import { createHash } from 'node:crypto';
import { ApiError, ConfigError } from '../errors/api-error.js';
import type { Hook, Identity } from '../pipeline/types.js';
import { authenticator, identity } from './authenticator.js';

export interface ApiKeyOptions {
  /** Header carrying the key (default `X-API-Key`). */
  header?: string;
  /** Key → the identity it stands for (a service account unless it says otherwise). */
  keys: Record<string, Partial<Identity>> | Map<string, Partial<Identity>>;
}

const digest = (key: string) => createHash('sha256').update(key).digest('base64');

/**
 * API-key authenticator: maps configured keys to preset identities; an
 * unknown key is 401. Keys are looked up by their SHA-256 so the lookup time
 * says nothing about how much of a guess was right.
 *
 * @example
 * app.use('auth', apiKey({ keys: { [process.env.REPORTS_KEY!]: { userId: 'reports', roles: ['reader'] } } }), { ops: ['list', 'read'] });
 */
export function apiKey(options: ApiKeyOptions): Hook {
  const header = (options.header ?? 'X-API-Key').toLowerCase();
  const entries = options.keys instanceof Map ? [...options.keys] : Object.entries(options.keys ?? {});
  if (entries.length === 0) throw new ConfigError('apiKey() needs at least one key in `keys`');
  const byDigest = new Map<string, Identity>();
  for (const [key, preset] of entries) {
    if (typeof key !== 'string' || key.length < 16) throw new ConfigError('apiKey() keys must be strings of at least 16 characters');
    byDigest.set(digest(key), identity({ identityType: 'service_account', ...preset, authMethod: 'api_key' }));
  }
  return authenticator({
    label: 'apiKey()',
    scheme: { type: 'apiKey', in: 'header', name: options.header ?? 'X-API-Key' },
    present: (req) => req.headers[header] !== undefined,
    missing: `missing API key: send it in the ${options.header ?? 'X-API-Key'} header`,
    authenticate(ctx) {
      const value = ctx.req.headers[header];
      const found = typeof value === 'string' ? byDigest.get(digest(value)) : undefined;
      if (!found) throw new ApiError('UNAUTHORIZED', `the API key in ${options.header ?? 'X-API-Key'} is not valid`);
      return { ...found, roles: [...found.roles], scopes: [...found.scopes], claims: { ...found.claims } };
    },
  });
}
