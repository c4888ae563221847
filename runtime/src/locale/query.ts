/**
 * Filters and sorts on localized fields (spec, "Localized string fields"):
 * in split and resolve modes they read the effective locale's key of the
 * map, text operators matching it case-insensitively; `name.<locale>:op:v`
 * and `sort=name.<locale>:asc` name the key; dynamic mode without `?locale=` reads the raw column. The
 * SQL that reads a key is the dialect's (`localeText`), the key bound as a
 * parameter.
 */
import type { FieldManifest } from '../manifest/types.js';
import { invalidQuery, notAField, quote } from '../query/messages.js';
import type { FilterClause, ListQuery, SortKey } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { SqlBuilder } from '../sql/builder.js';
import { localePlanOf } from './plan.js';
import type { RequestLocale } from './request.js';
import { supportedCode } from './resolve.js';

/** A locale code as a filter key may name it (the shape the locale options accept). */
const CODE = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

/**
 * `title.de` → `{ name: 'title', locale: 'de' }` when `title` (through
 * relations if dotted further) is a visible localized field; null
 * otherwise, so the name is read as usual. A suffix that is no locale code
 * is a 400 in the form of an unknown field's, naming the code.
 */
export function explicitLocaleKey(model: ModelMeta, dotted: string, use: 'filterable' | 'sortable'): { name: string; locale: string } | null {
  const at = dotted.lastIndexOf('.');
  if (at <= 0) return null;
  const locale = dotted.slice(at + 1);
  const name = dotted.slice(0, at);
  const parts = name.split('.');
  const fieldName = parts.pop()!;
  let owner: ModelMeta | undefined = model;
  for (const key of parts) owner = owner?.target(key)?.target;
  const field = owner?.field(fieldName);
  if (!owner || field?.type !== 'localized' || !owner.roles(field).visible) return null;
  if (!CODE.test(locale)) throw invalidQuery(notAField(owner, quote(dotted), use, `${quote(locale)} is not a locale code (such as en, de or pt-BR)`));
  return { name, locale };
}

const asText = new WeakMap<FieldManifest, FieldManifest>();

/** The field as operators see it: a localized field's key is text (contains, starts_with, eq, ...). */
export function filterableAs(field: FieldManifest): FieldManifest {
  if (field.type !== 'localized') return field;
  let text = asText.get(field);
  if (!text) asText.set(field, (text = { ...field, type: 'string' }));
  return text;
}

/** The model a path of relation keys leads to from `model`. */
function ownerOf(model: ModelMeta, path: readonly string[]): ModelMeta {
  let owner = model;
  for (const key of path) owner = owner.target(key)!.target;
  return owner;
}

/** The key a clause or sort on a localized field reads for this request, or null for the raw column. */
function keyFor(model: ModelMeta, path: readonly string[], field: FieldManifest, locale: RequestLocale): string | null {
  const rule = localePlanOf(ownerOf(model, path), locale.locales)?.byName.get(field.name);
  if (!rule) return null;
  if (rule.mode === 'dynamic' && !locale.requested.explicit) return null;
  return locale.effective(rule);
}

/**
 * Sets the key every localized filter and sort of a list query reads, for
 * this request. `like` on a key matches case-insensitively (the spec's
 * pattern match on the key); an explicit key (`name.<locale>`) must name a
 * supported locale (`explicitKey`).
 */
export function localizeQuery(model: ModelMeta, query: ListQuery, locale: RequestLocale): void {
  for (const clause of query.filters) {
    if (clause.field.type !== 'localized') continue;
    clause.locale = clause.localeKey !== undefined ? explicitKey(model, clause, 'filterable', locale) : keyFor(model, clause.path, clause.field, locale);
    if (clause.locale !== null && clause.op === 'like') clause.op = 'ilike';
  }
  for (const sort of query.sorts) {
    if (sort.field.type !== 'localized') continue;
    const key = sort.localeKey !== undefined ? explicitKey(model, sort, 'sortable', locale) : keyFor(model, sort.path, sort.field, locale);
    if (key !== null) sort.locale = key;
  }
}

/**
 * The key of `filter=name.<locale>:op:v` and `sort=name.<locale>:asc`: the
 * supported code it names (case forgiven). A code outside
 * `locales.supported` is a 400 in the form of an unknown field's, naming the
 * supported codes: no stored map can hold it, and reading another locale's
 * text instead (as an unsupported `?locale=` does) would answer a filter or
 * sort the client did not ask for as if it had worked.
 */
function explicitKey(model: ModelMeta, term: FilterClause | SortKey, use: 'filterable' | 'sortable', locale: RequestLocale): string {
  const code = supportedCode(term.localeKey!, locale.locales);
  if (code !== null) return code;
  const label = quote([...term.path, term.field.name, term.localeKey].join('.'));
  const supported = [...locale.locales.supported!].join(', ');
  const verb = use === 'filterable' ? 'filter' : 'sort';
  throw invalidQuery(notAField(ownerOf(model, term.path), label, use, `${quote(term.localeKey!)} is not a supported locale (${supported}); ${verb} by ${term.field.name}.<locale> with one of them`));
}

/**
 * One filter clause on a localized field: the operator applied to the
 * text of its key (or of the raw column), computed once per row in a
 * one-row derived table so operators that name their column twice bind
 * the key once.
 */
export function writeLocalizedClause(sql: SqlBuilder, column: string, clause: FilterClause, write: (column: string) => void): void {
  sql.text('EXISTS (SELECT 1 FROM (SELECT ');
  sql.dialect.localeText(sql, column, clause.locale ?? null);
  sql.text(' AS ').id('v').text(') ').id('lk').text(' WHERE ');
  write(`${sql.dialect.quote('lk')}.${sql.dialect.quote('v')}`);
  sql.text(')');
}
