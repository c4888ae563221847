import type { ColumnInfo } from '../../db/adapter.js';
import { ApiError } from '../../errors/api-error.js';
import { addColumnStatement, createIndexStatement, createTableStatement, referenceClause } from '../ddl.js';
import type { SqlDialect } from '../dialect.js';
import { constraintName } from '../schema.js';
import { constraintViolated, deleteRestricted, type DriverError, duplicateKey, groupUniqueKeys, missingParent, quoteIdentifier, quoteString } from './shared.js';

/** The PostgreSQL tsvector over the searchable columns; the GIN index and the query must spell it the same. */
function tsvector(columns: readonly string[], alias?: string): string {
  return `to_tsvector('simple', ${searchedText(columns, alias)})`;
}

/** The searchable columns as one text, as the full-text index reads them. */
function searchedText(columns: readonly string[], alias?: string): string {
  const ref = (c: string) => (alias ? `${quoteIdentifier(alias)}.` : '') + quoteIdentifier(c);
  return columns.map((c) => `coalesce(${ref(c)}, '')`).join(` || ' ' || `);
}

/**
 * The column list of a PostgreSQL key detail (`Key ("select", b)=(...)`),
 * unquoted: reserved words and mixed case come back quoted.
 */
function keyColumns(detail: string | undefined): string | undefined {
  const list = /^Key \(((?:"(?:[^"]|"")*"|[^)"])+)\)=/.exec(detail ?? '')?.[1];
  if (list === undefined) return undefined;
  const names = list.match(/"(?:[^"]|"")*"|[^,\s]+/g) ?? [];
  return names.map((n) => (n.startsWith('"') ? n.slice(1, -1).replaceAll('""', '"') : n)).join(', ');
}

function mapPostgresError(error: unknown, op?: string): ApiError {
  const e = (error ?? {}) as DriverError;
  const keyColumn = keyColumns(e.detail);
  const table = e.table ?? null;
  const detail = e.detail ?? null;
  switch (e.code) {
    case '23505':
      return duplicateKey(keyColumn, { table, column: keyColumn ?? e.column ?? null, detail });
    case '23503':
      return op === 'delete' || /is still referenced/.test(e.detail ?? '') ? deleteRestricted() : missingParent({ table, column: keyColumn ?? null, detail });
    case '23502':
    case '23514':
      return constraintViolated({ table, column: e.column ?? null, detail });
    case '57014':
      return new ApiError('TIMEOUT');
    default:
      return new ApiError('DB_ERROR');
  }
}

/** The GIN index of a table's full-text search. */
const searchIndexName = (table: string): string => constraintName(`idx_${table}_search`);

/** Information schema spells types long; the DDL spells them short. */
const normaliseType = (type: string): string => (type === 'timestamp with time zone' ? 'timestamptz' : type);

/** Class key of the migration's advisory lock ("mfx" in ASCII); the second key is the schema's hash. */
const MIGRATION_LOCK_KEY = 0x6d6678;

