import { parseJsonObject, readBody } from '../http/body.js';
import type { Context } from '../pipeline/context.js';
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
      ctx.rawBody = await readBody(ctx.req, bodyLimit);
      ctx.body = parseJsonObject(ctx.rawBody);
      return ctx.body;
    },
  };
}

/**
 * The step defaults of an action's trimmed pipeline: its own auth hooks at
 * Auth, its hooks then the handler in the middle; Deserialize, Validate and
 * DB never run (the handler owns body parsing, validation and transactions).
 */
export function actionDefaults(def: ActionDefinition, status: number, bodyLimit: number): StepDefaults {
  const guarded = (hooks: readonly Hook[] | undefined, step: Step) => (hooks ?? []).map((h) => guard(h, step));
  const handler: Hook = guard(async (ctx, next) => {
    const data = await def.handler(ctx, input(ctx, bodyLimit));
    if (!ctx.response) ctx.respond(data === undefined ? 204 : status, data === undefined ? undefined : { data });
    await next();
  }, 'service');
  return {
    auth: sequence(guarded(def.auth, 'auth')),
    deserialize: null,
    validate: null,
    service: sequence([...guarded(def.hooks, 'service'), handler]),
    db: null,
    response: null,
  };
}

/** The steps whose app-wide hooks run for actions. */
export const ACTION_USER_STEPS: readonly Step[] = ['auth', 'response'];
