/**
 * What one model needs from the locale rules, decided once at boot: its
 * localized fields with their response mode, companion key and fixed part
 * of the resolution chain, and whether its responses (its own fields or
 * those of models it can include) are localized at all. A model without
 * localized fields gets `null` and no per-request locale work.
 */
import type { FieldManifest, LocaleMode } from '../manifest/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { ConfigError } from '../errors/api-error.js';
import type { ResolvedLocales } from './options.js';
import { localeChain, localeMode, NOTHING_REQUESTED, textOf } from './resolve.js';

/** One localized field of a model, as every request of the app treats it. */
export interface LocalizedRule {
  readonly field: FieldManifest;
  readonly name: string;
  readonly mode: LocaleMode;
  /** `<field><splitSuffix>`: the full map beside the string in split mode, and the companion key of writes. */
  readonly companion: string;
  /** The chain after the requested locale: field default_locale, model default, app default (no repeats). */
  readonly base: readonly string[];
}

/**
 * Rewrites the localized fields of one projected record into their modes'
 * shapes (RequestLocale.project): `chains` in rule order, `explicit` when
 * the request has `?locale=`. Answers the first field that held a plain
 * string left by older data (answered as it is), or null.
 */
export type Localize = (out: Record<string, unknown>, chains: readonly (readonly string[])[], explicit: boolean) => string | null;

/**
 * Where a record's first plain string left by older data is told
 * (RequestLocale warns once per request); only called when one is seen.
 */
export interface LegacyNotice {
  legacy(model: ModelMeta, field: string, id: unknown): void;
}

/**
 * The whole response shape of one record without `select`: every visible
 * field in declaration order, localized ones already in their modes' shapes,
 * and each split-mode field's `<field><suffix>` map after them (where the
 * rewrite of a copy used to add them), built as one object literal.
 */
export type LocalizeVisible = (record: Record<string, unknown>, chains: readonly (readonly string[])[], explicit: boolean, notice: LegacyNotice, model: ModelMeta) => Record<string, unknown>;

export interface ModelLocale {
  readonly model: ModelMeta;
  /** Localized fields of the model, in declaration order. */
  readonly rules: readonly LocalizedRule[];
  readonly byName: ReadonlyMap<string, LocalizedRule>;
  /** The envelope's locale without a requested one: the model's default, else the app's. */
  readonly fallback: string;
  /** The model's rewrite of a projected record, generated once (see buildLocalize): responses with `select`. */
  readonly localize: Localize;
  /** The same with every field in split mode: for in-process calls that ask for the stored maps (`localeMaps`). */
  readonly localizeMaps: Localize;
  /** The model's projection of a whole record, generated once (see buildLocalizeVisible): responses without `select`. */
  readonly visible: LocalizeVisible;
  /** The same with every field in split mode (`localeMaps`). */
  readonly visibleMaps: LocalizeVisible;
  /** Each rule's chain when the request names no locale (`base`), in rule order: no per-request array then. */
  readonly baseChains: readonly (readonly string[])[];
}

/**
 * Generates a model's Localize: straight-line code naming each field and
 * companion (names come from the registry, quoted with JSON.stringify), so
 * every record a response shows takes the same property accesses and the
 * same shape, instead of keyed accesses by a rule's name per row.
 */
function buildLocalize(rules: readonly LocalizedRule[]): Localize {
  const body = rules.map((rule, i) => {
    const name = JSON.stringify(rule.name);
    const companion = JSON.stringify(rule.companion);
    const split = rule.mode === 'split';
    return [
      `if (${rule.mode === 'dynamic' ? 'explicit && ' : ''}${name} in out) {`,
      `  const stored = out[${name}];`,
      // A plain string left by older data is answered as it is, with no map to show.
      `  if (typeof stored === 'string') { legacy ??= ${name};${split ? ` out[${companion}] = null;` : ''} }`,
      `  else { const map = stored == null ? null : stored; out[${name}] = map === null ? null : textOf(map, chains[${i}]);${split ? ` out[${companion}] = map;` : ''} }`,
      '}',
    ].join('\n');
  });
  return new Function('textOf', `return function localize(out, chains, explicit) {\nlet legacy = null;\n${body.join('\n')}\nreturn legacy;\n};`)(textOf) as Localize;
}

/**
 * Generates a model's LocalizeVisible: each localized value worked out into
 * locals (the text, and the map for a split field's companion), then one
 * object literal naming every visible field, so a row of a list is one
 * allocation of a fixed shape, with no property added after it is built
 * (adding the companion to a copy gave each row a second map transition and
 * an out-of-object property store). The same rules as buildLocalize.
 */
