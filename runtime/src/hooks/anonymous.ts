import { ApiError, ConfigError } from '../errors/api-error.js';
import { authFlags, describeHook, type HookEnvironment, hookMeta, type RegisteredHook } from '../pipeline/hook-meta.js';
import { type Hook, OPS, type Op } from '../pipeline/types.js';
import { generatedOps } from '../security/operations.js';

/**
 * Lets requests without a credential through the authenticators that follow
 * it, with no identity; a bad credential is still 401. Register it before
 * the authenticator, scoped to models and/or operations: that scope is the
 * explicit public declaration production validation looks for.
 *
 * @example
 * app.use('auth', allowAnonymous(), { models: ['User'], ops: ['create'] }); // sign-up
 * app.use('auth', bearer({ secret }));
 */
export function allowAnonymous(): Hook {
  const hook: Hook = (ctx, next) => {
    authFlags(ctx).anonymousAllowed = true;
    return next();
  };
  return describeHook(hook, {
    role: 'anonymous',
    label: 'allowAnonymous()',
    setup({ entry, entries, registry }: HookEnvironment) {
      if (!entry.models && !entry.ops) {
        throw new ConfigError('allowAnonymous() needs a scope: pass { models, ops } naming what is public (an unscoped one would make every route public)');
      }
      if (entry.step !== 'auth' || entry.position !== 'before') throw new ConfigError('allowAnonymous() belongs at the auth step, position before');
      const index = entries.indexOf(entry);
      const earlier = entries.slice(0, index).find((e) => e.step === 'auth' && e.position === 'before' && hookMeta(e.hook)?.role === 'authenticator' && overlaps(e, entry, registry.modelNames()));
      if (earlier) {
        throw new ConfigError(`allowAnonymous() is registered after ${hookMeta(earlier.hook)!.label} for the same routes; register allowAnonymous() first so it runs before the authenticator`);
      }
    },
  });
}

const READS: ReadonlySet<Op> = new Set(['list', 'read', 'history']);

/**
 * A passthrough for list and read (and history); any other operation needs
 * an identity (401 without one). It is reachable only behind allowAnonymous():
 * register allowAnonymous(), the authenticator, then publicRead(), so
 * anonymous callers may read while writes still need a credential.
 *
 * @example
 * app.use('auth', allowAnonymous(), { models: ['Post'] });
 * app.use('auth', bearer({ secret }), { models: ['Post'] });
 * app.use('auth', publicRead(), { models: ['Post'] });
 */
export function publicRead(): Hook {
  const hook: Hook = (ctx, next) => {
    if (READS.has(ctx.op) || ctx.identity) return next();
    throw new ApiError('UNAUTHORIZED', `${ctx.op} on ${ctx.model?.name ?? 'this route'} needs a credential; only list and read are public`);
  };
  return describeHook(hook, {
    role: 'public-read',
    label: 'publicRead()',
    setup({ entry, entries, models }: HookEnvironment) {
      const index = entries.indexOf(entry);
      for (const model of models) {
        for (const op of generatedOps(model)) {
          if (!entry.matches(model.name, op)) continue;
          const anonymous = entries.slice(0, index).some((e) => hookMeta(e.hook)?.role === 'anonymous' && e.matches(model.name, op));
          if (!anonymous) {
            throw new ConfigError(`publicRead() covers ${model.name} ${op} but no allowAnonymous() runs before it there; it is reachable only behind allowAnonymous(): register allowAnonymous() with the same scope first`);
          }
        }
      }
    },
  });
}

/** Whether two registrations both run for some (model, op), actions (model null) included. */
export function overlaps(a: RegisteredHook, b: RegisteredHook, models: readonly string[]): boolean {
  if (a.matches(null, 'action') && b.matches(null, 'action')) return true;
  return models.some((model) => OPS.some((op) => a.matches(model, op) && b.matches(model, op)));
}
