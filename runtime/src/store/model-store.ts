import { randomUUID } from 'node:crypto';
import type { Executor, QueryOptions, Row } from '../db/adapter.js';
import { getNow, type OneRowReads, readAllNow, readOneNow, type RowsReads } from '../db/now.js';
import { isoNow } from '../util/iso-time.js';
import { type Maybe, then } from '../util/maybe.js';
import { mapDbError } from '../db/errors.js';
import { ConfigError } from '../errors/api-error.js';
import type { FieldManifest, SqlTemplates } from '../manifest/types.js';
import type { ScopeFilter } from '../pipeline/context.js';
import type { ListQuery } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import { absentValue } from '../sql/columns.js';
import type { SqlDialect } from '../sql/dialect.js';
import { notDeleted } from '../sql/templates.js';
import { companionKey, encryptionOf, type ModelEncryption } from '../security/encryption/fields.js';
import { codecOf, type Decoder, encodeValue, type RecordData, storedAsSent, type ValuesDecoder } from './codec.js';
import { loadIncludes } from './include.js';
import { type Keyset, ROOT, writeOrder, writeSortJoins, writeWhere } from './list-sql.js';
import { type CascadeObserver, ReferentialDelete } from './referential.js';
import { scopeColumn, scopeFor } from './scope.js';
import { type RecursiveQuery, recursiveQuery, type TreeRow } from './tree.js';

export interface StoreOptions extends QueryOptions {
  /** Equalities every affected row must satisfy (tenancy, force filter); see ScopeFilter for `model`. */
  scope?: readonly ScopeFilter[];
  /** Lock the row read until the transaction ends (optimistic locking, history). */
  lock?: boolean;
  /** Sees every row a delete cascades to (history and events hook in here). */
  observe?: CascadeObserver;
  /**
   * Soft-deleted rows count too: findById finds them, remove removes the row
   * (and cascades as a removal) instead of marking it. The scheduled runner's
   * hard delete; requests never set it.
   */
  hard?: boolean;
}

/** The rows before an offset page. */
const offsetOf = (query: ListQuery): number => (query.page - 1) * query.limit;

export interface Page {
  records: RecordData[];
  /** Full match count; null under keyset pagination, which does not count. */
  total: number | null;
  /** Keyset pagination: whether rows follow this page, and the token of the next one. */
  hasMore?: boolean;
  nextCursor?: string | null;
}

/** The INSERT template's values, in template order, from a create's values and the write's timestamp. */
type InsertParams = (values: RecordData, timestamp: string) => unknown[];

/**
 * Builds, once per model, the function that lists a create's INSERT values
 * in template order: each column's value from the body (encoded for
 * storage), else the field's default; the runtime's for id, timestamps and
 * the soft-delete marker; the blind index the sealed values carry for an
 * encrypted,unique companion, which has no field of its own. Straight-line
 * code with the keys written out, so each read is a named property load
 * rather than a lookup by a key the call site only learns at run time.
 * Names come from the registry and are quoted with JSON.stringify.
 */
function buildInsertParams(model: ModelMeta): InsertParams {
  const absent: unknown[] = [];
  const fields: (FieldManifest | undefined)[] = [];
  const items = model.columns.map(({ field, column }, i) => {
    fields[i] = field;
    if (!field) return `(values[${JSON.stringify(companionKey(column))}] ?? null)`;
    absent[i] = encodeValue(field, absentValue(field));
    switch (field.base) {
      case undefined: {
        const key = JSON.stringify(field.name);
        const stored = storedAsSent(field) ? 'v' : `(v === null ? null : encode(fields[${i}], v))`;
        // A key sent as undefined (a hook's values) stores null, as an explicit null does; a key left out, the default.
        return `((v = values[${key}]) !== undefined ? ${stored} : ${key} in values ? null : absent[${i}])`;
      }
      case 'id':
        return 'randomUUID()';
      case 'created_at':
      case 'updated_at':
        return 'timestamp';
      default:
        return `absent[${i}]`;
    }
  });
  return new Function('randomUUID', 'encode', 'fields', 'absent', `return function insertParams(values, timestamp) { let v; return [${items.join(', ')}]; };`)(
    randomUUID,
    encodeValue,
    fields,
    absent,
  ) as InsertParams;
}

/**
 * Reads and writes one model's table. Fixed statements come from the
 * manifest's templates; statements that depend on which columns a request
 * carries are built once per column set and cached.
 */
