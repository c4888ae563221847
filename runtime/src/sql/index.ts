export { type SqlDialect, dialects, postgres, sqlite } from './dialect.js';
export { type ModelShape, type StoredColumn, HMAC_SUFFIX, absentValue, storedColumns, zeroValue } from './columns.js';
export { buildSqlTemplates, columnDefinitions, constraintName, notDeleted } from './templates.js';
