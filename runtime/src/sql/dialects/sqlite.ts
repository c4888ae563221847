import type { ColumnInfo } from '../../db/adapter.js';
import { ApiError } from '../../errors/api-error.js';
import { addColumnStatement, createIndexStatement, createTableStatement } from '../ddl.js';
import type { SqlDialect } from '../dialect.js';
import { constraintName, type TableSpec } from '../schema.js';
import { constraintViolated, deleteRestricted, type DriverError, duplicateKey, groupUniqueKeys, missingParent, quoteIdentifier, quoteString } from './shared.js';

/** A LIKE pattern (`%`, `_`) as a GLOB pattern (`*`, `?`), GLOB's own specials made literal. */
function likeToGlob(pattern: string): string {
  let out = '';
  for (const ch of pattern) {
    if (ch === '%') out += '*';
    else if (ch === '_') out += '?';
    else if (ch === '*' || ch === '?' || ch === '[') out += `[${ch}]`;
    else out += ch;
  }
  return out;
}

/** Name of the SQLite FTS5 table that indexes a model's searchable columns. */
export const searchTableName = (table: string): string => `${table}_fts`;

/** "UNIQUE constraint failed: users.email" / "NOT NULL constraint failed: posts.title" */
function mapSqliteError(error: unknown, op?: string): ApiError {
  const { code = '', message = '' } = (error ?? {}) as DriverError;
  const target = /constraint failed: ([^.\s,]+)\.([^\s,]+)/.exec(message);
  const details = { table: target?.[1] ?? null, column: target?.[2] ?? null, detail: message };
  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return duplicateKey(target?.[2], details);
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return op === 'delete' ? deleteRestricted() : missingParent();
    case 'SQLITE_CONSTRAINT_NOTNULL':
    case 'SQLITE_CONSTRAINT_CHECK':
      return constraintViolated(details);
    default:
      return new ApiError('DB_ERROR');
  }
}

/**
 * Recreates `table` from its spec with every row (and rowid, which an FTS5
 * external-content index points at) copied over, in the migration's
 * transaction. Foreign keys stay on: their checks are deferred to COMMIT, and
 * the children of the rows dropped with the old table find them again in the
 * new one (SQLite counts a deferred violation undone when the parent row
 * comes back), so the transaction commits only if every reference holds.
 */
function rebuildTable(table: TableSpec): string[] {
  const q = quoteIdentifier;
  const hold = q(constraintName('mfx_rebuild', table.name));
  const columns = table.columns.map((c) => q(c.name)).join(', ');
  return [
    'PRAGMA defer_foreign_keys = ON',
    `CREATE TABLE ${hold} AS SELECT rowid AS ${q('mfx_rowid')}, ${columns} FROM ${q(table.name)}`,
    `DROP TABLE ${q(table.name)}`,
    sqlite.createTable(table),
    `INSERT INTO ${q(table.name)} (rowid, ${columns}) SELECT ${q('mfx_rowid')}, ${columns} FROM ${hold}`,
    `DROP TABLE ${hold}`,
  ];
}

