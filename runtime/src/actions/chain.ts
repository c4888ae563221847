import { bodyLimitOf, parseJsonObject, readBody } from '../http/body.js';
import type { Context } from '../pipeline/context.js';
import { authFlags, type HookRole, hookMeta } from '../pipeline/hook-meta.js';
import { guard, type StepDefaults } from '../pipeline/pipeline.js';
import type { Hook, Step } from '../pipeline/types.js';
import type { ActionDefinition, ActionInput } from './action.js';

/** Runs hooks one after the other as a single link. */
function sequence(hooks: readonly Hook[]): Hook | null {
  if (hooks.length === 0) return null;
  return (ctx, next) => {
    const run = (i: number): Promise<void> => (i === hooks.length ? next() : Promise.resolve(hooks[i](ctx, () => run(i + 1))));
    return run(0);
  };
}

function input(ctx: Context, bodyLimit: number): ActionInput {
  return {
    async json() {
      if (ctx.body) return ctx.body;
      ctx.rawBody = await readBody(ctx.req, bodyLimitOf(ctx, bodyLimit));
      ctx.body = parseJsonObject(ctx.rawBody);
      return ctx.body;
    },
  };
}

/** Roles of the app-wide hooks a public action leaves out: those that establish an identity or need one. */
const IDENTITY_ROLES: ReadonlySet<HookRole> = new Set(['authenticator', 'gate', 'public-read']);

/**
 * Whether a public action skips an app-wide hook: authenticators, and the
 * gates that would refuse the anonymous callers it admits. Other app-wide
 * Auth hooks (block, CSRF, hooks without metadata) still run, and so do the
 * action's own `auth` hooks.
 *
 * @example
 * pipeline.build(null, 'action', defaults, trace, log, ACTION_USER_STEPS, descriptor.public ? skippedByPublicAction : undefined);
 */
export function skippedByPublicAction(hook: Hook): boolean {
  const role = hookMeta(hook)?.role;
  return role !== undefined && IDENTITY_ROLES.has(role);
}

/** A public action admits callers without a credential: its own authenticators verify one only when it is sent. */
const admitAnonymous: Hook = (ctx, next) => {
  authFlags(ctx).anonymousAllowed = true;
  return next();
};

/**
 * The step defaults of an action's trimmed pipeline: its own auth hooks at
 * Auth, its hooks then the handler in the middle; Deserialize, Validate and
 * DB never run (the handler owns body parsing, validation and transactions).
 */
export function actionDefaults(def: ActionDefinition, status: number, bodyLimit: number): StepDefaults {
  const guarded = (hooks: readonly Hook[] | undefined, step: Step) => (hooks ?? []).map((h) => guard(h, step));
  const auth = guarded(def.auth, 'auth');
  const handler: Hook = guard(async (ctx, next) => {
    const data = await def.handler(ctx, input(ctx, bodyLimit));
    if (!ctx.response) ctx.respond(data === undefined ? 204 : status, data === undefined ? undefined : { data });
    await next();
  }, 'service');
  return {
    auth: sequence(def.public === true && auth.length > 0 ? [admitAnonymous, ...auth] : auth),
    deserialize: null,
    validate: null,
    service: sequence([...guarded(def.hooks, 'service'), handler]),
    db: null,
    response: null,
  };
}

/** The steps whose app-wide hooks run for actions. */
export const ACTION_USER_STEPS: readonly Step[] = ['auth', 'response'];
