/**
 * Field IR constructors: declared fields start with every flag off; base
 * columns carry the spec's fixed rules plus the model's `base:` options.
 */
import type { BaseColumn, FieldType, ScalarType } from '@mfx/runtime/manifest';
import type { Span } from './diagnostics.js';
import type { FieldIR } from './model.js';
import type { BaseOption, ModelDraft } from './directives/rule.js';

/** A field with every boolean flag present and off, so the manifest is deterministic. */
export function newField(init: {
  name: string;
  type: FieldType;
  items?: ScalarType;
  nullable: boolean;
  description?: string;
  span: Span;
  order: number;
}): FieldIR {
  return {
    name: init.name,
    column: init.name,
    type: init.type,
    ...(init.items ? { items: init.items } : {}),
    nullable: init.nullable,
    ...(init.description ? { description: init.description } : {}),
    required: false,
    readonly: false,
    immutable: false,
    writeonly: false,
    hidden: false,
    filterable: false,
    sortable: false,
    searchable: false,
    unique: false,
    index: false,
    span: init.span,
    order: init.order,
  };
}

function baseField(name: BaseColumn, type: FieldType, nullable: boolean, span: Span, options: ReadonlySet<BaseOption>): FieldIR {
  const field = newField({ name, type, nullable, span, order: -1 });
  field.base = name;
  // Base columns are written by the runtime only; options are added to readonly, never replace it.
  field.readonly = true;
  field.filterable = options.has('filterable');
  field.sortable = options.has('sortable');
  field.index = options.has('index');
  field.hidden = options.has('hidden');
  return field;
}

/** The base columns that come before the declared fields. */
export function leadingBaseFields(model: ModelDraft): FieldIR[] {
  return [baseField('id', 'string', false, model.ir.span, model.base.id)];
}

/** The base columns that follow the declared fields: timestamps, then the soft-delete marker. */
export function trailingBaseFields(model: ModelDraft): FieldIR[] {
  const fields = [
    baseField('created_at', 'timestamp', false, model.ir.span, model.base.created_at),
    baseField('updated_at', 'timestamp', false, model.ir.span, model.base.updated_at),
  ];
  const marker = model.ir.options.softDelete;
  if (marker) {
    // The marker is filterable so clients can ask for deleted rows (spec: filter=deleted_at:not_null).
    const markerOptions = new Set<BaseOption>(['filterable']);
    const field =
      marker.type === 'boolean'
        ? baseField('is_deleted', 'boolean', false, model.ir.span, markerOptions)
        : baseField('deleted_at', 'timestamp', true, model.ir.span, markerOptions);
    if (marker.type === 'boolean') field.default = false;
    fields.push(field);
  }
  return fields;
}
