/**
 * The locale rules of the spec ("Localized string fields"), one place:
 * which locale a request asks for, which mode a field answers in, which
 * text of a stored map a response carries, and what a write stores.
 */
import type { FieldManifest, LocaleMode } from '../manifest/types.js';
import type { ResolvedLocales } from './options.js';

/** A stored localized value: locale code → text. */
export type LocaleMap = Record<string, string>;

/** What a request asks for: `?locale=` (explicit) or `Accept-Language` (when fromHeader). */
export interface RequestedLocale {
  /** The supported code the request names, or null when it names none. */
  code: string | null;
  /** True when it came from `?locale=` (dynamic mode answers a string only then). */
  explicit: boolean;
}

/** A request that names no locale. */
export const NOTHING_REQUESTED: RequestedLocale = Object.freeze({ code: null, explicit: false });

/** The supported form of a code (case-insensitive match), or null; any code when `supported` is unset. */
export function supportedCode(code: string, locales: ResolvedLocales): string | null {
  if (!locales.supported) return code;
  if (locales.supported.has(code)) return code;
  const lower = code.toLowerCase();
  for (const known of locales.supported) if (known.toLowerCase() === lower) return known;
  return null;
}

/**
 * The locale a request asks for: `?locale=` first (an unsupported code
 * falls back to the app default), else the first supported language of
 * `Accept-Language` when fromHeader (in written order, quality values
 * ignored; a language alone matches a regional code it prefixes).
 *
 * @example
 * requestedLocale('de', undefined, locales); // { code: 'de', explicit: true }
 * requestedLocale(undefined, 'fr-CH, de;q=0.9', locales); // { code: 'de', explicit: false } when only en and de are supported
 */
export function requestedLocale(query: string | undefined, acceptLanguage: string | undefined, locales: ResolvedLocales): RequestedLocale {
  if (query !== undefined && query !== '') return { code: supportedCode(query, locales) ?? locales.default, explicit: true };
  if (!locales.fromHeader || !acceptLanguage) return NOTHING_REQUESTED;
  for (const part of acceptLanguage.split(',')) {
    const tag = part.split(';')[0].trim();
    if (tag === '' || tag === '*') continue;
    const exact = supportedCode(tag, locales);
    if (exact) return { code: exact, explicit: false };
    const language = tag.split('-')[0];
    const base = supportedCode(language, locales);
    if (base) return { code: base, explicit: false };
  }
  return NOTHING_REQUESTED;
}

/** The response mode of a localized field: its directive, its model's, the app's, then split. */
export function localeMode(field: FieldManifest, modelMode: LocaleMode | null, locales: ResolvedLocales): LocaleMode {
  return field.locale?.mode ?? modelMode ?? locales.defaultMode;
}

/**
 * The locales to try, in order, for one field of one request: the requested
 * one, the field's default_locale, the model's default, the app's default.
 */
export function localeChain(requested: RequestedLocale, field: FieldManifest, modelDefault: string | null, locales: ResolvedLocales): string[] {
  const chain: string[] = [];
  for (const code of [requested.code, field.locale?.defaultLocale ?? null, modelDefault, locales.default]) {
    if (code !== null && !chain.includes(code)) chain.push(code);
  }
  return chain;
}

/**
 * The text of a stored map for a chain: the first non-empty value along the
 * chain, else any non-empty value, else null. (A stored scalar left by
 * older data is not a map: the caller answers it as it is.)
 *
 * @example
 * textOf({ en: 'Hello', de: '' }, ['de', 'en']); // 'Hello'
 */
export function textOf(map: LocaleMap, chain: readonly string[]): string | null {
  for (let i = 0; i < chain.length; i++) {
    const text = map[chain[i]!];
    if (typeof text === 'string' && text !== '') return text;
  }
  for (const code in map) {
    const text = map[code];
    if (typeof text === 'string' && text !== '') return text;
  }
  return null;
}

/**
 * The map a write stores for a localized field, from the body: the
 * companion `<field><suffix>` map wins; a bare string stores a map of only
 * the effective locale (replacing the column, not merged); a map is stored
 * as it is. `undefined` when the body sets neither.
 *
 * @example
 * storedMap({ title: 'Hallo' }, 'title', '_i18n', 'de'); // { de: 'Hallo' }
 */
export function storedMap(body: Record<string, unknown>, name: string, suffix: string, locale: string): unknown {
  const companion = body[`${name}${suffix}`];
  if (companion !== undefined) return companion;
  const value = body[name];
  if (typeof value === 'string') return { [locale]: value };
  return value;
}

/** Whether responses resolved to `locale` carry `meta._dir: "rtl"`. */
export const isRtl = (locale: string | null, locales: ResolvedLocales): boolean => locale !== null && locales.rtl.has(locale);
