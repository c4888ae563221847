import { ApiError, ConfigError } from '../errors/api-error.js';
import { describeHook, type HookEnvironment, hookMeta } from '../pipeline/hook-meta.js';
import { overlaps } from './anonymous.js';
import type { Context } from '../pipeline/context.js';
import type { Hook, Identity, Op } from '../pipeline/types.js';

function gate(label: string, allowed: (identity: Identity) => boolean, refusal: string): Hook {
  const hook: Hook = (ctx: Context, next) => {
    if (!ctx.identity) throw new ApiError('UNAUTHORIZED', `this operation needs an authenticated caller (${label})`);
    if (!allowed(ctx.identity)) throw new ApiError('FORBIDDEN', refusal);
    return next();
  };
  return describeHook(hook, {
    role: 'gate',
    label,
    setup({ entry, entries, registry }: HookEnvironment) {
      // A gate before the authenticator would only ever see anonymous callers.
      const index = entries.indexOf(entry);
      const later = entries.slice(index + 1).find((e) => e.step === 'auth' && hookMeta(e.hook)?.role === 'authenticator' && overlaps(e, entry, registry.modelNames()));
      if (entry.step === 'auth' && entry.position === 'before' && later) {
        throw new ConfigError(`${label} is registered before ${hookMeta(later.hook)!.label} on the same routes; register the gate after the authenticator`);
      }
    },
  });
}

function names(kind: string, values: string[]): void {
  if (values.length === 0 || values.some((v) => typeof v !== 'string' || v === '')) throw new ConfigError(`${kind} needs at least one non-empty name`);
}

/**
 * Role gate: the caller must hold one of the roles (403 FORBIDDEN otherwise,
 * 401 when nobody is authenticated). Register it after the authenticator.
 *
 * @example
 * app.use('auth', requireRole('admin'), { models: ['User'], ops: ['delete'] });
 */
export function requireRole(...roles: string[]): Hook {
  names('requireRole()', roles);
  const label = `requireRole(${roles.join(', ')})`;
  return gate(label, (id) => roles.some((r) => id.roles.includes(r)), `this operation needs the role ${roles.join(' or ')}`);
}

/**
 * Scope gate: the caller must hold every listed scope.
 *
 * @example
 * app.use('auth', requireScopes('posts:write'), { models: ['Post'], ops: ['create', 'update'] });
 */
export function requireScopes(...scopes: string[]): Hook {
  names('requireScopes()', scopes);
  return gate(`requireScopes(${scopes.join(', ')})`, (id) => scopes.every((s) => id.scopes.includes(s)), `this operation needs the scopes ${scopes.join(', ')}`);
}

/**
 * Scope gate: the caller must hold at least one of the listed scopes.
 *
 * @example
 * app.use('auth', requireAnyScope('posts:read', 'posts:admin'), { models: ['Post'], ops: ['list'] });
 */
export function requireAnyScope(...scopes: string[]): Hook {
  names('requireAnyScope()', scopes);
  return gate(`requireAnyScope(${scopes.join(', ')})`, (id) => scopes.some((s) => id.scopes.includes(s)), `this operation needs one of the scopes ${scopes.join(', ')}`);
}

/**
 * Refuses the listed operations with 403 FORBIDDEN, whoever calls. Blocked
 * operations need no authenticator in production validation.
 *
 * @example
 * app.use('auth', block('delete'), { models: ['Company'] });
 */
export function block(...ops: Op[]): Hook {
  if (ops.length === 0) throw new ConfigError('block() needs at least one operation');
  const blocked = new Set<Op>(ops);
  // Blocking read also blocks the history reads that run the read pipeline.
  if (blocked.has('read')) blocked.add('history');
  const hook: Hook = (ctx, next) => {
    if (blocked.has(ctx.op)) throw new ApiError('FORBIDDEN', `${ctx.op} is blocked on ${ctx.model?.name ?? 'this route'}`);
    return next();
  };
  return describeHook(hook, { role: 'block', label: `block(${ops.join(', ')})`, blocks: [...blocked] });
}
