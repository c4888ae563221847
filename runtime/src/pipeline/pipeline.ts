import { ApiError, ConfigError, RegistrationClosedError } from '../errors/api-error.js';
import type { Logger } from '../log/logger.js';
import type { Context } from './context.js';
import { hookMeta, type RegisteredHook } from './hook-meta.js';
import { type Hook, type HookScope, type Next, OPS, type Op, POSITIONS, type Position, requiresBeforePosition, STEPS, type Step } from './types.js';
import { redactBody } from '../security/encryption/redact.js';

export interface TraceConfig {
  /** Master switch; the other flags only apply when it is on. */
  enabled?: boolean;
  /** Log each step as the request enters it. */
  steps?: boolean;
  /** Send a Server-Timing header with the time spent in each step. */
  timings?: boolean;
  /** Log where a hook ended the chain early. */
  aborts?: boolean;
  /** Log request and response bodies. */
  bodies?: boolean;
  /** Log the steps a short-circuit skipped. */
  skips?: boolean;
}

interface HookEntry {
  step: Step;
  hook: Hook;
  /** The hook as registered, before error classification wraps it (its metadata lives there). */
  original: Hook;
  position: Position;
  models: ReadonlySet<string> | null;
  ops: ReadonlySet<Op> | null;
  /** App-wide (`app.use`) or a model's own middleware (runs after the app's on its step and position). */
  layer: Layer;
}

/** Where a hook was given: `app.use`, or a model's middleware at registration. */
export type Layer = 'app' | 'model';

/** The default behaviour of each step for one (model, op); null where the step does nothing. */
export type StepDefaults = Record<Step, Hook | null>;

/**
 * A composed chain. It returns nothing when every link it ran finished
 * synchronously (the defaults of a SQLite read, with no user hook): the
 * request is then answered without a promise or a microtask turn; otherwise
 * a promise of its end. Either way `await chain(ctx)` works.
 */
export type Chain = (ctx: Context) => Promise<void> | void;

/** Engine errors a hook can only throw by mistake: treated as panics, not as returned errors. */
const programmingErrors = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];

/**
 * Classifies what a hook (or a write observer) threw: an ApiError answers as
 * it says; an Error is a returned error (500 INTERNAL); a programming error
 * or a non-Error value is a panic (500 PANIC). The original is logged, never
 * sent.
 */
export function hookFailure(thrown: unknown, ctx: Context, step: Step, who: 'hook' | 'write observer' = 'hook', fields: Record<string, unknown> = {}): ApiError {
  if (thrown instanceof ApiError) return thrown;
  const panic = !(thrown instanceof Error) || programmingErrors.some((type) => thrown.constructor === type);
  const err = thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
  ctx.log.error({ requestId: ctx.requestId, step, model: ctx.model?.name, op: ctx.op, ...fields, err }, panic ? `${who} panicked` : `${who} returned an error`);
  return new ApiError(panic ? 'PANIC' : 'INTERNAL');
}

/**
 * Wraps a user hook so that what it throws is classified where it happens,
 * while errors coming back up from later links pass through untouched.
 */
export function guard(hook: Hook, step: Step): Hook {
  return async (ctx, next) => {
    let downstream: unknown = guard;
    const guardedNext: Next = async () => {
      try {
        await next();
      } catch (error) {
        downstream = error;
        throw error;
      }
    };
    try {
      await hook(ctx, guardedNext);
    } catch (error) {
      if (error === downstream) throw error;
      throw hookFailure(error, ctx, step);
    }
  };
}

/** The work of a step that always continues: it runs, then the rest of the chain does. */
export type StepWork = (ctx: Context) => Promise<void> | void;

const stepWork = Symbol('mfx.stepWork');
type StraightHook = Hook & { [stepWork]?: StepWork };

/**
 * A step default that always continues, as a hook. Where no user hook sits
 * between two such steps, the chain calls their work one after the other
 * instead of through a `next` closure and a promise per link.
 *
 * @example
 * response: straight((ctx) => ctx.respond(204)),
 */
export function straight(work: StepWork): Hook {
  const hook: StraightHook = async (ctx, next) => {
    await work(ctx);
    await next();
  };
  hook[stepWork] = work;
  return hook;
}

/**
 * Runs consecutive step works in order. While they finish synchronously the
 * run does too (no promise); from the first that returns a promise, the rest
 * run after it settles. A work that throws synchronously throws out of the
 * run, as its promise's rejection would reach an awaiting caller.
 */
function inSequence(works: readonly StepWork[]): StepWork {
  if (works.length === 1) return works[0];
  const run = (ctx: Context): Promise<void> | void => {
    for (let i = 0; i < works.length; i++) {
      const pending = works[i](ctx);
      if (pending) return finishSequence(works, i + 1, pending, ctx);
    }
  };
  return run;
}

