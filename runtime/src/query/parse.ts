import { ApiError } from '../errors/api-error.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { DEFAULT_LIMIT, type ListQuery, MAX_LIMIT } from './types.js';

const invalid = (message: string) => new ApiError('INVALID_QUERY', message);

/** A positive integer parameter, or a 400 naming it. */
function positiveInt(name: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw invalid(`${name} must be a positive integer, got "${raw.slice(0, 40)}"`);
  const value = Number(raw);
  if (value < 1 || !Number.isSafeInteger(value)) throw invalid(`${name} must be at least 1, got "${raw.slice(0, 40)}"`);
  return value;
}

/** page and limit: limit defaults to 20 and is clamped to 200; below 1 or not a number is 400. */
export function parsePaging(params: URLSearchParams): { page: number; limit: number } {
  const rawPage = params.get('page');
  const rawLimit = params.get('limit');
  const page = rawPage === null || rawPage === '' ? 1 : positiveInt('page', rawPage);
  const limit = rawLimit === null || rawLimit === '' ? DEFAULT_LIMIT : Math.min(positiveInt('limit', rawLimit), MAX_LIMIT);
  return { page, limit };
}

/** select=a,b: only visible fields by JSON or column name; anything else is 400. */
export function parseSelect(model: ModelMeta, params: URLSearchParams): string[] | null {
  const raw = params.getAll('select');
  if (raw.length === 0) return null;
  const names: string[] = [];
  for (const part of raw.flatMap((r) => r.split(','))) {
    const name = part.trim();
    if (name === '') continue;
    const field = model.field(name);
    if (!field || field.hidden || field.writeonly) {
      throw invalid(`select names unknown field "${name.slice(0, 60)}" of ${model.name}; selectable: ${model.visibleFields.map((f) => f.name).join(', ')}`);
    }
    if (!names.includes(field.name)) names.push(field.name);
  }
  return names.length > 0 ? names : null;
}

/** The read route's parameters: select (and include, see the relations module). */
export function parseReadQuery(model: ModelMeta, params: URLSearchParams): ListQuery {
  return { filters: [], sorts: [], page: 1, limit: 1, include: [], select: parseSelect(model, params), q: null, cursor: null, locale: params.get('locale') };
}

/** The list route's parameters. */
export function parseListQuery(model: ModelMeta, params: URLSearchParams): ListQuery {
  const { page, limit } = parsePaging(params);
  return {
    filters: [],
    sorts: [],
    page,
    limit,
    include: [],
    select: parseSelect(model, params),
    q: null,
    cursor: null,
    locale: params.get('locale'),
  };
}