export class ModelStore {
  readonly decode: Decoder;
  /** `decode` for a row read as its values, in the order of `model.columns`. */
  readonly decodeValues: ValuesDecoder;
  readonly templates: SqlTemplates;
  /** The model's columns, quoted, as a SELECT list (rows read with it decode with `decode`). */
  readonly columnList: string;
  private readonly live: string | null;
  private readonly statements = new Map<string, string>();
  private readonly rootSelect: string;
  /** ` WHERE t.id IN (SELECT t.id FROM <table> t`: the opening of a sorted page's first step (pageSelect). */
  private readonly pageIdsFrom: string;
  private readonly referential: ReferentialDelete;
  /** The INSERT template's values from a create's values (buildInsertParams). */
  private readonly insertParams: InsertParams;
  /** Encrypted fields (security/encryption/fields.ts): sealed on write; undefined for models without them, decided at boot. */
  private readonly encryption: ModelEncryption | undefined;

  constructor(
    readonly model: ModelMeta,
    readonly dialect: SqlDialect,
  ) {
    ({ decode: this.decode, decodeValues: this.decodeValues } = codecOf(model, dialect.name));
    this.templates = model.sql(dialect.name);
    this.columnList = model.columns.map((c) => dialect.quote(c.column)).join(', ');
    this.live = notDeleted(model.manifest, dialect);
    this.rootSelect = `SELECT ${model.columns.map((c) => `${dialect.quote(ROOT)}.${dialect.quote(c.column)}`).join(', ')} FROM ${dialect.quote(model.table)} ${dialect.quote(ROOT)}`;
    const id = `${dialect.quote(ROOT)}.${dialect.quote('id')}`;
    this.pageIdsFrom = ` WHERE ${id} IN (SELECT ${id} FROM ${dialect.quote(model.table)} ${dialect.quote(ROOT)}`;
    this.referential = new ReferentialDelete(dialect);
    const columns = model.columns.map((c) => c.column);
    if (columns.join('\0') !== this.templates.insertColumns.join('\0')) {
      throw new ConfigError(`the manifest's insert statement of ${model.name} does not list its columns (${columns.join(', ')}); rebuild the manifest with mfx build`);
    }
    this.insertParams = buildInsertParams(model);
    this.encryption = encryptionOf(model);
  }

  /** Cached SQL text for a statement shape. */
  private statement(key: string, build: () => string): string {
    let sql = this.statements.get(key);
    if (sql === undefined) {
      sql = build();
      this.statements.set(key, sql);
    }
    return sql;
  }

  /** The scope entries that apply to this model as the request's model. */
  private own(scope: readonly ScopeFilter[] | undefined): readonly ScopeFilter[] {
    return scopeFor(this.model, scope, true);
  }

  /** ` AND "col" = ?` for each scope equality of this model, written into `sql`. */
  private whereScope(sql: SqlBuilder, scope: readonly ScopeFilter[] | undefined): void {
    for (const filter of this.own(scope)) sql.text(' AND ').id(scopeColumn(this.model, filter)).text(' = ').value(filter.value);
  }

  async findById(db: Executor, id: string, options: StoreOptions = {}): Promise<RecordData | null> {
    return this.findByIdNow(db, id, options);
  }

  /** findById, answered without a promise where the executor can (db/now.ts): the read route's own call. */
  findByIdNow(db: Executor, id: string, options: StoreOptions = {}): Maybe<RecordData | null> {
    if (this.own(options.scope).length === 0 && !options.lock && !options.hard) {
      return readOneNow(db, this.templates.selectById, [id], options, this.found);
    }
    const sql = new SqlBuilder(this.dialect).text(`SELECT ${this.columnList} FROM `).id(this.model.table).text(' WHERE ').id('id').text(' = ').value(id);
    if (this.live && !options.hard) sql.text(` AND ${this.live}`);
    this.whereScope(sql, options.scope);
    if (options.lock) sql.text(this.dialect.lockRowsClause);
    return readOneNow(db, sql.sql, sql.params, options, this.found);
  }

