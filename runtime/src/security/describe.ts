import type { ActionDescriptor } from '../actions/action.js';
import { skippedByPublicAction } from '../actions/chain.js';
import { hookMeta, type RegisteredHook, type SecurityScheme } from '../pipeline/hook-meta.js';
import type { Hook, Op } from '../pipeline/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { generatedOps } from './operations.js';

/** How one generated operation is protected. */
export interface OperationSecurity {
  model: string;
  op: Op;
  /** Scheme names of the authenticators scoped onto it. */
  security: string[];
  /** An allowAnonymous() scope covers it (or publicRead() behind one, for reads). */
  publicDeclared: boolean;
  /** A block() hook refuses it. */
  blocked: boolean;
}

/** A route outside models and actions (global search, standalone files) and its access flag. */
export interface StandaloneRoute {
  kind: 'search' | 'files' | string;
  method: string;
  path: string;
  /** The explicit access flag: 'public' on purpose, or 'authenticated' when a guard protects it. */
  access?: 'public' | 'authenticated';
  /**
   * The operation its Auth-step hooks are scoped by (`file`): without an
   * explicit `access`, an authenticator scoped onto it makes it
   * 'authenticated', an allowAnonymous() 'public'.
   */
  op?: Op;
  /** Scheme names of the authenticators that run for it (filled by describeSecurity). */
  security?: string[];
}

/**
 * The security picture as plain data: schemes (for OpenAPI
 * `components.securitySchemes`), per-operation requirements and actions.
 */
export interface SecurityDescription {
  schemes: Record<string, SecurityScheme>;
  operations: OperationSecurity[];
  actions: ActionDescriptor[];
  standalone: StandaloneRoute[];
}

/** Stable names for schemes: `bearerAuth`, `apiKeyAuth` (or `apiKeyAuth_<header>` for another header). */
export function schemeName(scheme: SecurityScheme): string {
  if (scheme.type === 'http') return 'bearerAuth';
  return scheme.name.toLowerCase() === 'x-api-key' ? 'apiKeyAuth' : `apiKeyAuth_${scheme.name.replace(/[^A-Za-z0-9]/g, '_')}`;
}

function authenticatorNames(hooks: readonly Hook[], schemes: Record<string, SecurityScheme>): string[] {
  const names: string[] = [];
  for (const hook of hooks) {
    const meta = hookMeta(hook);
    if (meta?.role !== 'authenticator' || !meta.scheme) continue;
    const name = schemeName(meta.scheme);
    schemes[name] = meta.scheme;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

export function describeSecurity(
  models: readonly ModelMeta[],
  entries: readonly RegisteredHook[],
  actions: ReadonlyArray<{ descriptor: ActionDescriptor; auth: readonly Hook[] }>,
  standalone: readonly StandaloneRoute[],
): SecurityDescription {
  const schemes: Record<string, SecurityScheme> = {};
  const auth = entries.filter((e) => e.step === 'auth');
  const operations: OperationSecurity[] = [];
  for (const model of models) {
    for (const op of generatedOps(model)) {
      const matching = auth.filter((e) => e.matches(model.name, op));
      operations.push({
        model: model.name,
        op,
        security: authenticatorNames(
          matching.map((e) => e.hook),
          schemes,
        ),
        publicDeclared: matching.some((e) => hookMeta(e.hook)?.role === 'anonymous'),
        blocked: entries.some((e) => e.matches(model.name, op) && (hookMeta(e.hook)?.blocks ?? []).includes(op)),
      });
    }
  }
  const actionAuth = auth.filter((e) => e.matches(null, 'action')).map((e) => e.hook);
  // A public action runs without the app-wide authenticators (see skippedByPublicAction); only its own document it.
  const described = actions.map(({ descriptor, auth: own }) => ({
    ...descriptor,
    security: authenticatorNames([...(descriptor.public ? actionAuth.filter((h) => !skippedByPublicAction(h)) : actionAuth), ...own], schemes),
  }));
  const routes = standalone.map((route) => {
    if (!route.op) return { ...route };
    const matching = auth.filter((e) => e.matches(null, route.op!));
    const security = authenticatorNames(
      matching.map((e) => e.hook),
      schemes,
    );
    const access = route.access ?? (security.length > 0 ? 'authenticated' : matching.some((e) => hookMeta(e.hook)?.role === 'anonymous') ? 'public' : undefined);
    return { ...route, security, ...(access ? { access } : {}) };
  });
  return { schemes, operations, actions: described, standalone: routes };
}
