/**
 * `validate.requiredLocales({ field, locales })`: a Validate-step hook that
 * refuses a create or update whose localized field would be stored without
 * one of the listed locales, or with it empty (422 MISSING_LOCALE).
 */
import { ApiError, ConfigError, type ValidationDetail } from '../errors/api-error.js';
import { describeHook, type HookEnvironment } from '../pipeline/hook-meta.js';
import type { Hook } from '../pipeline/types.js';

export interface RequiredLocalesOptions {
  /** JSON name of the localized field. */
  field: string;
  /** Locale codes that must each hold a non-empty text. */
  locales: string[];
}

/**
 * Judges the map the write would store (the body has its stored form by
 * the Validate step: a companion map, a bare string turned into a one-locale
 * map, or a map): on create an absent field misses every listed locale; on
 * update an absent field is left as it is and not judged. Details name
 * `field.locale`, one per missing locale.
 *
 * @example
 * app.use('validate', validate.requiredLocales({ field: 'title', locales: ['en', 'de'] }), { models: ['Article'] });
 */
export function requiredLocales(options: RequiredLocalesOptions): Hook {
  if (!options?.field || !Array.isArray(options.locales) || options.locales.length === 0) {
    throw new ConfigError('validate.requiredLocales() needs { field, locales }: the localized field and the locale codes it must hold, such as { field: "title", locales: ["en"] }');
  }
  const { field, locales } = options;
  const hook: Hook = async (ctx, next) => {
    const body = ctx.body;
    if ((ctx.op === 'create' || ctx.op === 'update') && body && (ctx.op === 'create' || field in body)) {
      const map = body[field];
      const missing: ValidationDetail[] = [];
      for (const code of locales) {
        const text = map !== null && typeof map === 'object' ? (map as Record<string, unknown>)[code] : undefined;
        if (typeof text !== 'string' || text.trim() === '') missing.push({ field: `${field}.${code}`, message: `is required: give ${field} a non-empty text for locale ${code}` });
      }
      if (missing.length > 0) throw new ApiError('MISSING_LOCALE', `${field} misses required locale${missing.length > 1 ? 's' : ''} ${missing.map((d) => d.field.slice(field.length + 1)).join(', ')}`, missing);
    }
    await next();
  };
  return describeHook(hook, {
    role: 'other',
    label: `validate.requiredLocales({ field: '${field}' })`,
    setup({ entry, models }: HookEnvironment) {
      if (entry.step !== 'validate') throw new ConfigError(`validate.requiredLocales() belongs at the validate step, not ${entry.step}`);
      for (const model of models) {
        const found = model.field(field);
        if (found?.type === 'localized') continue;
        if (found) throw new ConfigError(`validate.requiredLocales({ field: '${field}' }): ${model.name}.${found.name} is not a localized field`);
        if (entry.models) throw new ConfigError(`validate.requiredLocales({ field: '${field}' }) is scoped to ${model.name}, which has no such field`);
      }
    },
  });
}