  // What the reads of whole rows (every column, in the order of model.columns) make of them (db/now.ts).
  /** A row read by id as a record, or null when there was none. */
  private readonly found: OneRowReads<RecordData | null> = {
    values: (values) => (values ? this.decodeValues(values) : null),
    row: (row) => (row ? this.decode(row) : null),
  };
  /** The rows of a page, as records. */
  private readonly listed: RowsReads<RecordData[]> = {
    values: (rows) => rows.map(this.decodeValues),
    rows: (rows) => rows.map(this.decode),
  };
  /** The row an INSERT … RETURNING gave back, as a record. */
  private readonly written: OneRowReads<RecordData> = {
    values: (values) => this.decodeValues(values!),
    row: (row) => this.decode(row!),
  };

  /**
   * Whether a row with this id exists in scope, soft-deleted rows included:
   * the existence-in-scope check that gates history reads.
   */
  async existsInScope(db: Executor, id: string, options: StoreOptions = {}): Promise<boolean> {
    const sql = new SqlBuilder(this.dialect).text('SELECT 1 AS found FROM ').id(this.model.table).text(' WHERE ').id('id').text(' = ').value(id);
    this.whereScope(sql, options.scope);
    return (await db.get(sql.sql, sql.params, options)) !== undefined;
  }

  /**
   * Whether a live row other than `exceptId` holds `value` in `field` (the
   * unique check of validate.unique): compared as the UNIQUE constraint
   * does, on the blind index of an `encrypted,unique` field, or with both
   * sides lower-cased when `caseInsensitive`. Unscoped, like the constraint;
   * soft-deleted rows never collide (their unique index binds live rows only).
   */
  async holdsValue(db: Executor, field: FieldManifest, value: unknown, options: StoreOptions & { exceptId?: string | null; caseInsensitive?: boolean } = {}): Promise<boolean> {
    const index = field.encrypted ? this.encryption?.blindIndexOf(field, String(value)) : undefined;
    const sql = new SqlBuilder(this.dialect).text('SELECT 1 AS found FROM ').id(this.model.table).text(' WHERE ');
    if (index) sql.id(index.column).text(' = ').value(index.value);
    else if (options.caseInsensitive) sql.text('lower(').id(field.column).text(') = lower(').value(encodeValue(field, value)).text(')');
    else sql.id(field.column).text(' = ').value(encodeValue(field, value));
    if (options.exceptId) sql.text(' AND ').id('id').text(' <> ').value(options.exceptId);
    if (this.live) sql.text(` AND ${this.live}`);
    sql.text(' LIMIT 1');
    return (await db.get(sql.sql, sql.params, options)) !== undefined;
  }

  /**
   * A page of records: filters, groups, search, sorts (through belongsTo
   * joins) and offset paging with a full count, or keyset paging (`keyset`)
   * that fetches one row more to know whether another page follows.
   */
  async list(db: Executor, query: ListQuery, options: StoreOptions & { keyset?: Keyset | null } = {}): Promise<Page> {
    return this.listNow(db, query, options);
  }

  /** list, answered without a promise where the executor can (db/now.ts): the list route's own call. */
  listNow(db: Executor, query: ListQuery, options: StoreOptions & { keyset?: Keyset | null } = {}): Maybe<Page> {
    const keyset = options.keyset ?? null;
    if (keyset) {
      const select = new SqlBuilder(this.dialect).text(this.rootSelect);
      writeWhere(select, this.model, { query, scope: options.scope, keyset });
      writeOrder(select, this.model, query.sorts, new Map([['', ROOT]]), keyset);
      select.text(' LIMIT ').value(query.limit + 1);
      // The row past the limit only says that another page follows: it is not decoded (nor its encrypted fields opened).
      const limit = query.limit;
      return readAllNow<Page>(db, select.sql, select.params, options, {
        values: (rows) => ({ records: rows.slice(0, limit).map(this.decodeValues), total: null, hasMore: rows.length > limit }),
        rows: (rows) => ({ records: rows.slice(0, limit).map(this.decode), total: null, hasMore: rows.length > limit }),
      });
    }
    const select = this.pageSelect(query, options.scope);
    const offset = offsetOf(query);
    return then(readAllNow(db, select.sql, select.params, options, this.listed), (records) =>
      // A page that is not full is the last one: the rows before it and its own are all there are (no count to run).
      // An empty page past the first says nothing of how many rows there are.
      records.length < query.limit && (records.length > 0 || offset === 0)
        ? { records, total: offset + records.length }
        : then(this.countNow(db, query, options), (total) => ({ records, total })),
    );
  }

