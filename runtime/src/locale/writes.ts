/**
 * The stored form of localized fields in a create or update body, worked
 * out before validation so that the schema, Validate-step hooks
 * (`validate.requiredLocales`) and the write all see the map that will be
 * stored (spec, "Writing a split-mode field").
 */
import type { ModelLocale } from './plan.js';
import type { RequestLocale } from './request.js';
import { storedMap } from './resolve.js';

/**
 * Replaces each localized value of `body` by what is stored: the companion
 * `<field><suffix>` map wins (split mode, where responses show it), a bare
 * string becomes a map of the request's effective locale only (replacing
 * the column, not merged), a map or null stays. The companion key is
 * removed. Fields the body leaves out stay out.
 *
 * @example
 * normalizeLocalizedBody({ title: 'Hallo' }, plan, locale); // body.title → { de: 'Hallo' } with ?locale=de
 */
export function normalizeLocalizedBody(body: Record<string, unknown>, plan: ModelLocale, locale: RequestLocale): void {
  for (const rule of plan.rules) {
    const effective = locale.effective(rule);
    let value: unknown;
    if (rule.mode === 'split') {
      value = storedMap(body, rule.name, locale.locales.splitSuffix, effective);
      delete body[rule.companion];
    } else {
      value = body[rule.name];
    }
    if (value === undefined) continue;
    // A companion given as a plain string is read as a bare string.
    body[rule.name] = typeof value === 'string' ? { [effective]: value } : value;
  }
}