export const postgres: SqlDialect = {
  name: 'postgres',
  quote: quoteIdentifier,
  param: (n) => `$${n}`,
  columnType(type) {
    switch (type) {
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
  lockRowsClause: ' FOR UPDATE',
  lockRowsNoKeyClause: ' FOR NO KEY UPDATE',
  lockRowsSkipLockedClause: ' FOR UPDATE SKIP LOCKED',
  unindexed: (column) => column,
  latePageRows: false,
  failedStatementAbortsTransaction: true,
  mapError: mapPostgresError,

  // A foreign key needs the table it references: they are added once every table exists.
  createTable: (table) => createTableStatement(postgres, table, false),
  createIndex: (table, index) => createIndexStatement(postgres, table, index),
  addColumn: (table, column) => ({ statements: [addColumnStatement(postgres, table, column, false)], warning: null }),
  // NOT VALID: enforced for every new write at once; rows written before the relation existed
  // are checked by validateForeignKey, which the migration runs and warns about instead of refusing to start.
  addForeignKey: (table, column, key) => [
    `ALTER TABLE ${quoteIdentifier(table)} ADD CONSTRAINT ${quoteIdentifier(key.name)} FOREIGN KEY (${quoteIdentifier(column)}) ${referenceClause(postgres, key)} NOT VALID`,
  ],
  validateForeignKey: (table, name) => `ALTER TABLE ${quoteIdentifier(table)} VALIDATE CONSTRAINT ${quoteIdentifier(name)}`,
  dropUniqueKeys: (table, keys) => ({
    statements: keys.map((k) =>
      k.kind === 'constraint' ? `ALTER TABLE ${quoteIdentifier(table.name)} DROP CONSTRAINT ${quoteIdentifier(k.name)}` : `DROP INDEX ${quoteIdentifier(k.name)}`,
    ),
    rebuildsTable: false,
  }),
  renameIndex: (_table, from, to) => [`ALTER INDEX ${quoteIdentifier(from)} RENAME TO ${quoteIdentifier(to.name)}`],
  renameConstraint: (table, from, to) => `ALTER TABLE ${quoteIdentifier(table)} RENAME CONSTRAINT ${quoteIdentifier(from)} TO ${quoteIdentifier(to)}`,
  // The GIN index is an expression over the columns, which follows a rename.
  dropSearchBeforeRename: () => [],
  renameJsonKey(table, column, from, to) {
    const json = `(${quoteIdentifier(column)})::jsonb`;
    const [old, now] = [quoteString(from), quoteString(to)];
    return (
      `UPDATE ${quoteIdentifier(table)} SET ${quoteIdentifier(column)} = ((${json} - ${old}) || jsonb_build_object(${now}, ${json} -> ${old}))::text ` +
      `WHERE jsonb_exists(${json}, ${old}) AND NOT jsonb_exists(${json}, ${now})`
    );
  },
  alterColumnByHand(table, column, current) {
    const [t, c] = [quoteIdentifier(table), quoteIdentifier(column.name)];
    const type = postgres.columnType(column.type);
    const out: string[] = [];
    if (current.type !== type) out.push(`ALTER TABLE ${t} ALTER COLUMN ${c} TYPE ${type} USING ${c}::${type}`);
    if (!current.nullable && column.nullable) out.push(`ALTER TABLE ${t} ALTER COLUMN ${c} DROP NOT NULL`);
    if (current.nullable && !column.nullable) {
      if (column.default !== undefined) out.push(`UPDATE ${t} SET ${c} = ${postgres.literal(column.default, column.type)} WHERE ${c} IS NULL`);
      out.push(`ALTER TABLE ${t} ALTER COLUMN ${c} SET NOT NULL`);
    }
    return { statements: out, note: null };
  },
  async introspect(db) {
    const columns = await db.raw(
      `SELECT table_name, column_name, data_type, is_nullable, column_default IS NOT NULL AS has_default FROM information_schema.columns
       WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    );
    const tables = new Map<string, ColumnInfo[]>();
    for (const row of columns) {
      const list = tables.get(String(row.table_name)) ?? [];
      list.push({ name: String(row.column_name), type: normaliseType(String(row.data_type)), nullable: row.is_nullable === 'YES', hasDefault: row.has_default === true });
      tables.set(String(row.table_name), list);
    }
    const indexes = await db.raw(`SELECT indexname AS name, tablename AS "table" FROM pg_indexes WHERE schemaname = current_schema()`);
    const keys = await db.raw(
      `SELECT t.relname AS "table", c.conname AS name, c.convalidated AS validated FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
       WHERE c.contype = 'f' AND t.relnamespace = current_schema()::regnamespace`,
    );
    const unique = await db.raw(
      `SELECT t.relname AS "table", i.relname AS name, x.indpred IS NOT NULL AS partial, c.conname IS NOT NULL AS "constraint", a.attname AS "column"
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.contype = 'u'
       CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
       WHERE x.indisunique AND NOT x.indisprimary AND t.relnamespace = current_schema()::regnamespace
       ORDER BY t.relname, i.relname, k.ord`,
    );
    return {
      tables,
      foreignKeys: keys.map((k) => ({ table: String(k.table), name: String(k.name), validated: k.validated === true })),
      uniqueKeys: groupUniqueKeys(unique, (row) => (row.constraint === true ? 'constraint' : 'index')),
      indexes: new Map(indexes.map((row) => [String(row.name), String(row.table)])),
    };
  },
  // Replicas starting together take turns per schema (two concurrent CREATE TABLEs collide in
  // pg_type); a pool-level statement_timeout must not cut a migration short.
  migrationLock: ['SET LOCAL statement_timeout = 0', `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}, hashtext(current_schema()))`],
  searchStatements(table, columns) {
    const name = quoteIdentifier(searchIndexName(table));
    return [`CREATE INDEX IF NOT EXISTS ${name} ON ${quoteIdentifier(table)} USING GIN (${tsvector(columns)})`];
  },
  searchBackfill: () => null,
  searchMissingParts: (table) =>
    `SELECT 1 - COUNT(*) AS missing FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ${quoteString(searchIndexName(table))}`,

  // ESCAPE '' turns off PostgreSQL's default backslash escape, so raw patterns mean the same as on SQLite.
  likeSensitive(sql, column, pattern) {
    sql.text(`${column} LIKE `).value(pattern).text(" ESCAPE ''");
  },
  likeInsensitive(sql, column, pattern) {
    sql.text(`${column} ILIKE `).value(pattern).text(" ESCAPE ''");
  },
  likeInsensitiveEscaped(sql, column, pattern) {
    sql.text(`${column} ILIKE `).value(pattern).text(" ESCAPE '\\'");
  },
  jsonArrayHas(sql, column, element) {
    sql.text(`${column} @> `).value(JSON.stringify([element])).text('::jsonb');
  },
  jsonObjectHas(sql, column, key, value) {
    sql.text(`${column} ->> `).value(key).text(' = ').value(value);
  },
  // ->> on a jsonb that is no object (a legacy scalar) is null; the key is bound as text.
  localeText(sql, column, locale) {
    if (locale === null) sql.text(`${column}::text`);
    else sql.text(`(${column} ->> `).value(locale).text('::text)');
  },
  textPosition(sql, haystack, needle) {
    sql.text(`strpos(${haystack}, ${needle})`);
  },
  inTextValues(sql, column, values) {
    // A text[] literal, so the statement stays one prepared shape and the index on the column is used.
    const literal = `{${values.map((v) => `"${v.replace(/["\\]/g, (ch) => `\\${ch}`)}"`).join(',')}}`;
    sql.text(`${column} = ANY(`).value(literal).text('::text[])');
  },
  searchMatch(sql, _table, alias, columns, words) {
    sql.text(`${tsvector(columns, alias)} @@ plainto_tsquery('simple', `).value(words.join(' ')).text(')');
  },
  searchRanked(sql, { table, alias, columns, words, limit, where }) {
    const t = quoteIdentifier(alias);
    const text = searchedText(columns, alias);
    // The ranked rows first, the headline (costly) only for those.
    sql.text(`SELECT s.id, s.rank, ts_headline('simple', s.doc, plainto_tsquery('simple', `).value(words.join(' '));
    sql.text(`), 'StartSel="", StopSel="", MaxWords=16, MinWords=6, MaxFragments=2, FragmentDelimiter=" … "') AS snippet FROM (`);
    sql.text(`SELECT ${t}."id" AS id, ts_rank(${tsvector(columns, alias)}, plainto_tsquery('simple', `).value(words.join(' ')).text(`)) AS rank, ${text} AS doc`);
    sql.text(` FROM ${quoteIdentifier(table)} ${t} WHERE ${tsvector(columns, alias)} @@ plainto_tsquery('simple', `).value(words.join(' ')).text(')');
    where(sql);
    sql.text(` ORDER BY rank DESC, ${t}."id" ASC LIMIT `).value(limit);
    sql.text(') s ORDER BY s.rank DESC, s.id ASC');
  },
};
