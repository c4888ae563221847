export { type SqlDialect, dialects, postgres, sqlite } from './dialect.js';
export { type ModelShape, type StoredColumn, HMAC_SUFFIX, absentValue, storedColumns, zeroValue } from './columns.js';
export { buildHistoryTemplates, buildSqlTemplates, columnDefinitions, constraintName, type HistoryTemplates, historyTableName, notDeleted } from './templates.js';
