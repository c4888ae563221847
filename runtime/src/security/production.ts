import { hookMeta, type RegisteredHook } from '../pipeline/hook-meta.js';
import type { Hook, Op } from '../pipeline/types.js';
import type { HttpMiddleware } from '../probes/probes.js';
import type { SecurityDescription } from './describe.js';
import { middlewareMeta } from './middleware-meta.js';

export interface ProductionInput {
  security: SecurityDescription;
  entries: readonly RegisteredHook[];
  /** Extra hooks that are not pipeline entries (actions' own auth and hooks). */
  otherHooks: readonly Hook[];
  httpMiddlewares: readonly HttpMiddleware[];
  httpAccessControlled: boolean;
  pathPrefix: string;
  routeOf(model: string, op: Op): string;
}

/**
 * Every reason the app is not fit for production, one line each: generated
 * operations with neither an authenticator nor a scoped public declaration,
 * actions and standalone routes without their access flag, and hook-specific
 * problems (a short JWT secret, for example).
 */
export function productionProblems(input: ProductionInput): string[] {
  const problems: string[] = [];
  const guarded = input.httpMiddlewares.some((m) => middlewareMeta(m)?.controlsAccess !== false);
  if (input.httpAccessControlled && !guarded) {
    problems.push('httpAccessControlled is set but no access-controlling HTTP middleware is registered (CORS does not count); add it with app.httpMiddleware(...) or unset httpAccessControlled');
  }
  const assumeGuarded = input.httpAccessControlled && guarded;
  if (!assumeGuarded) {
    for (const op of input.security.operations) {
      if (op.blocked || op.publicDeclared || op.security.length > 0) continue;
      problems.push(
        `${op.model} ${op.op} (${input.routeOf(op.model, op.op)}) has neither an authenticator nor a public declaration: scope one onto it, e.g. app.use('auth', bearer({...}), { models: ['${op.model}'], ops: ['${op.op}'] }), or declare it public with app.use('auth', allowAnonymous(), { models: ['${op.model}'], ops: ['${op.op}'] })`,
      );
    }
    for (const action of input.security.actions) {
      if (action.public || action.security.length > 0) continue;
      problems.push(
        `action ${action.method} ${input.pathPrefix}${action.path} has no access flag: give it an authenticator (auth: [bearer({...})]) or declare it public: true`,
      );
    }
    for (const route of input.security.standalone) {
      if (route.access) continue;
      const how = route.op
        ? `scope an authenticator onto it, e.g. app.use('auth', bearer({...}), { ops: ['${route.op}'] }), or declare it public with app.use('auth', allowAnonymous(), { ops: ['${route.op}'] })`
        : 'declare it public or put an authenticator in front of it';
      problems.push(`${route.kind} route ${route.method} ${route.path} has no access flag: ${how}`);
    }
  }
  const seen = new Set<unknown>();
  for (const hook of [...input.entries.map((e) => e.hook), ...input.otherHooks]) {
    if (seen.has(hook)) continue;
    seen.add(hook);
    for (const problem of hookMeta(hook)?.production ?? []) problems.push(problem);
  }
  return problems;
}
