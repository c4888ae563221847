/**
 * The query parameters of a model's list and read routes, from the
 * registry: which fields filter, sort and select, which relation keys
 * include, and whether `q` and `cursor` apply.
 */
import type { FieldManifest } from '../manifest/types.js';
import { FILTER_OPS } from '../query/types.js';
import type { Registry } from '../registry/registry.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { TRUNCATED_KEY } from '../store/codec.js';
import { type Parameter, type Ref, ref, type Schema } from './types.js';

const JSON_OPS = ['has', 'not_has'];
const isJson = (field: FieldManifest) => field.type === 'json_array' || field.type === 'json_object';

/** Fields a client may name in `filter` and `sort`: exactly what the query parser accepts. */
const filterable = (model: ModelMeta) => model.fieldsWith('filterable');
const sortable = (model: ModelMeta) => model.fieldsWith('sortable');
const describeField = (f: FieldManifest) => `${f.name} (${f.type}${f.enum ? `: ${f.enum.join('|')}` : ''}${f.nullable ? ', nullable' : ''})`;

function filterDescription(model: ModelMeta, registry: Registry): string {
  const fields = filterable(model);
  const nested = [...model.relations.values()]
    .map((r) => {
      const target = registry.get(r.target);
      const names = target ? filterable(target).map((f) => f.name) : [];
      return names.length > 0 ? `${r.key}.{${names.join(', ')}}` : null;
    })
    .filter(Boolean);
  return [
    '`<field>:<operator>:<value>`, repeatable; clauses AND together.',
    `Filterable fields: ${fields.length > 0 ? fields.map(describeField).join(', ') : 'none'}.`,
    nested.length > 0 ? `Through relations (\`<relation>.<field>:<operator>:<value>\`): ${nested.join('; ')}.` : '',
    `Operators: ${FILTER_OPS.join(', ')}.`,
    '`in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value;',
    '`like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively;',
    `\`${JSON_OPS.join('`/`')}\` only on JSON columns${fields.some(isJson) ? ` (${fields.filter(isJson).map((f) => f.name).join(', ')})` : ''}: \`field:has:element\` or \`field:has:key=value\`.`,
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * `<field>:asc|desc` for every sortable field, also through BelongsTo
 * relations (`author.name:asc`); a localized one also as
 * `<field>.<locale>:asc|desc`, listed per supported locale, or as a
 * pattern when every code is accepted.
 */
function sortValues(model: ModelMeta, registry: Registry): { values: string[]; localized: string[]; anyLocalized: boolean } {
  const fields: { key: string; field: FieldManifest }[] = sortable(model).map((f) => ({ key: f.name, field: f }));
  for (const relation of model.relations.values()) {
    if (relation.kind !== 'belongsTo') continue;
    const target = registry.get(relation.target);
    if (target) fields.push(...sortable(target).map((f) => ({ key: `${relation.key}.${f.name}`, field: f })));
  }
  const supported = registry.locales.supported;
  const localized = fields.filter((f) => f.field.type === 'localized').map((f) => f.key);
  const keys = fields.map((f) => f.key);
  if (supported) for (const key of localized) keys.push(...[...supported].map((code) => `${key}.${code}`));
  return { values: keys.flatMap((k) => [`${k}:asc`, `${k}:desc`]), localized: supported ? [] : localized, anyLocalized: localized.length > 0 };
}

/** The items of the sort parameter: the enum, and the pattern of `<field>.<locale>` when any code is accepted. */
function sortItems({ values, localized }: ReturnType<typeof sortValues>): Schema {
  if (localized.length === 0) return { type: 'string', enum: values };
  const names = localized.map((k) => k.replaceAll('.', '\\.')).join('|');
  return { type: 'string', anyOf: [{ enum: values }, { pattern: `^(${names})\\.[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*(:(asc|desc))?$` }] };
}

/** Relation keys, and one nested level (`author.company`). */
function includeValues(model: ModelMeta, registry: Registry): string[] {
  const values: string[] = [];
  for (const relation of model.relations.values()) {
    values.push(relation.key);
    const target = registry.get(relation.target);
    if (target) for (const nested of target.relations.keys()) values.push(`${relation.key}.${nested}`);
  }
  return values;
}

function selectParameter(model: ModelMeta): Parameter {
  return {
    name: 'select',
    in: 'query',
    description: 'comma-separated field names; records then carry only those keys (plus included relations)',
    style: 'form',
    explode: false,
    schema: { type: 'array', items: { type: 'string', enum: model.fieldsWith('selectable').map((f) => f.name) } },
  };
}

/** What include loads, and its caps (the request model's query limits). */
function includeDescription(model: ModelMeta): string {
  const { maxIncludes, maxIncludePerParent, maxIncludeRows } = model.queryLimits;
  return [
    `comma-separated relation keys to load (one nested level, \`a.b\`; at most ${maxIncludes} paths); soft-deleted related rows are left out.`,
    `A list relation carries at most ${maxIncludePerParent} records per record (the first by id): a record whose list was cut names the relation in its \`${TRUNCATED_KEY}\` list (read the rest from the related list route).`,
    `A response carries at most ${maxIncludeRows} related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less.`,
  ].join(' ');
}

function includeParameter(model: ModelMeta, registry: Registry): Parameter | null {
  const values = includeValues(model, registry);
  if (values.length === 0) return null;
  return {
    name: 'include',
    in: 'query',
    description: includeDescription(model),
    style: 'form',
    explode: false,
    schema: { type: 'array', items: { type: 'string', enum: values } },
  };
}

const hasLocalized = (model: ModelMeta) => model.fields.some((f) => f.type === 'localized');

/** The `locale` parameter of create and update, whose bare strings are stored under it (models with localized fields). */
export const writeLocaleParameters = (model: ModelMeta): Ref[] => (hasLocalized(model) ? [ref('parameters', 'locale')] : []);

/** Parameters of the list route. */
export function listParameters(model: ModelMeta, registry: Registry): (Parameter | Ref)[] {
  const params: (Parameter | Ref)[] = [];
  const filterClause = { type: 'string', pattern: `^[^:]+:(${FILTER_OPS.join('|')})(:.*)?$` };
  if (filterable(model).length > 0) {
    params.push(
      { name: 'filter', in: 'query', description: filterDescription(model, registry), style: 'form', explode: true, schema: { type: 'array', items: filterClause } },
      {
        name: 'filter[N]',
        in: 'query',
        description:
          'OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400.',
        style: 'form',
        explode: true,
        schema: { type: 'array', items: filterClause },
        'x-mfx-name-pattern': '^filter\\[\\d+\\]$',
      },
    );
  }
  const sorts = sortValues(model, registry);
  if (sorts.values.length > 0) {
    params.push({
      name: 'sort',
      in: 'query',
      description: `repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id${
        sorts.anyLocalized ? ". A localized field sorts by the text of the request's locale; `<field>.<locale>:asc` sorts by that locale's text (a code outside the supported locales is 400)" : ''
      }`,
      style: 'form',
      explode: true,
      schema: { type: 'array', items: sortItems(sorts) },
    });
  }
  const include = includeParameter(model, registry);
  if (include) params.push(include);
  params.push(ref('parameters', 'page'), ref('parameters', 'limit'));
  const searchable = model.fieldsWith('searchable');
  if (searchable.length > 0) {
    params.push({ name: 'q', in: 'query', description: `full-text search over ${searchable.map((f) => f.name).join(', ')}`, schema: { type: 'string' } });
  }
  if (model.options.cursorField) {
    params.push({
      name: 'cursor',
      in: 'query',
      description: `keyset pagination by ${model.options.cursorField}: send it empty for the first page, then meta.next_cursor; meta is then {limit, next_cursor, has_more}`,
      schema: { type: 'string' },
    });
  }
  params.push(selectParameter(model));
  // Every read and list route takes it (spec: localized fields, RTL meta); where nothing is localized it changes nothing.
  params.push(ref('parameters', 'locale'));
  return params;
}

/** Parameters of the read route (and of create and update responses): include, select, locale. */
export function readParameters(model: ModelMeta, registry: Registry): (Parameter | Ref)[] {
  const params: (Parameter | Ref)[] = [];
  const include = includeParameter(model, registry);
  if (include) params.push(include);
  params.push(selectParameter(model));
  // Every read and list route takes it (spec: localized fields, RTL meta); where nothing is localized it changes nothing.
  params.push(ref('parameters', 'locale'));
  return params;
}
