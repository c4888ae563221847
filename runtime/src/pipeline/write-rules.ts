/**
 * Validation hooks as rules of the Validate step (spec: Errors, validation
 * rule 6). A `validate.*` hook does not judge the body where it runs: it
 * hands its rule to the request and continues, and the step's default
 * judges the write once, after the directive rules, on the record the write
 * would store (the create body with its defaults; on update the stored
 * record with the patch over it). So every failure of one request, hooks
 * and directives together, answers one 422 VALIDATION_ERROR, and a
 * cross-field rule cannot be dodged by sending one side of it only.
 */
import { ApiError, ConfigError, type ValidationDetail } from '../errors/api-error.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { RecordData } from '../store/codec.js';
import type { Context } from './context.js';
import { describeHook, type HookEnvironment, type HookMeta } from './hook-meta.js';
import { hookFailure } from './pipeline.js';
import type { Hook } from './types.js';

/** The record a write would store, by JSON field name. */
export type WriteRecord = Readonly<Record<string, unknown>>;

/** What a rule is told about the write besides the record. */
export interface WriteFacts {
  ctx: Context;
  model: ModelMeta;
  /** The stored record an update changes; null on create. */
  stored: RecordData | null;
  /** The fields the request itself sets (the body after its keys were stripped). */
  sent: WriteRecord;
}

/** One validation hook's judgement of a write. */
export interface WriteRule {
  /** 422 problems, `{field, message}` each; none when the record passes. */
  details?(record: WriteRecord, facts: WriteFacts): readonly ValidationDetail[];
  /** Checked once no 422 problem is left (it may read the database): an error such as 409 CONFLICT, or null. */
  conflict?(record: WriteRecord, facts: WriteFacts): Promise<ApiError | null>;
}

const RULES = Symbol('mfx.writeRules');
type RuleHolder = Context & { [RULES]?: { model: ModelMeta; rule: WriteRule }[] };

/** What a validation hook is built from: its label, the fields it reads, and its rule per model. */
export interface RuleHookSpec {
  /** How startup errors name the hook, e.g. `validate.regex({ field: 'slug' })`. */
  label: string;
  /** Every field the hook reads, checked on each model in its scope at startup. */
  fields: readonly string[];
  /** The rule for one model (called once per model at startup; may throw a ConfigError naming the model). */
  rule(model: ModelMeta, env: HookEnvironment): WriteRule;
  openapi?: HookMeta['openapi'];
}

/**
 * A Validate-step hook that adds a rule to the write. At startup it checks
 * its step and position and the fields on every model it covers: a hook
 * scoped to a model without one of its fields is refused naming the hook and
 * the field; an unscoped hook applies to the models that have all its fields
 * (and is refused when none has).
 *
 * @example
 * export const noEmptyTitle = () => ruleHook({ label: 'noEmptyTitle()', fields: ['title'], rule: () => ({ details: (r) => (r.title === '' ? [{ field: 'title', message: 'must not be empty' }] : []) }) });
 */
export function ruleHook(spec: RuleHookSpec): Hook {
  const rules = new Map<string, WriteRule>();
  const hook: Hook = (ctx: RuleHolder, next) => {
    const rule = ctx.model && (ctx.op === 'create' || ctx.op === 'update') ? rules.get(ctx.model.name) : undefined;
    if (rule) (ctx[RULES] ??= []).push({ model: ctx.model!, rule });
    return next();
  };
  return describeHook(hook, {
    role: 'other',
    label: spec.label,
    openapi: spec.openapi,
    setup(env) {
      const { entry, models, entries } = env;
      if (entry.step !== 'validate') throw new ConfigError(`${spec.label} belongs at the validate step, not ${entry.step}: app.use('validate', ${spec.label})`);
      if (entry.position !== 'before') {
        throw new ConfigError(`${spec.label} runs at the default before position of the validate step (its failures join the directive rules' 422), not "${entry.position}"`);
      }
      for (const model of models) {
        const missing = spec.fields.find((name) => !model.field(name));
        if (missing !== undefined) {
          if (entry.models) throw new ConfigError(`${spec.label} is scoped to ${model.name}, which has no field "${missing}"; fields: ${model.fields.map((f) => f.name).join(', ')}`);
          continue;
        }
        const replaced = entries.find((e) => e.step === 'validate' && e.position === 'replace' && (e.matches(model.name, 'create') || e.matches(model.name, 'update')));
        if (replaced) throw new ConfigError(`${spec.label} cannot run on ${model.name}: a validate hook replaces that step's default, which judges the rules`);
        rules.set(model.name, spec.rule(model, env));
      }
      if (rules.size === 0 && models.length > 0) {
        throw new ConfigError(`${spec.label}: no model has the field${spec.fields.length > 1 ? 's' : ''} ${spec.fields.map((f) => `"${f}"`).join(', ')}; scope the hook with { models: [...] } to models that do`);
      }
    },
  });
}

/** Whether a validation hook added a rule to this request. */
export const hasWriteRules = (ctx: Context): boolean => ((ctx as RuleHolder)[RULES]?.length ?? 0) > 0;

/**
 * Judges a create or update once: the directive problems found (`details`)
 * and the rules' problems, one detail per field (a field the directive rules
 * already refused keeps their message), in one 422; then, when nothing is
 * left to refuse, each rule's conflict check (409 before the write).
 * Without rules it answers synchronously, so writes without validation
 * hooks cost no promise. `stored` reads the record an update changes.
 *
 * @example
 * return judgeWrite(ctx, model, body, details, null);
 */
export function judgeWrite(
  ctx: Context,
  model: ModelMeta,
  body: Record<string, unknown>,
  details: readonly ValidationDetail[],
  stored: (() => Promise<RecordData | null>) | null,
): void | Promise<void> {
  const rules = (ctx as RuleHolder)[RULES]?.filter((r) => r.model === model).map((r) => r.rule);
  if (!rules || rules.length === 0) {
    if (details.length > 0) throw invalid(model, details);
    return;
  }
  return judgeRules(ctx, model, body, details, stored, rules);
}

async function judgeRules(
  ctx: Context,
  model: ModelMeta,
  body: Record<string, unknown>,
  details: readonly ValidationDetail[],
  loadStored: (() => Promise<RecordData | null>) | null,
  rules: readonly WriteRule[],
): Promise<void> {
  const stored = loadStored ? await loadStored() : null;
  // An update of a record that is not there: the DB step answers 404.
  if (loadStored && !stored) {
    if (details.length > 0) throw invalid(model, details);
    return;
  }
  const record: WriteRecord = stored ? { ...stored, ...body } : body;
  const facts: WriteFacts = { ctx, model, stored, sent: body };
  const all = [...details];
  const named = new Set(details.map((d) => d.field));
  try {
    for (const rule of rules) {
      for (const detail of rule.details?.(record, facts) ?? []) {
        if (named.has(detail.field)) continue;
        named.add(detail.field);
        all.push(detail);
      }
    }
    if (all.length > 0) throw invalid(model, all);
    for (const rule of rules) {
      const conflict = await rule.conflict?.(record, facts);
      if (conflict) throw conflict;
    }
  } catch (error) {
    // A rule's own failure (a crossField check that throws) is a hook's: 500, logged.
    throw hookFailure(error, ctx, 'validate');
  }
}

const invalid = (model: ModelMeta, details: readonly ValidationDetail[]) => new ApiError('VALIDATION_ERROR', `the ${model.name} is not valid; see details`, details);
