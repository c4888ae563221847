import { randomUUID } from 'node:crypto';
import type { Executor, QueryOptions } from '../db/adapter.js';
import type { FieldManifest } from '../manifest/types.js';
import type { ScopeFilter } from '../pipeline/context.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import type { SqlDialect } from '../sql/dialect.js';
import { encodeValue } from './codec.js';
import { isoNow } from '../util/iso-time.js';

/** The fixed id of an unscoped singleton's row. */
export const SINGLETON_ID = 'singleton';

/** A scope entry, resolved to the model's field. */
export interface ScopeColumn {
  field: FieldManifest;
  value: unknown;
}

/**
 * Finds, and creates on first access, the one row of a singleton model.
 * Unscoped: the row with id `singleton`. Scoped (a tenancy or force-filter
 * hook put equalities on the model into `ctx.scope`): one row per scope
 * value, with an ordinary id. Rows are created from the column defaults with
 * INSERT ... ON CONFLICT DO NOTHING, so when concurrent first accesses
 * collide (on the id, or on a unique scope column) the loser re-reads the
 * winner's row instead of failing.
 */
export class SingletonRows {
  constructor(
    readonly model: ModelMeta,
    readonly dialect: SqlDialect,
  ) {}

  /**
   * The scope entries that apply to this model (entries naming another
   * model are skipped), checked: only plain equalities on the model's own
   * columns are allowed; anything else throws, naming the fix.
   */
  scopeColumns(scope: readonly (ScopeFilter & { model?: string })[]): ScopeColumn[] {
    const out: ScopeColumn[] = [];
    for (const entry of scope) {
      if (entry.model !== undefined && entry.model !== this.model.name) continue;
      const field = this.model.field(entry.field);
      if (!field || entry.field.includes('.')) {
        throw new Error(
          `mfx: singleton ${this.model.name} cannot be scoped by "${entry.field}": a scoped singleton needs a plain equality on one of its own columns (give it a unique column for the scope value)`,
        );
      }
      if (Array.isArray(entry.value) || (entry.value !== null && typeof entry.value === 'object')) {
        throw new Error(
          `mfx: singleton ${this.model.name} cannot be scoped by a list or object value on "${entry.field}": a scoped singleton needs a plain equality (one row per scope value), not an in filter`,
        );
      }
      out.push({ field, value: entry.value });
    }
    return out;
  }

  private async find(db: Executor, scope: ScopeColumn[], options: QueryOptions): Promise<string | null> {
    const sql = new SqlBuilder(this.dialect).text('SELECT ').id('id').text(' FROM ').id(this.model.table).text(' WHERE ');
    if (scope.length === 0) {
      sql.id('id').text(' = ').value(SINGLETON_ID);
    } else {
      sql.join(scope, ' AND ', (s, b) => b.id(s.field.column).text(' = ').value(encodeValue(s.field, s.value)));
      // Without a unique scope column two rows may exist; the oldest is the one.
      sql.text(' ORDER BY ').id('created_at').text(', ').id('id').text(' LIMIT 1');
    }
    const row = await db.get(sql.sql, sql.params, options);
    return row ? String(row.id) : null;
  }

  private async provision(db: Executor, scope: ScopeColumn[], options: QueryOptions): Promise<void> {
    const now = isoNow();
    const columns = ['id', ...scope.map((s) => s.field.column), 'created_at', 'updated_at'];
    const values = [scope.length === 0 ? SINGLETON_ID : randomUUID(), ...scope.map((s) => encodeValue(s.field, s.value)), now, now];
    const sql = new SqlBuilder(this.dialect).text('INSERT INTO ').id(this.model.table).text(' (');
    sql.join(columns, ', ', (c, b) => b.id(c)).text(') VALUES (');
    sql.join(values, ', ', (v, b) => b.value(v)).text(') ON CONFLICT DO NOTHING');
    await db.run(sql.sql, sql.params, options);
  }

  /**
   * The id of the row this request reaches, created from the column defaults
   * when it does not exist yet.
   *
   * @example
   * const id = await singletons.idFor(ctx.db, singletons.scopeColumns(ctx.scope), { signal: ctx.cancel });
   */
  async idFor(db: Executor, columns: ScopeColumn[], options: QueryOptions = {}): Promise<string> {
    const existing = await this.find(db, columns, options);
    if (existing) return existing;
    await this.provision(db, columns, options);
    const created = await this.find(db, columns, options);
    if (!created) throw new Error(`mfx: the ${this.model.name} singleton row could not be created`);
    return created;
  }
}
