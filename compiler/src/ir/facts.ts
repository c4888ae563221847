/**
 * What the analyzer learns from TypeScript, before any directive is read.
 *
 * This is the boundary between `analyze/` (which knows ts-morph) and `ir/`
 * (which does not): everything below is plain data.
 */
import type { FieldType, ScalarType } from '@mfx/runtime/manifest';
import type { Span } from './diagnostics.js';

/** The TypeScript type of a property, reduced to what the compiler cares about (null and undefined removed). */
export type TypeShape =
  | {
      kind: 'value';
      type: FieldType;
      /** Element type of a `json_array`, when it is a known scalar. */
      items?: ScalarType;
      /** `unknown` or `any`: stored as a JSON object unless `json_array` says otherwise. */
      opaque?: boolean;
      /** A map whose values are all strings (`Record<string, string>`), which `locale` may turn into a localized field. */
      stringMap?: boolean;
    }
  | {
      kind: 'model';
      /** Name of the referenced interface. */
      target: string;
      /** An array of the interface (HasMany or ManyToMany) rather than one (a companion). */
      many: boolean;
    }
  | {
      kind: 'unsupported';
      /** The type as TypeScript prints it. */
      text: string;
      /** Why it cannot be stored, and what to write instead. */
      reason: string;
    };

export interface PropertyFacts {
  name: string;
  shape: TypeShape;
  /** The type includes `null` or `undefined`, or the property is optional. */
  nullable: boolean;
  /** JSDoc text before the first tag. */
  description?: string;
  /** Text of each `@mfx` tag, in order. */
  directives: string[];
  span: Span;
}

export type SoftDeleteEmbed = 'SoftDelete' | 'SoftDeleteFlag';

export interface ModelFacts {
  name: string;
  description?: string;
  directives: string[];
  span: Span;
  /** Soft-delete interfaces from `@mfx/runtime` that the model extends. */
  embeds: SoftDeleteEmbed[];
  /** Declared properties: inherited interfaces' first, then the model's own, in source order. */
  properties: PropertyFacts[];
  /** Files that declare the model or a base it extends, and the user files they import. */
  files: string[];
}