/** The rest of a sequence once one of its works went asynchronous. */
async function finishSequence(works: readonly StepWork[], from: number, pending: Promise<void>, ctx: Context): Promise<void> {
  await pending;
  for (let i = from; i < works.length; i++) {
    const next = works[i](ctx);
    if (next) await next;
  }
}

/** Fuses each run of straight links into one, so links that never need `next` get none. */
function fuse(links: readonly Hook[]): Hook[] {
  const fused: Hook[] = [];
  let run: StepWork[] = [];
  const endRun = () => {
    if (run.length > 0) fused.push(straight(inSequence(run)));
    run = [];
  };
  for (const link of links) {
    const work = (link as StraightHook)[stepWork];
    if (work) run.push(work);
    else {
      endRun();
      fused.push(link);
    }
  }
  endRun();
  return fused;
}

function compose(all: readonly Hook[]): Chain {
  const links = fuse(all);
  // No user hook, no trace marker: the defaults' work, called directly.
  if (links.length === 0) return () => Promise.resolve();
  const only = (links[0] as StraightHook)[stepWork];
  if (links.length === 1 && only) {
    // A run of works (or a single one) is the chain as it is: sync while its works are.
    return only as Chain;
  }
  return (ctx) => {
    let reached = -1;
    const dispatch = (i: number): Promise<void> => {
      if (i <= reached) return Promise.reject(new Error('mfx: next() called more than once in one hook'));
      reached = i;
      const link = links[i];
      if (!link) return Promise.resolve();
      try {
        return Promise.resolve(link(ctx, () => dispatch(i + 1)));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0);
  };
}

/** Hooks as registered, composed into one chain per (model, op) when the server seals. */
export class Pipeline {
  private readonly entries: HookEntry[] = [];
  private sealed = false;

  /**
   * Attaches a hook to a step. Validated now, so a typo fails at startup.
   *
   * @example
   * app.use('service', async (ctx, next) => { ctx.body!.slug ??= slugify(ctx.body!.title); await next(); }, { models: ['Post'], ops: ['create'] });
   */
  use(step: Step, hook: Hook, scope: HookScope = {}, layer: Layer = 'app'): void {
    if (this.sealed) throw new RegistrationClosedError(`a ${step} hook`);
    const position = this.check(step, hook, scope);
    this.entries.push({
      step,
      hook: guard(hook, step),
      original: hook,
      position,
      models: scope.models ? new Set(scope.models) : null,
      ops: scope.ops ? new Set(scope.ops) : null,
      layer,
    });
  }

  /** Throws what `use` would refuse about a hook, without attaching it; returns its position. */
  check(step: Step, hook: Hook, scope: HookScope = {}): Position {
    if (!STEPS.includes(step)) throw new ConfigError(`unknown pipeline step "${String(step)}"; steps are ${STEPS.join(', ')}`);
    if (typeof hook !== 'function') throw new ConfigError(`the ${step} hook must be a function (ctx, next) => Promise<void>`);
    const position = scope.position ?? 'before';
    if (!POSITIONS.includes(position)) throw new ConfigError(`unknown hook position "${String(position)}"; positions are ${POSITIONS.join(', ')}`);
    if ((hook as unknown as Record<symbol, unknown>)[requiresBeforePosition] && position !== 'before') {
      throw new ConfigError(`the ${hook.name || 'transaction'} hook only works at the default before position, not "${position}"`);
    }
    for (const op of scope.ops ?? []) {
      if (!OPS.includes(op)) throw new ConfigError(`unknown operation "${String(op)}" in a ${step} hook scope; operations are ${OPS.join(', ')}`);
    }
    return position;
  }

  /** Model names hooks are scoped to; the app checks them against the registry when it seals. */
  scopedModels(): string[] {
    return [...new Set(this.entries.flatMap((e) => (e.models ? [...e.models] : [])))];
  }

  /** Whether any hook is attached to this step for this (model, op). */
  has(step: Step, model: string | null, op: Op): boolean {
    return this.entries.some((e) => e.step === step && matches(e, model, op));
  }

  /** Every hook as registered, for startup checks and hook setup: the app's in registration order, then the models' middleware (the order they run in on a step and position). */
  registered(): RegisteredHook[] {
    return [...this.entries.filter((e) => e.layer === 'app'), ...this.entries.filter((e) => e.layer === 'model')].map((e) => ({
      step: e.step,
      hook: e.original,
      position: e.position,
      models: e.models,
      ops: e.ops,
      matches: (model: string | null, op: Op) => matches(e, model, op),
    }));
  }

  seal(): void {
    this.sealed = true;
  }

  /**
   * The chain for one (model, op): per step, before hooks, the default (or
   * replacements), after hooks; at each position the app's hooks in
   * registration order, then the model's own middleware in its order (a
   * model's replacements replace the app's). `userSteps` limits the steps whose user hooks
   * join (custom actions run only Auth and Response hooks); `skip` leaves
   * out registered hooks it accepts (a public action skips app-wide
   * authenticators), judged on the hook as registered.
   */
  build(
    model: string | null,
    op: Op,
    defaults: StepDefaults,
    trace: TraceConfig | undefined,
    log: Logger,
    userSteps: readonly Step[] = STEPS,
    skip?: (hook: Hook) => boolean,
  ): Chain {
    const links: Hook[] = [];
    const tracing = trace?.enabled ? trace : null;
    for (const step of STEPS) {
      const matching = userSteps.includes(step) ? this.entries.filter((e) => e.step === step && matches(e, model, op) && !skip?.(e.original) && !hookMeta(e.original)?.passThrough) : [];
      const entries = [...matching.filter((e) => e.layer === 'app'), ...matching.filter((e) => e.layer === 'model')];
      const ownReplace = entries.filter((e) => e.position === 'replace' && e.layer === 'model');
      const replace = ownReplace.length > 0 ? ownReplace : entries.filter((e) => e.position === 'replace');
      const stepLinks = [
        ...entries.filter((e) => e.position === 'before').map((e) => e.hook),
        ...(replace.length > 0 ? replace.map((e) => e.hook) : defaults[step] ? [defaults[step]!] : []),
        ...entries.filter((e) => e.position === 'after').map((e) => e.hook),
      ];
      if (tracing) links.push(traceMarker(step, tracing, log));
      links.push(...stepLinks);
    }
    const chain = compose(links);
    return tracing ? traced(chain, tracing, log) : chain;
  }
}

function matches(entry: HookEntry, model: string | null, op: Op): boolean {
  if (entry.models && (model === null || !entry.models.has(model))) return false;
  if (!entry.ops) return true;
  // Hooks scoped to read also run for history reads.
  return entry.ops.has(op) || (op === 'history' && entry.ops.has('read'));
}

const stepReached = Symbol('mfx.stepReached');
type TracedContext = Context & { [stepReached]?: { step: Step; at: number }[] };

/** Marks the entry into a step, for timings, step logs, aborts and skips. */
function traceMarker(step: Step, trace: TraceConfig, log: Logger): Hook {
  return (ctx: TracedContext, next) => {
    (ctx[stepReached] ??= []).push({ step, at: performance.now() });
    if (trace.steps) log.debug({ requestId: ctx.requestId, model: ctx.model?.name, op: ctx.op, step }, 'pipeline step');
    // Encrypted values never reach the log (security/encryption/redact.ts).
    if (trace.bodies && step === 'validate' && ctx.body) log.debug({ requestId: ctx.requestId, body: redactBody(ctx.model, ctx.body, 'request') }, 'request body');
    return next();
  };
}

/** Trace.Bodies: a JSON body as is; a stream or an HTML page by what it is (a stream is read only once, by the client). */
function logResponseBody(ctx: Context, log: Logger): void {
  const response = ctx.response!;
  if (response.kind === 'stream') log.debug({ requestId: ctx.requestId, stream: { contentType: response.contentType, length: response.length ?? null } }, 'response body');
  else if (response.kind === 'html') log.debug({ requestId: ctx.requestId, html: response.html.length > 2048 ? `${response.html.slice(0, 2048)}…` : response.html }, 'response body');
  else if (response.body !== undefined) log.debug({ requestId: ctx.requestId, body: redactBody(ctx.model, response.body, 'response') }, 'response body');
}

function traced(chain: Chain, trace: TraceConfig, log: Logger): Chain {
  return async (ctx: TracedContext) => {
    try {
      await chain(ctx);
    } finally {
      const marks = ctx[stepReached] ?? [];
      const end = performance.now();
      if (trace.timings) {
        ctx.timings = {};
        marks.forEach((mark, i) => {
          ctx.timings![mark.step] = (marks[i + 1]?.at ?? end) - mark.at;
        });
      }
      const last = marks.at(-1)?.step;
      if (last !== 'response') {
        const skipped = STEPS.slice(last ? STEPS.indexOf(last) + 1 : 0);
        if (trace.aborts) log.info({ requestId: ctx.requestId, model: ctx.model?.name, op: ctx.op, step: last ?? null }, 'pipeline ended early');
        if (trace.skips) log.info({ requestId: ctx.requestId, model: ctx.model?.name, op: ctx.op, skipped }, 'pipeline steps skipped');
      }
      if (trace.bodies && ctx.response) logResponseBody(ctx, log);
    }
  };
}
