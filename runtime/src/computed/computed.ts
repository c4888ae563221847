/**
 * Computed fields (DESIGN.md, "Aggregates, expressions, export, search,
 * computed fields, rollups"): read-only virtual fields a resolver works out
 * per response, shown on every record of their model (create and update
 * echoes, read, list rows, included records) and in the OpenAPI document.
 *
 * Registered in the setup window (`app.computed`), checked and installed on
 * their models when the app seals. The values of one response live on each
 * record under the COMPUTED symbol, so they never reach the ETag of a stored
 * record, history, events or write observers; the codec's projection copies
 * them after the stored fields. A model that no response can reach a
 * computed field from gets no resolver at all (computedPlan is null), so its
 * requests do no computed work.
 */
import { ConfigError } from '../errors/api-error.js';
import type { Context } from '../pipeline/context.js';
import type { IncludePath } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { Registry } from '../registry/registry.js';
import type { RecordData } from '../store/codec.js';

/** A JSON Schema of the value, as the OpenAPI document shows it. */
export type ComputedSchema = Record<string, unknown>;

/**
 * A computed field: exactly one of `resolve` (one row at a time, at most 8
 * at once per response) or `resolveMany` (every row of the response at
 * once, in order; it returns one value per row). `row` is the stored record
 * by JSON name, hidden and writeonly fields included, with the relations
 * the request included.
 *
 * @example
 * app.computed({ model: 'Order', name: 'gross', schema: { type: 'number' }, resolve: (row) => Number(row.net) * 1.2 });
 * app.computed({ model: 'User', name: 'postCount', schema: { type: 'integer' }, resolveMany: async (rows, ctx) => countPosts(ctx.db, rows.map((r) => r.id)) });
 */
export interface ComputedDefinition {
  model: string;
  name: string;
  schema: ComputedSchema;
  resolve?: (row: RecordData, ctx: Context) => unknown;
  resolveMany?: (rows: readonly RecordData[], ctx: Context) => readonly unknown[] | Promise<readonly unknown[]>;
}

/** A checked computed field of one model. */
export interface ComputedField {
  readonly name: string;
  readonly schema: ComputedSchema;
  readonly resolve?: ComputedDefinition['resolve'];
  readonly resolveMany?: ComputedDefinition['resolveMany'];
}

/** Key of a record's computed values (name → value) for the response being built. */
export const COMPUTED: unique symbol = Symbol('mfx.computed');

/** How many per-row resolver calls of one response run at once. */
export const COMPUTED_CONCURRENCY = 8;

const installed = new WeakMap<ModelMeta, readonly ComputedField[]>();

/** The computed fields of a model, in registration order; undefined for a model without any. */
export const computedOf = (model: ModelMeta): readonly ComputedField[] | undefined => installed.get(model);

/** The computed values a response shows for a record, or undefined. */
export const computedValues = (record: RecordData): Record<string, unknown> | undefined => (record as { [COMPUTED]?: Record<string, unknown> })[COMPUTED];

const label = (def: Partial<ComputedDefinition>) => `computed field ${String(def?.model ?? '?')}.${String(def?.name ?? '?')}`;

/**
 * The computed fields registered in the setup window; `install` checks them
 * against the registry and puts them on their models when the app seals.
 */
export class ComputedFields {
  private readonly definitions: ComputedDefinition[] = [];

  /** Checks what can be checked without the models (the shape of the definition). */
  add(def: ComputedDefinition): void {
    if (!def || typeof def !== 'object') throw new ConfigError('app.computed takes { model, name, schema, resolve(row, ctx) | resolveMany(rows, ctx) }');
    if (typeof def.model !== 'string' || def.model === '') throw new ConfigError(`${label(def)}: \`model\` must name a registered model`);
    if (typeof def.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(def.name)) {
      throw new ConfigError(`${label(def)}: \`name\` must be a JSON name (letters, digits and _, not starting with a digit)`);
    }
    if (!def.schema || typeof def.schema !== 'object' || Array.isArray(def.schema)) {
      throw new ConfigError(`${label(def)}: \`schema\` must be a JSON Schema object, e.g. { type: 'number' }`);
    }
    const one = typeof def.resolve === 'function';
    const many = typeof def.resolveMany === 'function';
    if (one === many) throw new ConfigError(`${label(def)}: give exactly one of resolve(row, ctx) and resolveMany(rows, ctx)`);
    this.definitions.push(def);
  }

  /**
   * Checks every definition against the registry (the model exists; the name
   * is not one of its fields, relation keys or other computed fields) and
   * installs them on their models.
   */
  install(registry: Registry): void {
    const byModel = new Map<ModelMeta, ComputedField[]>();
    for (const def of this.definitions) {
      const model = registry.get(def.model);
      if (!model) throw new ConfigError(`${label(def)}: no model named ${def.model}; registered models: ${registry.modelNames().join(', ') || 'none'}`);
      const taken = model.field(def.name) ?? model.fieldByColumn(def.name);
      if (taken) throw new ConfigError(`${label(def)}: ${model.name} already has a field named ${def.name}; give the computed field another name`);
      if (model.relations.has(def.name)) throw new ConfigError(`${label(def)}: ${model.name} already has a relation named ${def.name}; give the computed field another name`);
      const fields = byModel.get(model) ?? [];
      if (fields.some((f) => f.name === def.name)) throw new ConfigError(`${label(def)} is registered twice; a model's computed fields need distinct names`);
      fields.push({ name: def.name, schema: def.schema, resolve: def.resolve, resolveMany: def.resolveMany });
      byModel.set(model, fields);
    }
    for (const [model, fields] of byModel) installed.set(model, Object.freeze(fields));
  }
}