export const sqlite: SqlDialect = {
  name: 'sqlite',
  quote: quoteIdentifier,
  param: () => '?',
  columnType(type) {
    switch (type) {
      case 'number':
        return 'REAL';
      case 'integer':
      case 'bigint':
      case 'boolean':
        return 'INTEGER';
      default:
        return 'TEXT';
    }
  },
  literal(value, type) {
    if (value === null) return 'NULL';
    if (type === 'boolean') return value ? '1' : '0';
    if (typeof value === 'number') return String(value);
    if (typeof value === 'string' && type !== 'json_array' && type !== 'json_object' && type !== 'localized') {
      return quoteString(value);
    }
    return quoteString(JSON.stringify(value));
  },
  bool: (value) => (value ? '1' : '0'),
  lockRowsClause: '',
  lockRowsNoKeyClause: '',
  lockRowsSkipLockedClause: '',
  unindexed: (column) => `+${column}`,
  latePageRows: true,
  failedStatementAbortsTransaction: false,
  mapError: mapSqliteError,

  // SQLite cannot add a foreign key to an existing table: references are declared with their column.
  createTable: (table) => createTableStatement(sqlite, table, true),
  createIndex: (table, index) => createIndexStatement(sqlite, table, index),
  addColumn(table, column) {
    const { unique, references, ...declared } = column;
    // ADD COLUMN refuses UNIQUE (a unique index does the same), and REFERENCES with a non-null default.
    const keepsReference = references && (column.default === undefined || column.default === null);
    const statements = [addColumnStatement(sqlite, table, keepsReference ? { ...declared, references } : declared, true)];
    if (unique) statements.push(createIndexStatement(sqlite, table, { name: constraintName('uq', table, column.name), columns: [column.name], unique: true }));
    const warning =
      references && !keepsReference
        ? `${table}.${column.name} was added without its foreign-key constraint (SQLite cannot add one to an existing table with a non-null default); recreate the table to enforce it`
        : null;
    return { statements, warning };
  },
  addForeignKey: () => [],
  validateForeignKey: () => {
    throw new Error('mfx: SQLite declares foreign keys with their column; there is nothing to validate');
  },
  dropUniqueKeys(table, keys) {
    const q = quoteIdentifier;
    // A column's UNIQUE lives in an autoindex no statement can drop: the table is rebuilt without it.
    if (keys.some((k) => k.kind === 'constraint')) return { statements: rebuildTable(table), rebuildsTable: true };
    return { statements: keys.map((k) => `DROP INDEX ${q(k.name)}`), rebuildsTable: false };
  },
  renameIndex: (table, from, to) => [`DROP INDEX ${quoteIdentifier(from)}`, createIndexStatement(sqlite, table, to)],
  renameConstraint: () => {
    throw new Error('mfx: SQLite declares constraints with their column; a column rename carries them');
  },
  // The FTS5 table declares the content table's column names, and a column rename does not reach it.
  dropSearchBeforeRename(table, schema) {
    const fts = searchTableName(table);
    if (!schema.tables.has(fts)) return [];
    return [...['ai', 'ad', 'au'].map((suffix) => `DROP TRIGGER IF EXISTS ${quoteIdentifier(`${fts}_${suffix}`)}`), `DROP TABLE ${quoteIdentifier(fts)}`];
  },
  renameJsonKey(table, column, from, to) {
    const c = quoteIdentifier(column);
    const [old, now] = [quoteString(`$.${JSON.stringify(from)}`), quoteString(`$.${JSON.stringify(to)}`)];
    return (
      `UPDATE ${quoteIdentifier(table)} SET ${c} = json_set(json_remove(${c}, ${old}), ${now}, ${c} -> ${old}) ` +
      `WHERE json_valid(${c}) AND json_type(${c}, ${old}) IS NOT NULL AND json_type(${c}, ${now}) IS NULL`
    );
  },
  alterColumnByHand(table, column) {
    // SQLite changes neither a column's type nor its NOT NULL in place: a new column takes the values, then the name.
    const q = quoteIdentifier;
    const type = sqlite.columnType(column.type);
    const temporary = `${column.name}__mfx_new`;
    // ADD COLUMN refuses NOT NULL without a default, UNIQUE and (with a default) REFERENCES: those come back with the indexes.
    const notNull = !column.nullable && column.default !== undefined && column.default !== null;
    const definition = [q(temporary), type, ...(notNull ? ['NOT NULL', `DEFAULT ${sqlite.literal(column.default!, column.type)}`] : [])].join(' ');
    const cast = `CAST(${q(column.name)} AS ${type})`;
    const value = notNull ? `COALESCE(${cast}, ${sqlite.literal(column.default!, column.type)})` : cast;
    return {
      statements: [
        `ALTER TABLE ${q(table)} ADD COLUMN ${definition}`,
        `UPDATE ${q(table)} SET ${q(temporary)} = ${value}`,
        `ALTER TABLE ${q(table)} DROP COLUMN ${q(column.name)}`,
        `ALTER TABLE ${q(table)} RENAME COLUMN ${q(temporary)} TO ${q(column.name)}`,
      ],
      note: 'SQLite refuses to drop a column an index uses: drop that index first, and the next migration creates it again; a UNIQUE or foreign-key column needs the table rebuilt, as https://www.sqlite.org/lang_altertable.html#otheralter shows',
    };
  },
  async introspect(db) {
    const rows = await db.raw(
      `SELECT m.name AS "table", c.name AS name, c.type AS type, c."notnull" AS nn, c.pk AS pk, c.dflt_value IS NOT NULL AS hd
       FROM sqlite_master m JOIN pragma_table_info(m.name) c
       WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, c.cid`,
    );
    const tables = new Map<string, ColumnInfo[]>();
    for (const row of rows) {
      const columns = tables.get(String(row.table)) ?? [];
      columns.push({ name: String(row.name), type: String(row.type).toLowerCase(), nullable: row.nn === 0 && row.pk === 0, hasDefault: row.hd === 1 });
      tables.set(String(row.table), columns);
    }
    const indexes = await db.raw(`SELECT name, tbl_name AS "table" FROM sqlite_master WHERE type = 'index'`);
    const keys = await db.raw(
      `SELECT m.name AS "table", il.name AS name, il.origin AS origin, il.partial AS partial, ii.name AS "column"
       FROM sqlite_master m JOIN pragma_index_list(m.name) il JOIN pragma_index_info(il.name) ii
       WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND il."unique" = 1 AND il.origin != 'pk'
       ORDER BY m.name, il.name, ii.seqno`,
    );
    return {
      tables,
      foreignKeys: [],
      uniqueKeys: groupUniqueKeys(keys, (row) => (row.origin === 'c' ? 'index' : 'constraint')),
      indexes: new Map(indexes.map((row) => [String(row.name), String(row.table)])),
    };
  },
  // BEGIN IMMEDIATE already holds the database's one write lock.
  migrationLock: [],
  searchStatements(table, columns) {
    const q = quoteIdentifier;
    const fts = q(searchTableName(table));
    const cols = columns.map(q).join(', ');
    const values = (row: string) => columns.map((c) => `${row}.${q(c)}`).join(', ');
    const trigger = (suffix: string) => q(`${searchTableName(table)}_${suffix}`);
    // External content: the FTS index follows the table through triggers, so every write path (raw SQL too) keeps it in sync.
    return [
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(${cols}, content=${quoteString(table)}, content_rowid='rowid')`,
      `CREATE TRIGGER IF NOT EXISTS ${trigger('ai')} AFTER INSERT ON ${q(table)} BEGIN INSERT INTO ${fts} (rowid, ${cols}) VALUES (new.rowid, ${values('new')}); END`,
      `CREATE TRIGGER IF NOT EXISTS ${trigger('ad')} AFTER DELETE ON ${q(table)} BEGIN INSERT INTO ${fts} (${fts}, rowid, ${cols}) VALUES ('delete', old.rowid, ${values('old')}); END`,
      `CREATE TRIGGER IF NOT EXISTS ${trigger('au')} AFTER UPDATE ON ${q(table)} BEGIN INSERT INTO ${fts} (${fts}, rowid, ${cols}) VALUES ('delete', old.rowid, ${values('old')}); INSERT INTO ${fts} (rowid, ${cols}) VALUES (new.rowid, ${values('new')}); END`,
    ];
  },
  searchMissingParts(table) {
    const names = ['', '_ai', '_ad', '_au'].map((suffix) => quoteString(searchTableName(table) + suffix));
    return `SELECT ${names.length} - COUNT(*) AS missing FROM sqlite_master WHERE name IN (${names.join(', ')})`;
  },
  searchBackfill: (table) => `INSERT INTO ${quoteIdentifier(searchTableName(table))} (${quoteIdentifier(searchTableName(table))}) VALUES ('rebuild')`,

  // SQLite's LIKE ignores ASCII case; GLOB is the case-sensitive matcher.
  likeSensitive(sql, column, pattern) {
    sql.text(`${column} GLOB `).value(likeToGlob(pattern));
  },
  likeInsensitive(sql, column, pattern) {
    sql.text(`${column} LIKE `).value(pattern);
  },
  likeInsensitiveEscaped(sql, column, pattern) {
    sql.text(`${column} LIKE `).value(pattern).text(" ESCAPE '\\'");
  },
  // json_valid first: a legacy scalar in a JSON column matches nothing instead of failing the statement.
  jsonArrayHas(sql, column, element) {
    sql.text(`EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(${column}) THEN ${column} END) WHERE json_each.value = `).value(element).text(')');
  },
  jsonObjectHas(sql, column, key, value) {
    sql.text(`EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(${column}) THEN ${column} END) WHERE json_each.key = `).value(key);
    sql.text(` AND (CASE json_each.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(json_each.value AS TEXT) END) = `).value(value).text(')');
  },
  // json_valid first, as above: a legacy scalar left as raw text reads as no key. The JSON path is bound.
  localeText(sql, column, locale) {
    if (locale === null) sql.text(column);
    else sql.text(`json_extract(CASE WHEN json_valid(${column}) THEN ${column} END, `).value(`$.${JSON.stringify(locale)}`).text(')');
  },
  textPosition(sql, haystack, needle) {
    sql.text(`instr(${haystack}, ${needle})`);
  },
  inTextValues(sql, column, values) {
    sql.text(`${column} IN (SELECT value FROM json_each(`).value(JSON.stringify(values)).text('))');
  },
  searchMatch(sql, table, alias, _columns, words) {
    const fts = quoteIdentifier(searchTableName(table));
    // Every word quoted: FTS5 query syntax in user text can never become an operator or a syntax error.
    const query = words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
    sql.text(`${quoteIdentifier(alias)}.rowid IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH `).value(query).text(')');
  },
  searchRanked(sql, { table, alias, words, limit, where }) {
    const fts = quoteIdentifier(searchTableName(table));
    const t = quoteIdentifier(alias);
    const query = words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
    // bm25 is lower-better (negative); negated so every backend ranks higher-better.
    sql.text(`SELECT ${t}."id" AS id, -bm25(${fts}) AS rank, snippet(${fts}, -1, '', '', '…', 16) AS snippet FROM ${fts} JOIN ${quoteIdentifier(table)} ${t} ON ${t}.rowid = ${fts}.rowid`);
    sql.text(` WHERE ${fts} MATCH `).value(query);
    where(sql);
    sql.text(` ORDER BY bm25(${fts}) ASC, ${t}."id" ASC LIMIT `).value(limit);
  },
};
