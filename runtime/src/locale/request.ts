/**
 * The locale of one request, worked out once per request on models whose
 * responses carry localized values: what it asks for (`?locale=`, or
 * `Accept-Language` when fromHeader), each field's resolution chain, the
 * response shape of each mode, and the envelope's direction.
 */
import { inProcessOf } from '../http/in-process.js';
import type { Context } from '../pipeline/context.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { RecordData } from '../store/codec.js';
import type { ResolvedLocales } from './options.js';
import { type LegacyNotice, type LocalizedRule, localePlanOf, type ModelLocale } from './plan.js';
import { isRtl, type RequestedLocale, requestedLocale } from './resolve.js';

const NO_CHAINS: readonly (readonly string[])[] = Object.freeze([]);

export class RequestLocale implements LegacyNotice {
  /** Chains with the requested locale in front, per rule, built on first use. */
  private chains: Map<LocalizedRule, readonly string[]> | null = null;
  /** The model `project` last saw, its plan and its rules' chains in rule order: a response shows one model's records, row after row. */
  private lastModel: ModelMeta | null = null;
  private lastPlan: ModelLocale | null = null;
  private lastChains: readonly (readonly string[])[] = NO_CHAINS;
  private warned = false;

  constructor(
    readonly requested: RequestedLocale,
    readonly locales: ResolvedLocales,
    /** Told once per request when a stored value is a plain string left by older data. */
    private readonly onLegacy: (model: ModelMeta, field: string, id: unknown) => void = () => {},
    /** Every field answered in split mode, whatever its own (an in-process call's `localeMaps`). */
    private readonly maps = false,
  ) {}

  /** The locale a field's request resolves to first: where a bare string is stored and where filters and sorts look. */
  effective(rule: LocalizedRule): string {
    return this.requested.code ?? rule.base[0]!;
  }

  /** The resolution chain of a field: requested, field default_locale, model default, app default. */
  chain(rule: LocalizedRule): readonly string[] {
    const code = this.requested.code;
    if (code === null || code === rule.base[0]) return rule.base;
    this.chains ??= new Map();
    let chain = this.chains.get(rule);
    if (!chain) this.chains.set(rule, (chain = [code, ...rule.base.filter((c) => c !== code)]));
    return chain;
  }

  /** The plan of a model, with this request's chain of each rule in `lastChains`, worked out once per model a request shows. */
  private planOf(model: ModelMeta): ModelLocale | null {
    if (model !== this.lastModel) {
      const plan = localePlanOf(model, this.locales);
      this.lastModel = model;
      this.lastPlan = plan;
      // Without a requested locale every chain is the rule's base, kept on the plan.
      this.lastChains = !plan ? NO_CHAINS : this.requested.code === null ? plan.baseChains : plan.rules.map((rule) => this.chain(rule));
    }
    return this.lastPlan;
  }

  /** Tells the first plain string left by older data once per request (LegacyNotice). */
  legacy(model: ModelMeta, field: string, id: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.onLegacy(model, field, id);
  }

  /**
   * A whole record as a response without `select` shows it: its visible
   * fields, localized ones in their modes' shapes (see `project`), in one
   * generated step (ModelLocale.visible); null for a model without localized fields.
   */
  visible(model: ModelMeta, record: RecordData): RecordData | null {
    const plan = this.planOf(model);
    return plan ? (this.maps ? plan.visibleMaps : plan.visible)(record, this.lastChains, this.requested.explicit, this, model) : null;
  }

  /**
   * Rewrites the localized fields of a projected record (`out`, already
   * limited to visible and selected fields) into the shapes of their modes:
   * split, the string and the `<field><suffix>` map; resolve, the string;
   * dynamic, the string with `?locale=`, else the map as stored.
   */
  project(model: ModelMeta, out: RecordData, id: unknown): void {
    const plan = this.planOf(model);
    if (!plan) return;
    const legacy = (this.maps ? plan.localizeMaps : plan.localize)(out, this.lastChains, this.requested.explicit);
    // A plain string left by older data: logged once per request.
    if (legacy !== null) this.legacy(model, legacy, id);
  }

  /** `rtl` when the envelope of `model` resolves to a right-to-left locale, else null. */
  direction(model: ModelMeta): 'rtl' | null {
    if (this.locales.rtl.size === 0) return null;
    const code = this.requested.code ?? localePlanOf(model, this.locales)?.fallback ?? this.locales.default;
    return isRtl(code, this.locales) ? 'rtl' : null;
  }
}

/**
 * The locale of a request, read from its `locale` parameter and (when
 * fromHeader) its Accept-Language header, once per request. A legacy scalar
 * is logged as a warning once per request, naming model, field and id.
 *
 * @example
 * const locale = requestLocaleOf(ctx, registry.locales); // ?locale=de → locale.requested.code === 'de'
 */
export function requestLocaleOf(ctx: Context, locales: ResolvedLocales): RequestLocale {
  let found = ctx.localeState;
  if (found) return found;
  const query = ctx.searchParamsIfAny?.get('locale') ?? undefined;
  const header = locales.fromHeader ? ctx.req.headers['accept-language'] : undefined;
  found = new RequestLocale(
    requestedLocale(query, header, locales),
    locales,
    (model, field, id) => {
      ctx.log.warn(
        { requestId: ctx.requestId, model: model.name, field, id },
        'a localized field holds a plain string left by older data; answered as it is (write the field again to store a locale map); further ones in this request are not logged',
      );
    },
    inProcessOf(ctx.req)?.localeMaps === true,
  );
  ctx.localeState = found;
  return found;
}