  /**
   * The statement of an offset page. A sorted page on a dialect with
   * latePageRows selects its rows by id from the page's ids, sorted, limited
   * and offset in a subquery, and sorts those rows again by the same keys
   * (IN keeps no order): the same rows in the same order, with only the ids
   * and sort keys of the rows before the page going through the sorter.
   */
  private pageSelect(query: ListQuery, scope: StoreOptions['scope']): SqlBuilder {
    const select = new SqlBuilder(this.dialect).text(this.rootSelect);
    if (!(query.sorts.length > 0 && this.dialect.latePageRows)) {
      this.writePage(select, query, scope);
      return select;
    }
    const joins = writeSortJoins(select, this.model, query.sorts, scope);
    select.text(this.pageIdsFrom);
    this.writePage(select, query, scope);
    select.text(')');
    writeOrder(select, this.model, query.sorts, joins, null);
    return select;
  }

  /** A page's rows after `FROM <table> t`: the list's selection (writeSelection), LIMIT and OFFSET. */
  private writePage(sql: SqlBuilder, query: ListQuery, scope: StoreOptions['scope']): void {
    this.writeSelection(sql, query, scope);
    sql.text(' LIMIT ').value(query.limit).text(' OFFSET ').value(offsetOf(query));
  }

  /** The rows of a list query in its order, after `FROM <table> t`: joins for its sorts, WHERE and ORDER BY. */
  private writeSelection(sql: SqlBuilder, query: ListQuery, scope: StoreOptions['scope']): void {
    const joins = writeSortJoins(sql, this.model, query.sorts, scope);
    writeWhere(sql, this.model, { query, scope, keyset: null });
    writeOrder(sql, this.model, query.sorts, joins, null);
  }

  /**
   * The rows a list query selects, in its order, at most `limit` of them: the
   * statement an export iterates (`Executor.iterate`), rows decoded by the
   * caller with `decode`.
   */
  selectAll(query: ListQuery, scope: readonly ScopeFilter[] | undefined, limit: number): { sql: string; params: unknown[] } {
    const select = new SqlBuilder(this.dialect).text(this.rootSelect);
    this.writeSelection(select, query, scope);
    select.text(' LIMIT ').value(limit);
    return { sql: select.sql, params: select.params };
  }

  /** How many rows a list query selects (filters, groups, search and scope; no paging). */
  async count(db: Executor, query: ListQuery, options: StoreOptions = {}): Promise<number> {
    return this.countNow(db, query, options);
  }

  private countNow(db: Executor, query: ListQuery, options: StoreOptions): Maybe<number> {
    const count = new SqlBuilder(this.dialect).text('SELECT COUNT(*) AS n FROM ').id(this.model.table).text(' ').id(ROOT);
    writeWhere(count, this.model, { query, scope: options.scope, keyset: null });
    return then(getNow(db, count.sql, count.params, options), (row) => Number(row?.n ?? 0));
  }

  /** Loads `include` relations into decoded records (one statement per relation and level), within the model's include caps. */
  async include(db: Executor, records: RecordData[], paths: ListQuery['include'], options: StoreOptions = {}): Promise<void> {
    await loadIncludes(db, this.dialect, this.model, records, paths, options.scope, this.model.queryLimits, options);
  }

  /** The spec's RecursiveQuery on this model: the rows under (or above) a root, with `_depth`. */
  async tree(db: Executor, query: RecursiveQuery, options: StoreOptions = {}): Promise<TreeRow[]> {
    return recursiveQuery(db, this.model, query, options);
  }

  /**
   * Inserts a record from body values (JSON names) with the manifest's
   * INSERT of every stored column: keys the body lacks take the field's
   * default (`absentValue`, the column's DDL default too); scope values are
   * stamped over whatever the body says; base columns are the runtime's.
   */
  async insert(db: Executor, values: RecordData, options: StoreOptions = {}): Promise<RecordData> {
    return this.insertNow(db, values, options);
  }

  /** insert, answered without a promise where the executor can (db/now.ts): the create route's own call. */
  insertNow(db: Executor, values: RecordData, options: StoreOptions = {}): Maybe<RecordData> {
    for (const filter of this.own(options.scope)) values[filter.field] = filter.value;
    const timestamp = isoNow();
    const stored = this.encryption ? this.encryption.sealValues(values, 'create') : values;
    const params = this.insertParams(stored, timestamp);
    if (this.encryption) return this.sealedWrite(db, this.templates.insert, params, options).then(this.written.row);
    return readOneNow(db, this.templates.insert, params, options, this.written);
  }

