/**
 * Types that user model declarations extend and use.
 *
 * They only exist for the compiler: `mfx build` reads them off the TypeScript
 * types and the runtime never looks at them. The brands are optional
 * properties, so plain numbers and maps are still assignable.
 *
 * @example
 * import type { Model, SoftDelete, Int, Localized } from '@mfx/runtime';
 *
 * export interface Post extends Model, SoftDelete {
 *   title: string;
 *   views: Int;
 *   summary: Localized;
 * }
 */

/** The base record: every model extends it, directly or through another interface. */
export interface Model {
  /** UUIDv4 primary key, assigned on create. */
  id: string;
  /** Set once on create. */
  created_at: Date;
  /** Refreshed on every update. */
  updated_at: Date;
}

/** Timestamp soft delete: DELETE sets `deleted_at` instead of removing the row. */
export interface SoftDelete {
  deleted_at?: Date | null;
}

/** Flag soft delete: DELETE sets `is_deleted` instead of removing the row. */
export interface SoftDeleteFlag {
  is_deleted?: boolean;
}

/** A 32-bit integer column (`number` is a double). */
export type Int = number & { readonly __mfxBrand?: 'Int' };

/** A localized string: a map of locale code to text, stored in one JSON column. */
export type Localized = Record<string, string> & { readonly __mfxBrand?: 'Localized' };
