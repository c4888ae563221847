import { randomUUID } from 'node:crypto';
import type { Executor, QueryOptions } from '../db/adapter.js';
import type { SqlTemplates } from '../manifest/types.js';
import type { ScopeFilter } from '../pipeline/context.js';
import type { ListQuery } from '../query/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import type { SqlDialect } from '../sql/dialect.js';
import { notDeleted } from '../sql/templates.js';
import { buildDecoder, type Decoder, encodeValue, type RecordData } from './codec.js';
import { asksForDeleted } from './soft-delete.js';

export interface StoreOptions extends QueryOptions {
  /** Equalities every affected row must satisfy (tenancy, force filter). */
  scope?: readonly ScopeFilter[];
  /** Lock the row read until the transaction ends (optimistic locking, history). */
  lock?: boolean;
}

export interface Page {
  records: RecordData[];
  total: number;
}

const now = () => new Date().toISOString();

/**
 * Reads and writes one model's table. Fixed statements come from the
 * manifest's templates; statements that depend on which columns a request
 * carries are built once per column set and cached.
 */
export class ModelStore {
  readonly decode: Decoder;
  readonly templates: SqlTemplates;
  private readonly selectList: string;
  private readonly live: string | null;
  private readonly statements = new Map<string, string>();

  constructor(
    readonly model: ModelMeta,
    readonly dialect: SqlDialect,
  ) {
    this.decode = buildDecoder(model, dialect.name);
    this.templates = model.sql(dialect.name);
    this.selectList = model.columns.map((c) => dialect.quote(c.column)).join(', ');
    this.live = notDeleted(model.manifest, dialect);
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

  private column(name: string): string {
    const field = this.model.field(name);
    if (!field) throw new Error(`mfx: scope names unknown field ${name} of ${this.model.name}`);
    return field.column;
  }

  /** The scope equalities that belong to this model (entries naming another model are for includes and joins). */
  private own(scope: readonly ScopeFilter[] | undefined): readonly ScopeFilter[] {
    if (!scope || scope.length === 0) return [];
    return scope.every((s) => s.model === undefined || s.model === this.model.name) ? scope : scope.filter((s) => s.model === undefined || s.model === this.model.name);
  }

  /** ` AND "col" = ?` for each scope equality, written into `sql`. */
  private whereScope(sql: SqlBuilder, scope: readonly ScopeFilter[] | undefined, alias?: string): void {
    for (const filter of this.own(scope)) {
      sql.text(' AND ');
      if (alias) sql.column(alias, this.column(filter.field));
      else sql.id(this.column(filter.field));
      sql.text(' = ').value(filter.value);
    }
  }

  async findById(db: Executor, id: string, options: StoreOptions = {}): Promise<RecordData | null> {
    if (!this.own(options.scope).length && !options.lock) {
      const row = await db.get(this.templates.selectById, [id], options);
      return row ? this.decode(row) : null;
    }
    const sql = new SqlBuilder(this.dialect).text(`SELECT ${this.selectList} FROM `).id(this.model.table).text(' WHERE ').id('id').text(' = ').value(id);
    if (this.live) sql.text(` AND ${this.live}`);
    this.whereScope(sql, options.scope);
    if (options.lock) sql.text(this.dialect.lockRowsClause);
    const row = await db.get(sql.sql, sql.params, options);
    return row ? this.decode(row) : null;
  }

  /**
   * Whether a row with this id exists in scope, soft-deleted rows included:
   * the existence-in-scope check that gates history reads.
   */
  async existsInScope(db: Executor, id: string, options: StoreOptions = {}): Promise<boolean> {
    const sql = new SqlBuilder(this.dialect).text('SELECT 1 AS found FROM ').id(this.model.table).text(' WHERE ').id('id').text(' = ').value(id);
    this.whereScope(sql, options.scope);
    return (await db.get(sql.sql, sql.params, options)) !== undefined;
  }

  async list(db: Executor, query: ListQuery, options: StoreOptions = {}): Promise<Page> {
    const where = new SqlBuilder(this.dialect).text(' WHERE 1 = 1');
    if (this.live && !asksForDeleted(query)) where.text(` AND ${this.live}`);
    this.whereScope(where, options.scope);

    const count = new SqlBuilder(this.dialect).text('SELECT COUNT(*) AS n FROM ').id(this.model.table);
    count.sql += where.sql;
    count.params.push(...where.params);

    const select = new SqlBuilder(this.dialect).text(`SELECT ${this.selectList} FROM `).id(this.model.table);
    select.sql += where.sql;
    select.params.push(...where.params);
    select.text(' ORDER BY ').id('id').text(' LIMIT ').value(query.limit).text(' OFFSET ').value((query.page - 1) * query.limit);

    const rows = await db.all(select.sql, select.params, options);
    const totalRow = await db.get(count.sql, count.params, options);
    return { records: rows.map(this.decode), total: Number(totalRow?.n ?? 0) };
  }

  /**
   * Inserts a record from body values (JSON names). Keys the body lacks are
   * left out of the INSERT, so the column default applies; scope values are
   * stamped over whatever the body says.
   */
  async insert(db: Executor, values: RecordData, options: StoreOptions = {}): Promise<RecordData> {
    for (const filter of this.own(options.scope)) values[filter.field] = filter.value;
    const timestamp = now();
    const columns: string[] = ['id'];
    const params: unknown[] = [randomUUID()];
    for (const field of this.model.fields) {
      if (field.base || !(field.name in values)) continue;
      columns.push(field.column);
      params.push(encodeValue(field, values[field.name]));
    }
    columns.push('created_at', 'updated_at');
    params.push(timestamp, timestamp);

    const sql = this.statement(`insert:${columns.join('\0')}`, () => {
      const q = this.dialect.quote;
      const placeholders = columns.map((_, i) => this.dialect.param(i + 1)).join(', ');
      return `INSERT INTO ${q(this.model.table)} (${columns.map(q).join(', ')}) VALUES (${placeholders}) RETURNING ${this.selectList}`;
    });
    const row = await db.get(sql, params, options);
    return this.decode(row!);
  }

  /**
   * Updates the keys present in `values` (JSON names) and refreshes
   * updated_at. Null when no live row in scope has that id.
   */
  async update(db: Executor, id: string, values: RecordData, options: StoreOptions = {}): Promise<RecordData | null> {
    const scope = this.own(options.scope);
    const scoped = new Set(scope.map((s) => this.model.field(s.field)?.name ?? s.field));
    const columns: string[] = [];
    const params: unknown[] = [];
    for (const field of this.model.fields) {
      if (field.base || !(field.name in values) || scoped.has(field.name)) continue;
      columns.push(field.column);
      params.push(encodeValue(field, values[field.name]));
    }
    if (columns.length === 0) return this.findById(db, id, options);
    columns.push('updated_at');
    params.push(now());

    const scopeColumns = scope.map((s) => this.column(s.field));
    const sql = this.statement(`update:${columns.join('\0')}|${scopeColumns.join('\0')}`, () => {
      const b = new SqlBuilder(this.dialect).text('UPDATE ').id(this.model.table).text(' SET ');
      b.join(columns, ', ', (column, s) => s.id(column).text(' = ').value(null));
      b.text(' WHERE ').id('id').text(' = ').value(null);
      if (this.live) b.text(` AND ${this.live}`);
      for (const column of scopeColumns) b.text(' AND ').id(column).text(' = ').value(null);
      return b.text(` RETURNING ${this.selectList}`).sql;
    });
    params.push(id, ...scope.map((s) => s.value));
    const row = await db.get(sql, params, options);
    return row ? this.decode(row) : null;
  }

  /**
   * Deletes by id: marks the soft-delete column when the model has one,
   * removes the row otherwise. False when no live row in scope has that id.
   */
  async remove(db: Executor, id: string, options: StoreOptions = {}): Promise<boolean> {
    const marker = this.model.options.softDelete;
    const scope = this.own(options.scope);
    if (scope.length === 0) {
      const result = marker
        ? await db.run(this.templates.softDeleteById!, [marker.type === 'boolean' ? true : now(), now(), id], options)
        : await db.run(this.templates.deleteById, [id], options);
      return result.changes > 0;
    }
    const sql = new SqlBuilder(this.dialect);
    if (marker) {
      sql.text('UPDATE ').id(this.model.table).text(' SET ').id(marker.column).text(' = ').value(marker.type === 'boolean' ? true : now());
      sql.text(', ').id('updated_at').text(' = ').value(now());
    } else {
      sql.text('DELETE FROM ').id(this.model.table);
    }
    sql.text(' WHERE ').id('id').text(' = ').value(id);
    if (this.live) sql.text(` AND ${this.live}`);
    this.whereScope(sql, scope);
    return (await db.run(sql.sql, sql.params, options)).changes > 0;
  }
}
