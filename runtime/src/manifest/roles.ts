/**
 * What a field may be used for, derived from its directives in one place.
 *
 * Every consumer reads these roles instead of combining directive flags on its
 * own: the compiler's body schemas, the body stripping of the Validate step, the
 * query parser, the response projection, the OpenAPI document, history, audit
 * and (later) events and export. A field the parser refuses is therefore never
 * advertised as usable, and a field that never leaves the server never reaches
 * a diff.
 */
import type { FieldManifest } from './types.js';

export interface FieldRoles {
  /** Accepted in a create body: not a base column, not readonly, not hidden. */
  writable: boolean;
  /**
   * Must be in a create body: writable and declared `required`, or a
   * writable NOT NULL foreign key without a default (its zero value `''`
   * names no parent, so leaving it out could only fail later).
   */
  requiredOnCreate: boolean;
  /** Accepted in an update body: writable and not immutable. */
  updatable: boolean;
  /** Present in response records: neither hidden nor writeonly. */
  visible: boolean;
  /** Usable in `filter` (and aggregate where): declared filterable, visible, not encrypted. */
  filterable: boolean;
  /** Usable in `sort`: declared sortable, visible, not encrypted. */
  sortable: boolean;
  /** Usable in `select`: visible. */
  selectable: boolean;
  /** Covered by `q`: declared searchable on a plain text column, visible. */
  searchable: boolean;
  /** Written to history, audit diffs, events and exports: visible and not encrypted. */
  recorded: boolean;
}

export type FieldRole = keyof FieldRoles;

export const FIELD_ROLES: readonly FieldRole[] = ['writable', 'requiredOnCreate', 'updatable', 'visible', 'filterable', 'sortable', 'selectable', 'searchable', 'recorded'];

/**
 * The roles of one field. Pure and cheap, but callers compute it once per
 * field (ModelMeta does at load) rather than per request.
 *
 * @example
 * fieldRoles(model.field('password')!) // { writable: true, visible: false, filterable: false, ... }
 */
export function fieldRoles(field: FieldManifest): FieldRoles {
  const writable = !field.base && !field.readonly && !field.hidden;
  const visible = !field.hidden && !field.writeonly;
  const secret = field.encrypted !== undefined;
  const foreignKey = field.relation !== undefined && !field.nullable && field.default === undefined;
  return {
    writable,
    requiredOnCreate: writable && (field.required || foreignKey),
    updatable: writable && !field.immutable,
    visible,
    filterable: field.filterable && visible && !secret,
    sortable: field.sortable && visible && !secret,
    selectable: visible,
    searchable: field.searchable && field.type === 'string' && visible,
    recorded: visible && !secret,
  };
}