function buildLocalizeVisible(model: ModelMeta, rules: readonly LocalizedRule[]): LocalizeVisible {
  const visible = model.fieldsWith('visible');
  const shown = rules.map((rule, i) => ({ rule, i })).filter(({ rule }) => visible.includes(rule.field));
  const locals = shown.map(({ rule, i }) => {
    const name = JSON.stringify(rule.name);
    const resolve = [
      `if (typeof s${i} === 'string') { if (legacy === null) legacy = ${name}; }`,
      `else if (s${i} == null) t${i} = null;`,
      `else { t${i} = textOf(s${i}, chains[${i}]);${rule.mode === 'split' ? ` m${i} = s${i};` : ''} }`,
    ].join(' ');
    return [
      `const s${i} = record[${name}];`,
      `let t${i} = s${i};${rule.mode === 'split' ? ` let m${i} = null;` : ''}`,
      // Dynamic mode answers the map as stored unless the request names a locale (`?locale=`).
      rule.mode === 'dynamic' ? `if (explicit) { ${resolve} }` : resolve,
    ].join('\n');
  });
  const index = new Map(shown.map(({ rule, i }) => [rule.field, i]));
  const entries = visible.map((field) => {
    const i = index.get(field);
    return `${JSON.stringify(field.name)}: ${i === undefined ? `record[${JSON.stringify(field.name)}]` : `t${i}`}`;
  });
  for (const { rule, i } of shown) if (rule.mode === 'split') entries.push(`${JSON.stringify(rule.companion)}: m${i}`);
  const body = [
    'let legacy = null;',
    ...locals,
    `const out = { ${entries.join(', ')} };`,
    // A plain string left by older data is answered as it is; the first one is told (once per request).
    'if (legacy !== null) notice.legacy(model, legacy, record.id);',
    'return out;',
  ];
  return new Function('textOf', `return function localizeVisible(record, chains, explicit, notice, model) {\n${body.join('\n')}\n};`)(textOf) as LocalizeVisible;
}

const plans = new WeakMap<ModelMeta, ModelLocale | null>();

/**
 * The locale plan of a model (null when it has no localized field), built
 * on first use and kept.
 *
 * @example
 * localePlanOf(article, registry.locales)?.byName.get('title')?.mode; // 'split'
 */
export function localePlanOf(model: ModelMeta, locales: ResolvedLocales): ModelLocale | null {
  if (plans.has(model)) return plans.get(model)!;
  const fields = model.fields.filter((f) => f.type === 'localized');
  let plan: ModelLocale | null = null;
  if (fields.length > 0) {
    const rules = fields.map(
      (field): LocalizedRule => ({
        field,
        name: field.name,
        mode: localeMode(field, model.options.localeMode, locales),
        companion: `${field.name}${locales.splitSuffix}`,
        // The chain without a requested locale; a request puts its own in front (LocaleRequest.chain).
        base: localeChain(NOTHING_REQUESTED, field, model.options.defaultLocale, locales),
      }),
    );
    // In-process calls that ask for the stored maps (`localeMaps`) see every field in split mode.
    const asSplit = rules.map((rule): LocalizedRule => (rule.mode === 'split' ? rule : { ...rule, mode: 'split' }));
    plan = {
      model,
      rules,
      byName: new Map(rules.map((r) => [r.name, r])),
      fallback: model.options.defaultLocale ?? locales.default,
      localize: buildLocalize(rules),
      localizeMaps: buildLocalize(asSplit),
      visible: buildLocalizeVisible(model, rules),
      visibleMaps: buildLocalizeVisible(model, asSplit),
      baseChains: rules.map((r) => r.base),
    };
  }
  plans.set(model, plan);
  return plan;
}

/**
 * Whether a response of `model` can carry localized values: its own fields,
 * or those of a model its include paths reach (two levels, as include
 * allows). Requests on other models skip every locale step.
 */
export function reachesLocalized(model: ModelMeta): boolean {
  const has = (m: ModelMeta) => m.fields.some((f) => f.type === 'localized');
  if (has(model)) return true;
  for (const key of model.relations.keys()) {
    const first = model.target(key)?.target;
    if (!first) continue;
    if (has(first)) return true;
    for (const nested of first.relations.keys()) {
      const second = first.target(nested)?.target;
      if (second && has(second)) return true;
    }
  }
  return false;
}

/**
 * Refuses, at boot, a `default_locale` (field or model directive) outside
 * `locales.supported`: it could never be asked for, so the chain would
 * silently skip it. Every other code is accepted when `supported` is unset.
 */
export function checkLocaleDefaults(models: readonly ModelMeta[], locales: ResolvedLocales): void {
  const supported = locales.supported;
  if (!supported) return;
  const listed = [...supported].join(', ');
  for (const model of models) {
    const where = (source: { file: string; line: number; col: number }) => `${source.file}:${source.line}:${source.col}`;
    const own = model.options.defaultLocale;
    if (own !== null && !supported.has(own)) {
      throw new ConfigError(`model ${model.name} (${where(model.manifest.source)}): default_locale:${own} is not in locales.supported (${listed}); add it there or change the directive`);
    }
    for (const field of model.fields) {
      const code = field.locale?.defaultLocale;
      if (code !== undefined && !supported.has(code)) {
        throw new ConfigError(`${model.name}.${field.name} (${where(field.source)}): default_locale:${code} is not in locales.supported (${listed}); add it there or change the directive`);
      }
    }
  }
}
