/**
 * The OpenAPI shapes of localized fields, per response mode (spec,
 * "Localized string fields"): what a response carries under the field and
 * its split companion, and what a write accepts.
 */
import type { ModelMeta } from '../registry/model-meta.js';
import { localeMapSchema } from '../openapi/field-schemas.js';
import type { Schema } from '../openapi/types.js';
import type { ResolvedLocales } from './options.js';
import { type LocalizedRule, localePlanOf } from './plan.js';

/** The text a locale resolves to; null when the map has no non-empty value (or the field is null). */
const resolvedText = (rule: LocalizedRule): Schema => ({
  type: ['string', 'null'],
  description: `${rule.field.description ? `${rule.field.description} ` : ''}The text of the request's locale (locale, then ${rule.base.join(', ')}, then any non-empty one).`,
});

/**
 * The response properties of one localized field: split, the text and the
 * `<field><suffix>` map (null when the field is null or holds a plain string
 * left by older data); resolve, the text; dynamic, the text with `locale`,
 * else the map as stored.
 *
 * @example
 * localizedResponse(rule); // { title: { type: ['string', 'null'] }, title_i18n: { anyOf: [map, null] } } in split mode
 */
export function localizedResponse(rule: LocalizedRule): Record<string, Schema> {
  switch (rule.mode) {
    case 'split':
      return {
        [rule.name]: resolvedText(rule),
        [rule.companion]: { anyOf: [localeMapSchema, { type: 'null' }], readOnly: true, description: `every locale of ${rule.name}` },
      };
    case 'resolve':
      return { [rule.name]: resolvedText(rule) };
    case 'dynamic':
      return {
        [rule.name]: {
          anyOf: [{ type: 'string' }, localeMapSchema, { type: 'null' }],
          description: `${rule.field.description ? `${rule.field.description} ` : ''}With the locale parameter, the text of that locale; without it, every locale (the map as stored).`,
        },
      };
  }
}

/** The response properties of every localized field of a model, by field name; empty for other models. */
export function localizedResponses(model: ModelMeta, locales: ResolvedLocales): Map<string, Record<string, Schema>> {
  const plan = localePlanOf(model, locales);
  return new Map((plan?.rules ?? []).map((rule) => [rule.name, localizedResponse(rule)]));
}

/**
 * The body properties of a localized field: a bare string (stored as the
 * request locale's only entry, replacing the column) or a map; in split
 * mode also the companion map, which wins over the field.
 */
export function localizedRequest(rule: LocalizedRule, schema: Schema): Record<string, Schema> {
  const field: Schema = {
    ...schema,
    description: [schema.description, 'A string is stored as the only text of the request\'s locale (replacing the stored map); a map of locale code → text is stored as it is.'].filter(Boolean).join(' '),
  };
  if (rule.mode !== 'split') return { [rule.name]: field };
  return { [rule.name]: field, [rule.companion]: { ...localeMapSchema, description: `every locale of ${rule.name}, stored as it is; wins over ${rule.name}` } };
}
