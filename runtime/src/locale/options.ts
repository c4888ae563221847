/**
 * The server's locale options (`createServer({ locales })`), checked and
 * filled in once at boot.
 */
import { ConfigError } from '../errors/api-error.js';
import type { LocaleMode } from '../manifest/types.js';

export interface LocaleOptions {
  /** Locale codes the API answers in; default: any code. An unsupported requested code falls back to `default`. */
  supported?: string[];
  /** The app's default locale (default `en`). */
  default?: string;
  /** Read `Accept-Language` when there is no `?locale=` (first supported match, quality values ignored). Default false. */
  fromHeader?: boolean;
  /** Right-to-left codes: a response resolved to one carries `meta._dir: "rtl"`. */
  rtl?: string[];
  /** The response mode of localized fields that neither the field nor its model sets (default `split`). */
  defaultMode?: LocaleMode;
  /** The suffix of the full map beside the resolved string in split mode (default `_i18n`). */
  splitSuffix?: string;
}

export interface ResolvedLocales {
  /** Null: every code is supported. */
  supported: ReadonlySet<string> | null;
  default: string;
  fromHeader: boolean;
  rtl: ReadonlySet<string>;
  defaultMode: LocaleMode;
  splitSuffix: string;
}

const MODES: readonly LocaleMode[] = ['split', 'resolve', 'dynamic'];
/** A BCP 47-like code: a language, then subtags (en, pt-BR, zh-Hant-TW). */
const CODE = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

/** Checks a code (a ConfigError naming the option otherwise). */
function code(value: unknown, option: string): string {
  if (typeof value !== 'string' || !CODE.test(value)) throw new ConfigError(`locales.${option}: ${JSON.stringify(value)} is not a locale code; write codes such as en, de or pt-BR`);
  return value;
}

/**
 * Fills in the defaults and refuses what cannot work: malformed codes, a
 * default outside `supported`, an unknown mode, an empty suffix.
 *
 * @example
 * resolveLocales({ supported: ['en', 'ar'], rtl: ['ar'] }); // { default: 'en', defaultMode: 'split', splitSuffix: '_i18n', ... }
 */
export function resolveLocales(options: LocaleOptions = {}): ResolvedLocales {
  const supported = options.supported === undefined ? null : new Set(options.supported.map((c, i) => code(c, `supported[${i}]`)));
  if (supported && supported.size === 0) throw new ConfigError('locales.supported is empty; list the codes the API answers in, or leave it out to accept any');
  const fallback = code(options.default ?? 'en', 'default');
  if (supported && !supported.has(fallback)) throw new ConfigError(`locales.default "${fallback}" is not in locales.supported (${[...supported].join(', ')})`);
  const mode = options.defaultMode ?? 'split';
  if (!MODES.includes(mode)) throw new ConfigError(`locales.defaultMode must be one of ${MODES.join(', ')}, got ${JSON.stringify(mode)}`);
  const suffix = options.splitSuffix ?? '_i18n';
  if (typeof suffix !== 'string' || !/^[A-Za-z0-9_]+$/.test(suffix)) throw new ConfigError(`locales.splitSuffix must be letters, digits or underscores (such as _i18n), got ${JSON.stringify(suffix)}`);
  return {
    supported,
    default: fallback,
    fromHeader: options.fromHeader ?? false,
    rtl: new Set((options.rtl ?? []).map((c, i) => code(c, `rtl[${i}]`))),
    defaultMode: mode,
    splitSuffix: suffix,
  };
}
