export { type AddedColumn, type DroppedKeys, type SchemaSnapshot, type SqlDialect, type UniqueKeyInfo, dialects, postgres, sqlite } from './dialect.js';
export { type ModelShape, type StoredColumn, HMAC_SUFFIX, absentValue, storedColumns, zeroValue } from './columns.js';
export {
  type ColumnSpec,
  constraintName,
  type ForeignKeySpec,
  historyTable,
  historyTableName,
  type IndexColumn,
  type IndexSpec,
  type LiveMarker,
  modelTable,
  searchColumns,
  tableIndexes,
  type TableSpec,
} from './schema.js';
export { buildHistoryTemplates, buildSqlTemplates, type HistoryTemplates, notDeleted } from './templates.js';
