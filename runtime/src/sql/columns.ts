import type { FieldManifest, FieldType, JsonValue, ModelManifest } from '../manifest/types.js';

/** A column as stored: every field, plus the `<column>_hmac` companion of `encrypted,unique` fields. */
export interface StoredColumn {
  column: string;
  type: FieldType;
  nullable: boolean;
  /** The field this column stores; undefined for HMAC companions. */
  field?: FieldManifest;
  /** Set on blind-index companions: the column of the encrypted field. */
  hmacOf?: string;
}

/** The parts of a model the SQL layer needs; the compiler has these before it has the templates. */
export type ModelShape = Pick<ModelManifest, 'name' | 'table' | 'fields' | 'relations' | 'options'>;

export const HMAC_SUFFIX = '_hmac';

export function storedColumns(model: Pick<ModelShape, 'fields'>): StoredColumn[] {
  const columns: StoredColumn[] = [];
  for (const field of model.fields) {
    columns.push({ column: field.column, type: field.type, nullable: field.nullable, field });
    if (field.encrypted?.unique) {
      columns.push({ column: field.column + HMAC_SUFFIX, type: 'string', nullable: true, hmacOf: field.column });
    }
  }
  return columns;
}

/**
 * The value a NOT NULL column takes when a create leaves it out: the declared
 * default, else the zero value of its type (the spec's "zero value means absent").
 */
export function absentValue(field: FieldManifest): JsonValue {
  if (field.default !== undefined) return field.default;
  if (field.nullable) return null;
  return zeroValue(field.type);
}

export function zeroValue(type: FieldType): JsonValue {
  switch (type) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
    case 'bigint':
      return 0;
    case 'boolean':
      return false;
    case 'timestamp':
      return '0001-01-01T00:00:00.000Z';
    case 'json_array':
      return [];
    case 'json_object':
    case 'localized':
      return {};
  }
}