/** Whether a response about `model` may carry computed fields: its own, or those of a model an include reaches. */
function reachesComputed(model: ModelMeta, seen = new Set<ModelMeta>()): boolean {
  if (installed.has(model)) return true;
  if (seen.has(model)) return false;
  seen.add(model);
  return [...model.related.values()].some(({ target }) => reachesComputed(target, seen));
}

/**
 * Works out the computed fields of one response's records: the records of
 * the request's model (left out under `select=`, which names stored fields
 * only) and those its includes loaded, once per model and response.
 */
export type ComputedResolver = (ctx: Context, records: readonly RecordData[], include: readonly IncludePath[], select: readonly string[] | null) => Promise<void>;

/**
 * The resolver of a model's responses, or null when no response of the
 * model can carry a computed field (decided once, when its routes are built).
 *
 * @example
 * const computed = computedPlan(model);
 * if (computed) await computed(ctx, page.records, query.include, query.select);
 */
export function computedPlan(model: ModelMeta): ComputedResolver | null {
  if (!reachesComputed(model)) return null;
  return async (ctx, records, include, select) => {
    // Each model's records of this response, in the order they appear: the request's rows first.
    const groups = new Map<ModelMeta, Set<RecordData>>();
    if (!select && installed.has(model)) groups.set(model, new Set(records));
    if (include.length > 0) collectIncluded(model, records, include, groups);
    if (groups.size === 0) return;
    const work: Promise<void>[] = [];
    const pool = new Pool(COMPUTED_CONCURRENCY);
    for (const [owner, set] of groups) {
      const rows = [...set];
      for (const field of installed.get(owner)!) {
        work.push(field.resolveMany ? resolveMany(ctx, owner, field, rows) : resolveEach(ctx, owner, field, rows, pool));
      }
    }
    await Promise.all(work);
  };
}

/** Adds the records `include` loaded, by model, following the include paths level by level. */
function collectIncluded(model: ModelMeta, records: readonly RecordData[], paths: readonly IncludePath[], groups: Map<ModelMeta, Set<RecordData>>): void {
  const byKey = new Map<string, IncludePath[]>();
  for (const [head, ...rest] of paths) {
    const nested = byKey.get(head) ?? [];
    if (rest.length > 0) nested.push(rest);
    byKey.set(head, nested);
  }
  for (const [key, nested] of byKey) {
    const target = model.related.get(key)?.target;
    if (!target) continue;
    const found: RecordData[] = [];
    for (const record of records) {
      const value = record[key];
      if (Array.isArray(value)) found.push(...(value as RecordData[]));
      else if (value && typeof value === 'object') found.push(value as RecordData);
    }
    if (installed.has(target)) {
      let set = groups.get(target);
      if (!set) groups.set(target, (set = new Set()));
      for (const record of found) set.add(record);
    }
    if (nested.length > 0 && found.length > 0) collectIncluded(target, found, nested, groups);
  }
}

/** Sets one computed value on a record. */
function setValue(record: RecordData, name: string, value: unknown): void {
  const holder = record as { [COMPUTED]?: Record<string, unknown> };
  (holder[COMPUTED] ??= {})[name] = value;
}

const errorText = (error: unknown) => String((error as Error)?.message ?? error);

/** One call for every row; a throw or an answer of the wrong length drops the field from this response, logged. */
async function resolveMany(ctx: Context, model: ModelMeta, field: ComputedField, rows: RecordData[]): Promise<void> {
  let values: readonly unknown[];
  try {
    values = await field.resolveMany!(rows, ctx);
  } catch (error) {
    ctx.log.error({ requestId: ctx.requestId, model: model.name, field: field.name, rows: rows.length, err: errorText(error) }, 'a computed field resolver failed; the field is left out of this response');
    return;
  }
  if (!Array.isArray(values) || values.length !== rows.length) {
    const got = Array.isArray(values) ? `${values.length} values` : typeof values;
    ctx.log.error(
      { requestId: ctx.requestId, model: model.name, field: field.name, rows: rows.length, got },
      `resolveMany of a computed field returned ${got} for ${rows.length} rows; the field is left out of this response`,
    );
    return;
  }
  for (let i = 0; i < rows.length; i++) if (values[i] !== undefined) setValue(rows[i], field.name, values[i]);
}

/** One call per row, at most `pool.size` at once; a throw drops the field on that row only, logged. */
async function resolveEach(ctx: Context, model: ModelMeta, field: ComputedField, rows: RecordData[], pool: Pool): Promise<void> {
  await Promise.all(
    rows.map((row) =>
      pool.run(async () => {
        try {
          const value = await field.resolve!(row, ctx);
          if (value !== undefined) setValue(row, field.name, value);
        } catch (error) {
          ctx.log.error(
            { requestId: ctx.requestId, model: model.name, id: row.id, field: field.name, err: errorText(error) },
            'a computed field resolver failed; the field is left out of this record',
          );
        }
      }),
    ),
  );
}

/** Runs tasks with at most `size` of them pending at once. */
class Pool {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  async run(task: () => Promise<void>): Promise<void> {
    // A finished task hands its slot to the next waiting one, so no newcomer slips in between.
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
