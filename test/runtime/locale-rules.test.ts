// The locale rules (issue 17) as functions: options checked at boot, the
// requested locale, the mode order, the resolution chain and what a write
// stores. The end-to-end behaviour is tested through HTTP in localized-fields tests.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldManifest } from '../../runtime/src/manifest/types.js';
import { resolveLocales } from '../../runtime/src/locale/options.js';
import { isRtl, localeChain, localeMode, requestedLocale, storedMap, textOf } from '../../runtime/src/locale/resolve.js';

const locales = resolveLocales({ supported: ['en', 'de', 'pt-BR', 'ar'], fromHeader: true, rtl: ['ar'] });
const field = (locale: FieldManifest['locale'] = {}) => ({ name: 'title', locale }) as FieldManifest;

describe('locale options', () => {
  it('fills in the defaults', () => {
    const resolved = resolveLocales();
    assert.equal(resolved.supported, null);
    assert.equal(resolved.default, 'en');
    assert.equal(resolved.fromHeader, false);
    assert.equal(resolved.defaultMode, 'split');
    assert.equal(resolved.splitSuffix, '_i18n');
  });

  it('refuses a malformed code, a default outside supported, an unknown mode and a bad suffix, naming the option', () => {
    assert.throws(() => resolveLocales({ supported: ['en', 'e n'] }), { message: 'mfx: locales.supported[1]: "e n" is not a locale code; write codes such as en, de or pt-BR' });
    assert.throws(() => resolveLocales({ supported: ['de'] }), { message: 'mfx: locales.default "en" is not in locales.supported (de)' });
    assert.throws(() => resolveLocales({ supported: [] }), /locales.supported is empty/);
    assert.throws(() => resolveLocales({ defaultMode: 'both' as never }), { message: 'mfx: locales.defaultMode must be one of split, resolve, dynamic, got "both"' });
    assert.throws(() => resolveLocales({ splitSuffix: '' }), /locales.splitSuffix must be letters/);
  });
});

describe('the requested locale', () => {
  it('?locale= wins; an unsupported code falls back to the default; case is forgiven', () => {
    assert.deepEqual(requestedLocale('de', 'ar', locales), { code: 'de', explicit: true });
    assert.deepEqual(requestedLocale('fr', 'de', locales), { code: 'en', explicit: true });
    assert.deepEqual(requestedLocale('pt-br', undefined, locales), { code: 'pt-BR', explicit: true });
  });

  it('Accept-Language when fromHeader: first supported in written order, quality ignored, a language matching its base', () => {
    assert.deepEqual(requestedLocale(undefined, 'fr-CH, fr;q=0.9, de;q=0.1, en;q=0.8', locales), { code: 'de', explicit: false });
    assert.deepEqual(requestedLocale(undefined, 'de-AT', locales), { code: 'de', explicit: false });
    assert.deepEqual(requestedLocale(undefined, '*, fr', locales), { code: null, explicit: false });
    assert.deepEqual(requestedLocale(undefined, 'de', resolveLocales({ supported: ['en', 'de'] })), { code: null, explicit: false }, 'fromHeader off');
  });
});

describe('modes and the chain', () => {
  it('mode: field, then model, then app, then split', () => {
    assert.equal(localeMode(field({ mode: 'dynamic' }), 'resolve', locales), 'dynamic');
    assert.equal(localeMode(field(), 'resolve', locales), 'resolve');
    assert.equal(localeMode(field(), null, resolveLocales({ defaultMode: 'resolve' })), 'resolve');
    assert.equal(localeMode(field(), null, locales), 'split');
  });

  it('chain: requested, field default_locale, model default, app default; the first non-empty wins, then any', () => {
    const chain = localeChain({ code: 'ar', explicit: true }, field({ defaultLocale: 'pt-BR' }), 'de', locales);
    assert.deepEqual(chain, ['ar', 'pt-BR', 'de', 'en']);
    assert.equal(textOf({ ar: '', 'pt-BR': 'Olá', en: 'Hello' }, chain), 'Olá');
    assert.equal(textOf({ fr: 'Bonjour' }, chain), 'Bonjour');
    assert.equal(textOf({}, chain), null);
  });

  it('writes: the companion map wins, a bare string stores only the effective locale, a map as it is', () => {
    assert.deepEqual(storedMap({ title: 'ignored', title_i18n: { en: 'A', de: 'B' } }, 'title', '_i18n', 'de'), { en: 'A', de: 'B' });
    assert.deepEqual(storedMap({ title: 'Hallo' }, 'title', '_i18n', 'de'), { de: 'Hallo' });
    assert.deepEqual(storedMap({ title: { en: 'Hi' } }, 'title', '_i18n', 'de'), { en: 'Hi' });
    assert.equal(storedMap({ other: 1 }, 'title', '_i18n', 'de'), undefined);
  });

  it('rtl: only a resolved locale in the list', () => {
    assert.equal(isRtl('ar', locales), true);
    assert.equal(isRtl('en', locales), false);
    assert.equal(isRtl(null, locales), false);
  });
});
