/**
 * What auth hooks tell the OpenAPI document. The ready-made hooks carry
 * metadata (`describeHook`): the generator reads the hooks that run for each
 * (model, op) and derives `security`, the 401/403 responses and
 * `components.securitySchemes` from their roles, plus the statuses and
 * request headers a hook declares under `openapi` (429 for rateLimit(), 304
 * and If-None-Match for etag(), Idempotency-Key for idempotency()), so a
 * scope change shows up in the document at once. Hooks without metadata
 * change nothing.
 */
import { hookMeta, type SecurityScheme } from '../pipeline/hook-meta.js';
import type { Hook, Op } from '../pipeline/types.js';
import { schemeName } from '../security/describe.js';
import type { SecurityRequirement } from './types.js';

/** The documented effect of the hooks of one operation. */
export interface OperationAuth {
  security: SecurityRequirement[] | null;
  /** 401 (authenticators, gates without a caller), 403 (gates, block, tenancy), and what hooks declare (429, 304, ...). */
  statuses: string[];
  /** Request headers hooks read (Idempotency-Key, If-None-Match, ...). */
  headers: { name: string; description: string }[];
  schemes: Record<string, SecurityScheme>;
}

/**
 * Reads the hooks (of every step) that run for one operation.
 *
 * @example operationAuth(hooksOf('Post', 'create'), 'create').security // [{ bearerAuth: [] }]
 */
export function operationAuth(hooks: readonly Hook[], op: Op): OperationAuth {
  const schemes: Record<string, SecurityScheme> = {};
  const statuses = new Set<string>();
  const headers = new Map<string, { name: string; description: string }>();
  let anonymous = false;
  for (const hook of hooks) {
    const meta = hookMeta(hook);
    if (!meta) continue;
    if (meta.openapi && (!meta.openapi.ops || meta.openapi.ops.includes(op))) {
      for (const status of meta.openapi.statuses ?? []) statuses.add(status);
      for (const header of meta.openapi.headers ?? []) headers.set(header.name, header);
    }
    switch (meta.role) {
      case 'authenticator':
        if (meta.scheme) schemes[schemeName(meta.scheme)] = meta.scheme;
        statuses.add('401');
        break;
      case 'anonymous':
        anonymous = true;
        break;
      case 'public-read':
        // Lets list and read through; every other operation needs a caller.
        if (op !== 'list' && op !== 'read' && op !== 'history') statuses.add('401');
        break;
      case 'gate':
        statuses.add('401').add('403');
        break;
      case 'block':
        if (meta.blocks?.includes(op)) statuses.add('403');
        break;
      case 'scope':
        statuses.add('403');
        break;
    }
  }
  const names = Object.keys(schemes);
  const security = names.length === 0 ? null : [...names.map((name) => ({ [name]: [] as string[] })), ...(anonymous ? [{}] : [])];
  return { security, statuses: [...statuses].sort(), schemes, headers: [...headers.values()] };
}
