import type { SqlBuilder } from './builder.js';
import { constraintName } from './templates.js';
import type { Dialect as DialectName, FieldManifest, FieldType, JsonValue } from '../manifest/types.js';

/**
 * The few places where SQLite and PostgreSQL differ.
 *
 * Everything else (DDL, CRUD statements, the query language) is written once
 * against this interface. Identifiers only ever come from the registry and go
 * through `quote`; values only ever go through `param`.
 */
export interface SqlDialect {
  readonly name: DialectName;
  /** Quote an identifier that came from the registry. */
  quote(identifier: string): string;
  /** Placeholder for the n-th bound value (1-based). */
  param(n: number): string;
  /** Column type in DDL. */
  columnType(field: Pick<FieldManifest, 'type' | 'base'>): string;
  /** SQL literal of a compile-time constant, for DEFAULT clauses only. */
  literal(value: JsonValue, type: FieldType): string;
  /** Literal for a boolean in generated SQL (soft-delete flags, for example). */
  bool(value: boolean): string;
  /** Whether FOREIGN KEY constraints are declared inline (SQLite) or added afterwards (PostgreSQL). */
  readonly inlineForeignKeys: boolean;
  /**
   * Appended to a SELECT that must lock the rows it reads until the
   * transaction ends (` FOR UPDATE`). Empty on SQLite, whose write
   * transactions already hold the one writer (BEGIN IMMEDIATE).
   */
  readonly lockRowsClause: string;
  /**
   * Whether a failed statement poisons the whole transaction (PostgreSQL):
   * work that may fail without failing the request runs inside a SAVEPOINT.
   */
  readonly failedStatementAbortsTransaction: boolean;
  /** Column type of a timestamp the runtime writes itself (history, idempotency). */
  readonly timestampType: string;

  // The query language: only where the two databases really differ.

  /** Case-sensitive raw `like` pattern (`%`, `_` wildcards, no escape character): the SQL after the column (`?` marks the value) and the value to bind. */
  likeSensitive(pattern: string): { operator: string; value: string };
  /** Case-insensitive raw `ilike` pattern: the SQL after the column, `?` marking the value. */
  readonly likeInsensitive: string;
  /** The SQL after the column (`?` marks the value) of a case-insensitive match of a pattern whose literal `%`, `_` and `\` are escaped with a backslash. */
  readonly likeInsensitiveEscaped: string;
  /** `<column>` holds a JSON array with `element` in it. */
  jsonArrayHas(sql: SqlBuilder, column: string, element: unknown): void;
  /** `<column>` holds a JSON object whose `key` has `value` (compared as text). */
  jsonObjectHas(sql: SqlBuilder, column: string, key: string, value: string): void;
  /** Position (1-based, 0 when absent) of `needle` in `haystack`, both SQL expressions. */
  textPosition(haystack: string, needle: string): string;
  /** `<column>` (a text column) is one of `values`, with one statement text whatever their number. */
  inTextValues(sql: SqlBuilder, column: string, values: readonly string[]): void;
  /** Statements that create the full-text index of `columns` (idempotent). */
  searchStatements(table: string, columns: readonly string[]): string[];
  /** Fills a newly created full-text index from the rows already in `table`, or null when the index fills itself. */
  searchBackfill(table: string): string | null;
  /** A query answering `{ missing }`: how many parts of the full-text index of `table` do not exist yet (null: nothing to check). */
  searchMissingParts(table: string): string | null;
  /** The row `alias` of `table` matches every word of `words` in `columns`. */
  searchMatch(sql: SqlBuilder, table: string, alias: string, columns: readonly string[], words: readonly string[]): void;
}

const quoteIdentifier = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

const quoteString = (value: string): string => `'${value.replaceAll("'", "''")}'`;

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

/** The PostgreSQL tsvector over the searchable columns; the GIN index and the query must spell it the same. */
function tsvector(columns: readonly string[], alias?: string): string {
  const ref = (c: string) => (alias ? `${quoteIdentifier(alias)}.` : '') + quoteIdentifier(c);
  return `to_tsvector('simple', ${columns.map((c) => `coalesce(${ref(c)}, '')`).join(` || ' ' || `)})`;
}

