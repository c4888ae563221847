/**
 * The model IR: everything the emitters need, resolved and checked.
 *
 * It mirrors the manifest contract (`@mfx/runtime/manifest`) but keeps
 * absolute source spans and the few facts that only the compiler needs.
 */
import type { FieldManifest, ModelOptions, OnDelete, RelationManifest } from '@mfx/runtime/manifest';
import type { Span } from './diagnostics.js';

/** A column of the model: a base column or a declared property. */
export interface FieldIR extends Omit<FieldManifest, 'source'> {
  span: Span;
  /** `relation:Name;onDelete:…` on a foreign-key field; the relation pass turns it into a BelongsTo. */
  explicitRelation?: { name: string; onDelete: OnDelete };
  /** Position among the declared properties (base columns: -1); relations are listed in this order. */
  order: number;
}

/** A property typed as a model or an array of models: a relation, not a column. */
export interface RelationPropertyIR {
  name: string;
  /** Name of the interface the property refers to. */
  target: string;
  many: boolean;
  /** `through:Junction` (ManyToMany). */
  through?: string;
  /** `relation:KEY`: which of the child's (or junction's) BelongsTo relations to use when several qualify. */
  pick?: string;
  /** A directive on it was already reported as wrong; relation checks leave it alone. */
  reported?: boolean;
  span: Span;
  order: number;
}

type WithoutSource<T> = T extends unknown ? Omit<T, 'source'> : never;

export type RelationIR = WithoutSource<RelationManifest> & { span: Span; order: number };

export interface ModelIR {
  name: string;
  /** snake_case plural of the name, or `table:`. */
  table: string;
  description?: string;
  /** Base columns first (id), declared fields, created_at, updated_at, then the soft-delete marker. */
  fields: FieldIR[];
  relationProperties: RelationPropertyIR[];
  /** Filled by the relation pass. */
  relations: RelationIR[];
  options: ModelOptions;
  span: Span;
  /** Files that declare the model or a base it extends, and the user files they import. */
  files: string[];
}

/** A field of the model by JSON name or column name (JSON name wins). */
export function findField(model: Pick<ModelIR, 'fields'>, name: string): FieldIR | undefined {
  return model.fields.find((f) => f.name === name) ?? model.fields.find((f) => f.column === name);
}
