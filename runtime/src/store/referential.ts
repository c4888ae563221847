import type { Executor, QueryOptions } from '../db/adapter.js';
import { ApiError } from '../errors/api-error.js';
import type { ScopeFilter } from '../pipeline/context.js';
import type { BelongsTo, ModelMeta } from '../registry/model-meta.js';
import { SqlBuilder } from '../sql/builder.js';
import type { SqlDialect } from '../sql/dialect.js';
import { notDeleted } from '../sql/templates.js';
import { decoderFor, type RecordData } from './codec.js';
import { scopeFor, writeScope } from './scope.js';
import { isoNow } from '../util/iso-time.js';

/** One row a delete changed besides the record asked for: the hook point for history and events. */
export interface CascadedChange {
  model: ModelMeta;
  /** `delete` removed the row, `softDelete` marked it, `setNull` cleared its foreign key. */
  action: 'delete' | 'softDelete' | 'setNull';
  /** The row as it was before the change (every field, JSON names). */
  before: RecordData;
  /** The row after a `setNull` (foreign key null, updated_at moved); null when the row was deleted or marked. */
  after: RecordData | null;
  /** The transaction the change ran in: observers write there, so they commit or roll back with it. */
  tx: Executor;
  /** The relation of `model` that pointed at the deleted parent. */
  relation: BelongsTo;
  /** 1 for children of the record asked for, 2 for grandchildren, ... */
  depth: number;
}

/** Called once per cascaded row, inside the delete's transaction, after the row changed. */
export type CascadeObserver = (change: CascadedChange) => void | Promise<void>;

export interface RemoveOptions extends QueryOptions {
  scope?: readonly ScopeFilter[];
  observe?: CascadeObserver;
  /** Remove the row even when the model has soft delete (a soft-deleted row too), and its children as for a removal. */
  hard?: boolean;
}

/**
 * Deletes one record and performs the onDelete action of every BelongsTo
 * that points at it, recursively, in one transaction (the active one, or a
 * new one): cascade deletes the children (soft delete for soft-delete
 * models while the parent row stays; removal when the parent row is
 * removed, since a row may not point at a missing parent), setNull clears
 * their foreign key, restrict refuses with 409 DELETE_RESTRICTED. Without an
 * onDelete, a hard delete with children left is refused the same way.
 */
export class ReferentialDelete {
  constructor(private readonly dialect: SqlDialect) {}

  private decode(model: ModelMeta) {
    return decoderFor(model, this.dialect.name);
  }

  /** False when no live row in scope has that id. */
  async remove(db: Executor, model: ModelMeta, id: string, options: RemoveOptions = {}): Promise<boolean> {
    const work = async (tx: Executor) => {
      const sql = this.select(model, 'id', [id], !options.hard);
      writeScope(sql, model, scopeFor(model, options.scope, true));
      // Locked until the transaction ends: a concurrent delete of the same row waits here, then
      // finds it gone (or marked) and answers 404 instead of deleting, cascading and observing again.
      sql.text(this.dialect.lockRowsClause);
      const row = await tx.get(sql.sql, sql.params, options);
      if (!row) return false;
      const visited = new Map<ModelMeta, Set<string>>();
      // Counted, not assumed: the row was live and locked, so this is 1 unless the lock did not hold.
      const changed = await this.removeRows(tx, model, [this.decode(model)(row)], options.hard === true || !model.options.softDelete, 0, null, visited, options);
      return changed > 0;
    };
    return db.inTransaction ? work(db) : db.transaction(work, options);
  }

  /** SELECT every column of `model` where `column` is one of `values` (live rows only when `liveOnly`); callers add the lock. */
  private select(model: ModelMeta, column: string, values: string[], liveOnly: boolean): SqlBuilder {
    const sql = new SqlBuilder(this.dialect).text('SELECT ').join(model.fields, ', ', (f, s) => s.id(f.column));
    sql.text(' FROM ').id(model.table).text(' WHERE ');
    this.dialect.inTextValues(sql, this.dialect.quote(column), values);
    const live = notDeleted(model.manifest, this.dialect);
    if (liveOnly && live) sql.text(` AND ${live}`);
    return sql;
  }

