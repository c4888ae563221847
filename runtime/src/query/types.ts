import type { FieldManifest } from '../manifest/types.js';

/** The list filter operators of the spec. */
export const FILTER_OPS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'contains',
  'starts_with',
  'ends_with',
  'has',
  'not_has',
  'in',
  'not_in',
  'between',
  'is_null',
  'not_null',
] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** One `filter=` clause, resolved against the registry and with its value coerced. */
export interface FilterClause {
  /** Relation keys walked before the field (`user.role` → ['user']). */
  path: string[];
  field: FieldManifest;
  op: FilterOp;
  /** Coerced value: a scalar, a list for in/not_in/between, `{key, value}` for has on objects, null for is_null/not_null. */
  value: unknown;
  /** 0 for a bare clause (its own AND term); N + 1 for `filter[N]` (same N are ORed). */
  group: number;
  /** Localized fields (runtime/src/locale): the key of `name.<locale>:op:value`, as written. */
  localeKey?: string;
  /** Localized fields: the map key the clause reads, or null for the raw column (dynamic mode without `locale`). */
  locale?: string | null;
}

export interface SortKey {
  path: string[];
  field: FieldManifest;
  direction: 'asc' | 'desc';
  /** Localized fields (runtime/src/locale): the key of `name.<locale>:asc`, as written. */
  localeKey?: string;
  /** Localized fields (runtime/src/locale): the map key the sort reads; unset sorts by the raw column. */
  locale?: string;
}

/** An include path: one or two relation keys (`author`, `author.company`). */
export type IncludePath = string[];

export interface ListQuery {
  filters: FilterClause[];
  sorts: SortKey[];
  /** 1-based page. */
  page: number;
  limit: number;
  include: IncludePath[];
  /** JSON names to return, or null for every visible field. */
  select: string[] | null;
  /** Full-text search, or null. */
  q: string | null;
  /** Keyset pagination token: '' asks for the first page; null means offset pagination. */
  cursor: string | null;
  locale: string | null;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 200;