export const sqlite: SqlDialect = {
  name: 'sqlite',
  quote: quoteIdentifier,
  param: () => '?',
  columnType(field) {
    switch (field.type) {
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
  inlineForeignKeys: true,
  lockRowsClause: '',
  failedStatementAbortsTransaction: false,
  timestampType: 'TEXT',
  // SQLite's LIKE ignores ASCII case; GLOB is the case-sensitive matcher.
  likeSensitive: (pattern) => ({ operator: 'GLOB ?', value: likeToGlob(pattern) }),
  likeInsensitive: 'LIKE ?',
  likeInsensitiveEscaped: "LIKE ? ESCAPE '\\'",
  // json_valid first: a legacy scalar in a JSON column matches nothing instead of failing the statement.
  jsonArrayHas(sql, column, element) {
    sql.text(`EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(${column}) THEN ${column} END) WHERE json_each.value = `).value(element).text(')');
  },
  jsonObjectHas(sql, column, key, value) {
    sql.text(`EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(${column}) THEN ${column} END) WHERE json_each.key = `).value(key);
    sql.text(` AND (CASE json_each.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(json_each.value AS TEXT) END) = `).value(value).text(')');
  },
  textPosition: (haystack, needle) => `instr(${haystack}, ${needle})`,
  inTextValues(sql, column, values) {
    sql.text(`${column} IN (SELECT value FROM json_each(`).value(JSON.stringify(values)).text('))');
  },
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
  searchMatch(sql, table, alias, _columns, words) {
    const fts = quoteIdentifier(searchTableName(table));
    // Every word quoted: FTS5 query syntax in user text can never become an operator or a syntax error.
    const query = words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
    sql.text(`${quoteIdentifier(alias)}.rowid IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH `).value(query).text(')');
  },
};

export const postgres: SqlDialect = {
  name: 'postgres',
  quote: quoteIdentifier,
  param: (n) => `$${n}`,
  columnType(field) {
    switch (field.type) {
      case 'number':
        return 'double precision';
      case 'integer':
        return 'integer';
      case 'bigint':
        return 'bigint';
      case 'boolean':
        return 'boolean';
      case 'timestamp':
        return 'timestamptz';
      case 'json_array':
      case 'json_object':
      case 'localized':
        return 'jsonb';
      default:
        return 'text';
    }
  },
  literal(value, type) {
    if (value === null) return 'NULL';
    if (type === 'boolean') return value ? 'TRUE' : 'FALSE';
    if (typeof value === 'number') return String(value);
    if (type === 'json_array' || type === 'json_object' || type === 'localized') {
      return `${quoteString(JSON.stringify(value))}::jsonb`;
    }
    return quoteString(String(value));
  },
  bool: (value) => (value ? 'TRUE' : 'FALSE'),
  inlineForeignKeys: false,
  lockRowsClause: ' FOR UPDATE',
  failedStatementAbortsTransaction: true,
  timestampType: 'timestamptz',
  // ESCAPE '' turns off PostgreSQL's default backslash escape, so raw patterns mean the same as on SQLite.
  likeSensitive: (pattern) => ({ operator: "LIKE ? ESCAPE ''", value: pattern }),
  likeInsensitive: "ILIKE ? ESCAPE ''",
  likeInsensitiveEscaped: "ILIKE ? ESCAPE '\\'",
  jsonArrayHas(sql, column, element) {
    sql.text(`${column} @> `).value(JSON.stringify([element])).text('::jsonb');
  },
  jsonObjectHas(sql, column, key, value) {
    sql.text(`${column} ->> `).value(key).text(' = ').value(value);
  },
  textPosition: (haystack, needle) => `strpos(${haystack}, ${needle})`,
  inTextValues(sql, column, values) {
    // A text[] literal, so the statement stays one prepared shape and the index on the column is used.
    const literal = `{${values.map((v) => `"${v.replace(/["\\]/g, (ch) => `\\${ch}`)}"`).join(',')}}`;
    sql.text(`${column} = ANY(`).value(literal).text('::text[])');
  },
  searchStatements(table, columns) {
    const name = quoteIdentifier(constraintName(`idx_${table}_search`));
    return [`CREATE INDEX IF NOT EXISTS ${name} ON ${quoteIdentifier(table)} USING GIN (${tsvector(columns)})`];
  },
  searchBackfill: () => null,
  searchMissingParts: () => null,
  searchMatch(sql, _table, alias, columns, words) {
    sql.text(`${tsvector(columns, alias)} @@ plainto_tsquery('simple', `).value(words.join(' ')).text(')');
  },
};

export const dialects: Record<DialectName, SqlDialect> = { sqlite, postgres };