  /** The fields an update with these values sets: declared fields present in them, never base or scope columns. */
  private updatedFields(values: RecordData, own: readonly ScopeFilter[]): FieldManifest[] {
    const scoped = own.length ? new Set(own.map((s) => this.model.field(s.field)?.name ?? s.field)) : null;
    return this.model.fields.filter((field) => !field.base && field.name in values && !scoped?.has(field.name));
  }

  /** Whether `update` with these values writes the row (false: it only reads it back). */
  updateWrites(values: RecordData, options: StoreOptions = {}): boolean {
    return this.updatedFields(values, this.own(options.scope)).length > 0;
  }

  /**
   * Updates the keys present in `values` (JSON names) and refreshes
   * updated_at. Null when no live row in scope has that id.
   */
  async update(db: Executor, id: string, values: RecordData, options: StoreOptions = {}): Promise<RecordData | null> {
    const own = this.own(options.scope);
    const fields = this.updatedFields(values, own);
    const columns = fields.map((field) => field.column);
    const stored = this.encryption ? this.encryption.sealValues(values, 'update') : values;
    const params = fields.map((field) => encodeValue(field, stored[field.name]));
    // The blind index of an encrypted,unique field follows the field.
    for (const companion of this.encryption?.companionsOf(fields) ?? []) {
      columns.push(companion.column);
      params.push(stored[companion.key]);
    }
    if (columns.length === 0) return this.findById(db, id, options);
    columns.push('updated_at');
    params.push(isoNow());

    const scopeColumns = own.map((s) => scopeColumn(this.model, s));
    const sql = this.statement(`update:${columns.join('\0')}|${scopeColumns.join('\0')}`, () => {
      const b = new SqlBuilder(this.dialect).text('UPDATE ').id(this.model.table).text(' SET ');
      b.join(columns, ', ', (column, s) => s.id(column).text(' = ').value(null));
      b.text(' WHERE ').id('id').text(' = ').value(null);
      if (this.live) b.text(` AND ${this.live}`);
      for (const column of scopeColumns) b.text(' AND ').id(column).text(' = ').value(null);
      return b.text(` RETURNING ${this.columnList}`).sql;
    });
    params.push(id, ...own.map((s) => s.value));
    const row = this.encryption ? await this.sealedWrite(db, sql, params, options) : await db.get(sql, params, options);
    return row ? this.decode(row) : null;
  }

  /** A write of a model with encrypted fields: a blind index's UNIQUE violation answers naming the field, not the index. */
  private async sealedWrite(db: Executor, sql: string, params: unknown[], options: StoreOptions) {
    try {
      return await db.get(sql, params, options);
    } catch (error) {
      throw this.encryption!.conflictOf(mapDbError(error, this.dialect)) ?? error;
    }
  }

  /**
   * Deletes by id: marks the soft-delete column when the model has one,
   * removes the row otherwise. False when no live row in scope has that id.
   */
  async remove(db: Executor, id: string, options: StoreOptions = {}): Promise<boolean> {
    // Children to take care of: their onDelete actions run in one transaction with the delete.
    if (this.model.inbound.length > 0) return this.referential.remove(db, this.model, id, options);
    const marker = options.hard ? undefined : this.model.options.softDelete;
    const scope = this.own(options.scope);
    // One instant for the marker and updated_at.
    const at = isoNow();
    if (scope.length === 0) {
      const result = marker
        ? await db.run(this.templates.softDeleteById!, [marker.type === 'boolean' ? true : at, at, id], options)
        : await db.run(this.templates.deleteById, [id], options);
      return result.changes > 0;
    }
    const sql = new SqlBuilder(this.dialect);
    if (marker) {
      sql.text('UPDATE ').id(this.model.table).text(' SET ').id(marker.column).text(' = ').value(marker.type === 'boolean' ? true : at);
      sql.text(', ').id('updated_at').text(' = ').value(at);
    } else {
      sql.text('DELETE FROM ').id(this.model.table);
    }
    sql.text(' WHERE ').id('id').text(' = ').value(id);
    if (this.live && !options.hard) sql.text(` AND ${this.live}`);
    this.whereScope(sql, scope);
    return (await db.run(sql.sql, sql.params, options)).changes > 0;
  }
}