  private async removeRows(
    tx: Executor,
    model: ModelMeta,
    rows: RecordData[],
    hard: boolean,
    depth: number,
    via: BelongsTo | null,
    visited: Map<ModelMeta, Set<string>>,
    options: RemoveOptions,
  ): Promise<number> {
    const seen = visited.get(model) ?? new Set<string>();
    visited.set(model, seen);
    // A cycle of cascades reaches rows already on their way out: they are handled once.
    const fresh = rows.filter((r) => !seen.has(r.id as string));
    if (fresh.length === 0) return 0;
    for (const row of fresh) seen.add(row.id as string);
    const ids = fresh.map((r) => r.id as string);

    for (const { child, relation } of model.inbound) {
      // A removed parent must lose every reference, soft-deleted children's too; a marked parent only its live ones.
      const sql = this.select(child, relation.column, ids, !hard);
      writeScope(sql, child, scopeFor(child, options.scope, false));
      // Locked like the parent: a child deleted concurrently is changed (and observed) by one transaction only.
      sql.text(this.dialect.lockRowsClause);
      const children = (await tx.all(sql.sql, sql.params, options)).map(this.decode(child));
      const pending = children.filter((c) => !(visited.get(child)?.has(c.id as string)));
      if (pending.length === 0) continue;
      switch (relation.onDelete) {
        case 'cascade':
          await this.removeRows(tx, child, pending, hard || !child.options.softDelete, depth + 1, relation, visited, options);
          break;
        case 'setNull':
          await this.clearReferences(tx, child, relation, pending, depth + 1, options);
          break;
        case 'restrict':
          throw restricted(model, child, relation, pending.length);
        case 'noAction':
          // The database would refuse the removal; a marked parent keeps its row, so its children stay valid.
          if (hard) throw restricted(model, child, relation, pending.length);
          break;
      }
    }

    const marker = model.options.softDelete;
    const write = new SqlBuilder(this.dialect);
    if (hard || !marker) {
      write.text('DELETE FROM ').id(model.table).text(' WHERE ');
      this.dialect.inTextValues(write, this.dialect.quote('id'), ids);
    } else {
      const at = isoNow();
      write.text('UPDATE ').id(model.table).text(' SET ').id(marker.column).text(' = ').value(marker.type === 'boolean' ? true : at);
      write.text(', ').id('updated_at').text(' = ').value(at).text(' WHERE ');
      this.dialect.inTextValues(write, this.dialect.quote('id'), ids);
      // A row already marked keeps its marker: deleting twice never moves deleted_at.
      write.text(` AND ${notDeleted(model.manifest, this.dialect)!}`);
    }
    const { changes } = await tx.run(write.sql, write.params, options);
    if (via && options.observe) {
      const action = hard || !marker ? 'delete' : 'softDelete';
      for (const before of fresh) await options.observe({ model, action, before, after: null, relation: via, depth, tx });
    }
    return changes;
  }

  private async clearReferences(tx: Executor, child: ModelMeta, relation: BelongsTo, rows: RecordData[], depth: number, options: RemoveOptions): Promise<void> {
    const at = isoNow();
    const sql = new SqlBuilder(this.dialect).text('UPDATE ').id(child.table).text(' SET ').id(relation.column).text(' = NULL, ').id('updated_at').text(' = ').value(at);
    sql.text(' WHERE ');
    this.dialect.inTextValues(sql, this.dialect.quote('id'), rows.map((r) => r.id as string));
    await tx.run(sql.sql, sql.params, options);
    if (!options.observe) return;
    const key = child.field(relation.column)?.name ?? relation.column;
    for (const before of rows) {
      await options.observe({ model: child, action: 'setNull', before, after: { ...before, [key]: null, updated_at: at }, relation, depth, tx });
    }
  }
}

function restricted(parent: ModelMeta, child: ModelMeta, relation: BelongsTo, count: number): ApiError {
  const declared = relation.onDelete === 'restrict' ? 'onDelete:restrict' : 'no onDelete action';
  return new ApiError(
    'DELETE_RESTRICTED',
    `cannot delete this ${parent.name}: ${count} ${child.name} record${count === 1 ? '' : 's'} still refer${count === 1 ? 's' : ''} to it through ${child.name}.${relation.field} (${declared}); delete ${count === 1 ? 'it' : 'them'} first, or declare onDelete:cascade or setNull on the relation`,
  );
}
