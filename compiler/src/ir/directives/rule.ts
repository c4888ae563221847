/**
 * The shape of one catalogue row: how a directive is parsed, where it may
 * appear, which field types it fits, what it conflicts with, what it does to
 * the IR, which checks it needs once the model is complete, and its
 * JSON-Schema fragment.
 */
import type { FieldManifest, FieldType } from '@mfx/runtime/manifest';
import type { Span } from '../diagnostics.js';
import type { TypeShape } from '../facts.js';
import type { FieldIR, ModelIR, RelationPropertyIR } from '../model.js';
import type { DirectiveUse } from './syntax.js';

/** Base columns that accept `base:` options, and the options each accepts (spec, "Base record columns"). */
export const BASE_OPTIONS = {
  id: ['filterable', 'sortable'],
  created_at: ['filterable', 'sortable', 'index', 'hidden'],
  updated_at: ['filterable', 'sortable', 'index', 'hidden'],
} as const;

export type BaseOptionColumn = keyof typeof BASE_OPTIONS;
export type BaseOption = (typeof BASE_OPTIONS)[BaseOptionColumn][number];

/** A model while its directives and properties are being read. */
export interface ModelDraft {
  ir: ModelIR;
  base: Record<BaseOptionColumn, Set<BaseOption>>;
  versioned?: { diffOnly: boolean };
  versionedRequired: boolean;
  /** The keyset pagination field, from `cursor_field` on the model or on a property; resolved once the fields are known. */
  cursor?: { name: string; resolved: boolean };
}

export type ValueShape = Extract<TypeShape, { kind: 'value' }>;

/** What a field rule sees while a property is read. */
export interface FieldContext {
  model: ModelDraft;
  field: FieldIR;
  /** The property's TypeScript type, before directives changed it. */
  shape: ValueShape;
  /** Every directive name on the property. */
  present: ReadonlySet<string>;
  span: Span;
}

/** A check reports an error at the property or interface the directive sits on. */
export type Report = (message: string, hint?: string) => void;

export interface FieldRule<V> {
  /** Turn the written value into a typed value; throw DirectiveProblem when it is unusable. */
  parse(use: DirectiveUse): V;
  /** After a parse error: keep what is still certain, so one mistake is not reported again by later checks. */
  recover?(use: DirectiveUse, ctx: FieldContext): void;
  /** Accepts `;` sub-options (relation, scheduled). */
  options?: boolean;
  /** Field types it applies to, checked after the type-shaping rows (int, json_*, locale) ran. */
  types?: readonly FieldType[];
  /** Applies to a field when this returns true (used instead of `types` by the type-shaping rows). */
  fits?(ctx: FieldContext): boolean;
  /** Advice when the type does not fit, per type; the default lists the types it fits. */
  typeHints?: Partial<Record<FieldType, string>>;
  /** Another directive that must be on the same property. */
  requires?: string;
  /** Directives it cannot share a property with, and why (declared on one side of each pair). */
  conflicts?: Record<string, string>;
  apply(value: V, ctx: FieldContext): void;
  /** Runs once the whole model is assembled. */
  check?(value: V, ctx: FieldContext & { model: ModelDraft }, report: Report): void;
  /** The fragment this directive adds to the field's JSON Schema. */
  schema?(field: FieldManifest): Record<string, unknown> | undefined;
}

export interface RelationPropertyRule<V> {
  parse(use: DirectiveUse): V;
  /** Array properties only (HasMany, ManyToMany). */
  manyOnly?: boolean;
  apply(value: V, property: RelationPropertyIR): void;
}

export interface ModelRule<V> {
  parse(use: DirectiveUse): V;
  /** May appear several times (`base:`, `index:`, …). */
  repeatable?: boolean;
  apply(value: V, model: ModelDraft): void;
  /** Runs once the fields are assembled. */
  check?(value: V, model: ModelDraft, report: Report): void;
}

/** What the generated reference (docs/directives.md, written by `npm run docs`) says beyond the summary. */
export interface DirectiveDocs {
  /** How the directive is written when it takes a value or options (`min:N`); one entry per form. */
  syntax?: readonly string[];
  /** Sentences on what it does and when to use it (Markdown). */
  text?: string;
  /** What this version does not do with it yet, said plainly (Markdown). */
  limits?: string;
  /**
   * Models that use it, as a user writes them (without the import line).
   * test/docs compiles every example together with the types of
   * '@mfx/runtime' in scope, so model names are unique across the catalogue.
   */
  example?: string;
}

/** One directive: a row of the catalogue. */
export interface DirectiveRow {
  name: string;
  /** One line for docs and did-you-mean listings. */
  summary: string;
  docs?: DirectiveDocs;
  /** Set when the directive may sit on a property that is stored as a column. */
  field?: FieldRule<any>;
  /** Set when the directive may sit on a property typed as a model or an array of models. */
  relationProperty?: RelationPropertyRule<any>;
  /** Set when the directive may sit in the interface's own JSDoc. */
  model?: ModelRule<any>;
  /** `-`: the property is dropped before anything else is read. */
  excludes?: boolean;
}
