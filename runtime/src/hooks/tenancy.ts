import { ApiError, ConfigError } from '../errors/api-error.js';
import type { Context, ScopeFilter } from '../pipeline/context.js';
import { describeHook, type HookEnvironment } from '../pipeline/hook-meta.js';
import type { Hook } from '../pipeline/types.js';

export interface TenancyOptions {
  /** The field (JSON or column name) holding the tenant id on every tenant-owned model. */
  column: string;
}

/**
 * Confines every read and write to the caller's tenant (`identity.tenantId`):
 * appends `column = tenant` for each scoped model that has the column, so
 * lists, reads, updates, deletes (and includes, nested filters and history
 * reads through those models) only see the tenant's rows, creates are
 * stamped with it, and an update cannot move a row out. Another tenant's
 * record answers 404; a caller without a tenant gets 403. Register it at the
 * DB step (before).
 *
 * @example
 * app.use('db', tenancy({ column: 'tenantId' }), { models: ['Project', 'Task'] });
 */
export function tenancy(options: TenancyOptions): Hook {
  if (!options?.column) throw new ConfigError('tenancy() needs { column }: the field holding the tenant id');
  let targets: Array<{ model: string; field: string }> = [];
  const hook: Hook = (ctx: Context, next) => {
    if (!ctx.model) return next();
    const tenant = ctx.identity?.tenantId;
    if (tenant === null || tenant === undefined || tenant === '') {
      throw new ApiError('FORBIDDEN', 'the tenant could not be determined: the credential carries no tenant');
    }
    for (const target of targets) ctx.scope.push({ model: target.model, field: target.field, value: tenant } satisfies ScopeFilter);
    return next();
  };
  return describeHook(hook, {
    role: 'scope',
    label: `tenancy({ column: '${options.column}' })`,
    setup({ entry, models }: HookEnvironment) {
      targets = [];
      for (const model of models) {
        const field = model.field(options.column);
        if (field) targets.push({ model: model.name, field: field.name });
        else if (entry.models?.has(model.name)) {
          throw new ConfigError(`tenancy({ column: '${options.column}' }) is scoped to ${model.name}, which has no field or column ${options.column}; add it or drop the model from the scope`);
        }
      }
      if (targets.length === 0) throw new ConfigError(`tenancy({ column: '${options.column}' }): no registered model has a field or column ${options.column}`);
    },
  });
}

/**
 * Applies the equality filters `fn` returns to the request's model, like
 * tenancy does; `null`/`undefined` (or a nil value for a field) applies none.
 *
 * @example
 * app.use('db', forceFilter((ctx) => ({ userId: ctx.identity?.userId })), { models: ['Draft'] });
 */
export function forceFilter(fn: (ctx: Context) => Record<string, unknown> | null | undefined | Promise<Record<string, unknown> | null | undefined>): Hook {
  if (typeof fn !== 'function') throw new ConfigError('forceFilter() needs a function (ctx) => ({ field: value }) | null');
  const hook: Hook = async (ctx, next) => {
    const model = ctx.model;
    const filters = model ? await fn(ctx) : null;
    if (model && filters) {
      for (const [name, value] of Object.entries(filters)) {
        if (value === null || value === undefined) continue;
        const field = model.field(name);
        if (!field) throw new Error(`forceFilter() returned unknown field ${name} of ${model.name}`);
        ctx.scope.push({ model: model.name, field: field.name, value });
      }
    }
    await next();
  };
  return describeHook(hook, { role: 'scope', label: 'forceFilter()' });
}
