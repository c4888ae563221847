import { ConfigError, RegistrationClosedError } from '../errors/api-error.js';
import { type ResolvedLocales, resolveLocales } from '../locale/options.js';
import type { LoadedManifest } from '../manifest/load.js';
import { adapterNameProblem, type ModelOptions, type QueryLimits, validatorExportName } from '../manifest/types.js';
import type { ModelMiddleware } from '../pipeline/types.js';
import { ModelMeta } from './model-meta.js';

/** The defaults of DESIGN.md's query limits. */
export const defaultQueryLimits: QueryLimits = {
  maxFilters: 32,
  maxOrGroups: 8,
  maxOrGroupClauses: 8,
  maxSorts: 8,
  maxIncludes: 8,
  maxIncludePerParent: 100,
  maxIncludeRows: 5000,
  aggregateSelect: 16,
  aggregateGroupBy: 8,
  aggregateWhere: 32,
  aggregateHaving: 16,
  aggregateOrderBy: 8,
};

/** Model options that change neither the database schema nor anything the compiler checked or compiled. */
const OVERRIDABLE = ['headless', 'aggregate', 'export', 'maxExportRows', 'optimisticLock', 'adapter', 'queryLimits'] as const;

/**
 * Model options that code may override at registration, per model name:
 * routes, caps, locking and adapter routing. The schema (table, soft
 * delete, history, indexes, ...) comes from the model directives only.
 */
export type ModelOverrides = Partial<Pick<ModelOptions, (typeof OVERRIDABLE)[number]>> & {
  /** The model's own hooks per step (the `Middleware` model option): see ModelMiddleware; `app.register` attaches them. */
  middleware?: ModelMiddleware;
};

/** Options an override may not change, with the model directive that sets them. */
const SCHEMA_OPTIONS: Readonly<Record<string, string>> = {
  table: 'table:NAME',
  softDelete: 'soft_delete',
  versioned: 'versioned (versioned_required)',
  singleton: 'singleton',
  indices: 'index: / unique_index:',
  cursorField: 'cursor_field:FIELD',
  defaultLocale: 'default_locale:LOCALE',
  localeMode: 'locale_mode:MODE',
};

/**
 * Every model the server knows. Filled before start; sealed when the handler
 * is built, after which registering anything fails and changes nothing.
 */
export class Registry {
  private readonly models = new Map<string, ModelMeta>();
  private readonly tables = new Map<string, ModelMeta>();
  private sealedAt: string | null = null;

  /**
   * @param locales the app's locale options, checked and filled in
   * (runtime/src/locale/options.ts): every reader of a localized field
   * (responses, writes, filters, the document) takes them from here.
   */
  constructor(
    private readonly appLimits: Partial<QueryLimits> = {},
    readonly locales: ResolvedLocales = resolveLocales(),
  ) {}

  get sealed(): boolean {
    return this.sealedAt !== null;
  }

  /**
   * Adds every model of a loaded manifest, with optional option overrides by
   * model name. All-or-nothing: on any error the registry is unchanged.
   */
  register(loaded: LoadedManifest, overrides: Record<string, ModelOverrides> = {}): ModelMeta[] {
    if (this.sealed) throw new RegistrationClosedError(`models from ${loaded.dir}`);
    for (const [name, override] of Object.entries(overrides)) {
      if (!loaded.manifest.models.some((m) => m.name === name)) {
        throw new ConfigError(`overrides name model ${name}, which ${loaded.dir}/manifest.json does not declare`);
      }
      checkOverride(name, override);
    }
    const manifests = loaded.manifest.models.map((model) => {
      // Middleware is code, not an option of the manifest: the app attaches it to the pipeline.
      const { middleware: _, ...override } = overrides[model.name] ?? {};
      return Object.keys(override).length > 0 ? { ...model, options: { ...model.options, ...override } } : model;
    });
    const added: ModelMeta[] = [];
    for (const manifest of manifests) {
      if (this.models.has(manifest.name)) throw new ConfigError(`model ${manifest.name} is registered twice`);
      const clash = this.tables.get(manifest.table) ?? added.find((m) => m.table === manifest.table);
      if (clash) throw new ConfigError(`models ${clash.name} and ${manifest.name} both use table ${manifest.table}; give one a different table: name`);
      const limits = { ...defaultQueryLimits, ...this.appLimits, ...manifest.options.queryLimits };
      added.push(
        new ModelMeta(
          manifest,
          {
            create: loaded.validators[validatorExportName(manifest.name, 'create')],
            update: loaded.validators[validatorExportName(manifest.name, 'update')],
          },
          limits,
        ),
      );
    }
    for (const model of added) {
      this.models.set(model.name, model);
      this.tables.set(model.table, model);
    }
    return added;
  }

  get(name: string): ModelMeta | undefined {
    return this.models.get(name);
  }

  /** A model by name, or a startup error naming it. */
  require(name: string, purpose: string): ModelMeta {
    const model = this.models.get(name);
    if (!model) throw new ConfigError(`${purpose} names model ${name}, which is not registered (registered: ${this.modelNames().join(', ') || 'none'})`);
    return model;
  }

  byTable(table: string): ModelMeta | undefined {
    return this.tables.get(table);
  }

  all(): ModelMeta[] {
    return [...this.models.values()];
  }

  modelNames(): string[] {
    return [...this.models.keys()];
  }

  /** Closes registration and links relations across models. */
  seal(reason: string): void {
    if (this.sealed) return;
    for (const model of this.models.values()) {
      for (const relation of model.relations.values()) {
        const target = relation.kind === 'manyToMany' ? [relation.target, relation.through] : [relation.target];
        for (const name of target) {
          if (!this.models.has(name)) {
            throw new ConfigError(`relation ${model.name}.${relation.key} targets model ${name}, which is not registered; register every manifest the models come from`);
          }
        }
      }
    }
    for (const model of this.models.values()) {
      model.inbound = [];
      model.related = new Map(
        [...model.relations.values()].map((r) => [
          r.key,
          { target: this.models.get(r.target)!, through: r.kind === 'manyToMany' ? this.models.get(r.through) : undefined },
        ]),
      );
    }
    for (const child of this.models.values()) {
      for (const relation of child.relations.values()) {
        if (relation.kind === 'belongsTo') this.models.get(relation.target)!.inbound.push({ child, relation });
      }
    }
    this.sealedAt = reason;
  }

  /** Throws the registration-closed error when sealed; used by everything that shares the setup window. */
  assertOpen(what: string): void {
    if (this.sealed) throw new RegistrationClosedError(what);
  }
}

/** Refuses an override of an option the manifest's schema, SQL or validators depend on. */
function checkOverride(model: string, override: ModelOverrides): void {
  for (const option of Object.keys(override)) {
    if (option === 'adapter') {
      const name = override.adapter;
      const problem = name === null || name === undefined ? null : adapterNameProblem(name);
      if (problem) throw new ConfigError(`overrides for model ${model} set adapter to ${JSON.stringify(name)}: ${problem}; null serves the model from the default adapter`);
      continue;
    }
    if ((OVERRIDABLE as readonly string[]).includes(option) || option === 'middleware') continue;
    const directive = SCHEMA_OPTIONS[option];
    if (directive) {
      throw new ConfigError(
        `overrides for model ${model} set ${option}, which changes the database schema or what mfx build checked; declare it on the model with the directive ${directive} and rebuild (mfx build)`,
      );
    }
    throw new ConfigError(`overrides for model ${model} set ${option}, which is not a model option that can be overridden; overridable: ${OVERRIDABLE.join(', ')}`);
  }
}
