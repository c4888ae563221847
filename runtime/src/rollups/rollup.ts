/**
 * Rollups (DESIGN.md, "Aggregates, expressions, export, search, computed
 * fields, rollups"): a parent column that holds count/sum/min/max/avg of its
 * live children, kept by a write observer of the child model.
 *
 * Every child write (create; update, re-parenting included: the parents
 * before and after; delete and soft delete; rows a delete cascades to or
 * clears) recomputes the parents it touched from the children as they are
 * now, inside the write's transaction, after locking the parent rows (in id
 * order, so two writes never wait on each other): no increment can be lost,
 * and a value a client wrote into the column is replaced on the next child
 * write. A child write with no transaction open is refused with 500
 * ROLLUP_NO_TX before anything is written. `backfillRollups` recomputes every
 * parent in batches (`mfx rollups backfill`).
 */
import { ApiError, ConfigError, RegistrationClosedError } from '../errors/api-error.js';
import type { Executor, QueryOptions } from '../db/adapter.js';
import type { FieldManifest } from '../manifest/types.js';
import type { BelongsTo, ModelMeta } from '../registry/model-meta.js';
import type { Registry } from '../registry/registry.js';
import { SqlBuilder } from '../sql/builder.js';
import type { SqlDialect } from '../sql/dialect.js';
import { notDeleted } from '../sql/templates.js';
import { encodeValue } from '../store/codec.js';
import type { WriteChange, WriteObserver } from '../pipeline/write-observers.js';

export const ROLLUP_OPS = ['count', 'sum', 'min', 'max', 'avg'] as const;
export type RollupOp = (typeof ROLLUP_OPS)[number];

/** A value `where` compares a child field with. */
export type RollupWhereValue = string | number | boolean | null;

/**
 * A rollup: `parent.field` = `op` of `child.of` over the live children whose
 * `via` points at the parent and whose fields equal `where`.
 *
 * @example
 * app.rollup({ parent: 'Order', field: 'total', child: 'OrderLine', via: 'orderId', op: 'sum', of: 'amount', where: { state: 'paid' } });
 */
export interface RollupDefinition {
  parent: string;
  field: string;
  child: string;
  /** The child's foreign-key field (JSON name) that points at the parent. */
  via: string;
  op: RollupOp;
  /** The child field aggregated; required for every op but count. */
  of?: string;
  /** Equalities on child fields (JSON names): only matching children count. */
  where?: Record<string, RollupWhereValue>;
}

/** A checked rollup, with the columns it reads and writes. */
export interface Rollup {
  /** `rollup Order.total (sum of OrderLine.amount)`: names the rollup in errors and logs. */
  readonly label: string;
  readonly parent: ModelMeta;
  readonly child: ModelMeta;
  readonly field: FieldManifest;
  readonly via: BelongsTo;
  readonly op: RollupOp;
  readonly of: FieldManifest | null;
  readonly where: readonly { field: FieldManifest; value: unknown }[];
}

const NUMERIC = new Set(['number', 'integer', 'bigint']);
const COMPARABLE = new Set(['number', 'integer', 'bigint', 'string', 'timestamp']);
const WHERE_TYPES = new Set(['string', 'number', 'integer', 'bigint', 'boolean', 'timestamp']);

const labelOf = (def: Partial<RollupDefinition>) =>
  `rollup ${String(def?.parent ?? '?')}.${String(def?.field ?? '?')} (${String(def?.op ?? '?')}${def?.of ? ` of ${String(def.child ?? '?')}.${String(def.of)}` : ` of ${String(def?.child ?? '?')}`})`;

/** The rollups of an app: registered in the setup window, checked against the registry once the models are known. */
export class Rollups {
  private readonly definitions: RollupDefinition[] = [];
  private resolved: readonly Rollup[] | null = null;

  add(def: RollupDefinition): void {
    if (this.resolved) throw new RegistrationClosedError(`the ${labelOf(def)}`);
    if (!def || typeof def !== 'object') throw new ConfigError('app.rollup takes { parent, field, child, via, op, of?, where? }');
    this.definitions.push(def);
  }

  get size(): number {
    return this.definitions.length;
  }

  /**
   * Every rollup checked against the registry (sealed: relations linked),
   * once; a problem is a ConfigError naming the rollup.
   */
  resolve(registry: Registry): readonly Rollup[] {
    if (this.resolved) return this.resolved;
    const out = this.definitions.map((def) => checkRollup(def, registry));
    const seen = new Map<FieldManifest, string>();
    for (const rollup of out) {
      const other = seen.get(rollup.field);
      if (other) throw new ConfigError(`${rollup.label}: ${rollup.parent.name}.${rollup.field.name} is already kept by ${other}; a column holds one rollup`);
      seen.set(rollup.field, rollup.label);
    }
    this.resolved = Object.freeze(out);
    return this.resolved;
  }

  /** One write observer per child model, for the app's write observers. */
  observers(registry: Registry): { observer: WriteObserver; model: string }[] {
    const byChild = new Map<ModelMeta, Rollup[]>();
    for (const rollup of this.resolve(registry)) byChild.set(rollup.child, [...(byChild.get(rollup.child) ?? []), rollup]);
    return [...byChild].map(([child, rollups]) => ({ observer: rollupObserver(child, rollups), model: child.name }));
  }
}

function checkRollup(def: RollupDefinition, registry: Registry): Rollup {
  const label = labelOf(def);
  const fail = (message: string) => new ConfigError(`${label}: ${message}`);
  const models = () => registry.modelNames().join(', ') || 'none';
  const parent = typeof def.parent === 'string' ? registry.get(def.parent) : undefined;
  if (!parent) throw fail(`\`parent\` names no registered model (${String(def.parent)}); registered models: ${models()}`);
  const child = typeof def.child === 'string' ? registry.get(def.child) : undefined;
  if (!child) throw fail(`\`child\` names no registered model (${String(def.child)}); registered models: ${models()}`);
  if (!ROLLUP_OPS.includes(def.op)) throw fail(`\`op\` must be one of ${ROLLUP_OPS.join(', ')}, got ${JSON.stringify(def.op)}`);
  const childField = (name: unknown) => (typeof name === 'string' ? child.field(name) : undefined);

  const field = typeof def.field === 'string' ? parent.field(def.field) : undefined;
  if (!field || field.base) {
    const candidates = parent.fields.filter((f) => !f.base && NUMERIC.has(f.type)).map((f) => f.name);
    throw fail(`\`field\` ${String(def.field)} is not a field of ${parent.name}${candidates.length ? `; numeric fields: ${candidates.join(', ')}` : ''}`);
  }
  const foreignKeys = [...child.relations.values()].filter((r): r is BelongsTo => r.kind === 'belongsTo');
  const via = foreignKeys.find((r) => r.field === def.via && r.target === parent.name);
  if (!via) {
    const toParent = foreignKeys.filter((r) => r.target === parent.name).map((r) => r.field);
    const known = childField(def.via) ? `${child.name}.${String(def.via)} is not a foreign key to ${parent.name}` : `${String(def.via)} is not a field of ${child.name}`;
    throw fail(`\`via\`: ${known}; ${toParent.length ? `foreign keys of ${child.name} to ${parent.name}: ${toParent.join(', ')}` : `${child.name} has no foreign key to ${parent.name}`}`);
  }

  let of: FieldManifest | null = null;
  if (def.op !== 'count' || def.of !== undefined) {
    if (def.of === undefined) throw fail(`\`of\` is required for ${def.op}: name the ${child.name} field to aggregate`);
    of = childField(def.of) ?? null;
    if (!of) throw fail(`\`of\` ${String(def.of)} is not a field of ${child.name}`);
    const numericOp = def.op === 'sum' || def.op === 'avg';
    if (numericOp && !NUMERIC.has(of.type)) throw fail(`\`of\` ${child.name}.${of.name} is ${of.type}, and ${def.op} needs a number, integer or bigint field`);
    if (!COMPARABLE.has(of.type)) throw fail(`\`of\` ${child.name}.${of.name} is ${of.type}, which ${def.op} cannot aggregate`);
  }
  // The column must hold what the aggregate gives.
  if (def.op === 'avg' && field.type !== 'number') throw fail(`${parent.name}.${field.name} is ${field.type}; an average needs a number field`);
  if ((def.op === 'count' || def.op === 'sum') && !NUMERIC.has(field.type)) throw fail(`${parent.name}.${field.name} is ${field.type}; ${def.op} needs a number, integer or bigint field`);
  if ((def.op === 'min' || def.op === 'max') && of && !(of.type === field.type || (NUMERIC.has(of.type) && NUMERIC.has(field.type)))) {
    throw fail(`${parent.name}.${field.name} is ${field.type}, but ${def.op} of ${child.name}.${of.name} gives ${of.type}`);
  }
  if ((def.op === 'count' || def.op === 'sum') && field.type === 'integer' && of?.type === 'number') {
    throw fail(`${parent.name}.${field.name} is integer, but the sum of ${child.name}.${of.name} is a number with decimals; use a number field`);
  }

  const where: { field: FieldManifest; value: unknown }[] = [];
  if (def.where !== undefined) {
    if (!def.where || typeof def.where !== 'object' || Array.isArray(def.where)) throw fail('`where` must be an object of child field → value, e.g. { state: "paid" }');
    for (const [name, value] of Object.entries(def.where)) {
      const f = childField(name);
      if (!f) throw fail(`\`where\` names ${name}, which is not a field of ${child.name}`);
      if (!WHERE_TYPES.has(f.type)) throw fail(`\`where\` compares ${child.name}.${name}, a ${f.type} field; only scalar fields can be compared`);
      if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) throw fail(`\`where\` ${name} must be a string, number, boolean or null`);
      where.push({ field: f, value: value === null ? null : encodeValue(f, value) });
    }
  }
  return { label, parent, child, field, via, op: def.op, of, where };
}

/** The aggregate of one rollup over the children of the outer parent row, as a scalar subquery. */
function writeAggregate(sql: SqlBuilder, rollup: Rollup, dialect: SqlDialect): void {
  const c = 'mfx_c';
  const of = rollup.of ? `${dialect.quote(c)}.${dialect.quote(rollup.of.column)}` : '*';
  const aggregate = {
    count: `COALESCE(COUNT(${of}), 0)`,
    sum: `COALESCE(SUM(${of}), 0)`,
    min: `MIN(${of})`,
    max: `MAX(${of})`,
    avg: `AVG(${of})`,
  }[rollup.op];
  sql.text(`(SELECT ${aggregate} FROM `).id(rollup.child.table).text(' ').id(c).text(' WHERE ').column(c, rollup.via.column).text(' = ').column(rollup.parent.table, 'id');
  const live = notDeleted(rollup.child.manifest, dialect, c);
  if (live) sql.text(` AND ${live}`);
  for (const { field, value } of rollup.where) {
    if (value === null) sql.text(' AND ').column(c, field.column).text(' IS NULL');
    else sql.text(' AND ').column(c, field.column).text(' = ').value(value);
  }
  sql.text(')');
}

/**
 * Locks the parent rows `ids` (in id order) and sets every rollup column of
 * `rollups` (all of one parent model) from the children as they are now.
 */
export async function recompute(db: Executor, parent: ModelMeta, rollups: readonly Rollup[], ids: readonly string[], options: QueryOptions = {}): Promise<void> {
  if (ids.length === 0) return;
  const dialect = db.dialect;
  const sorted = [...ids].sort();
  if (dialect.lockRowsNoKeyClause) {
    const lock = new SqlBuilder(dialect).text('SELECT ').id('id').text(' FROM ').id(parent.table).text(' WHERE ');
    dialect.inTextValues(lock, dialect.quote('id'), sorted);
    lock.text(' ORDER BY ').id('id').text(dialect.lockRowsNoKeyClause);
    await db.all(lock.sql, lock.params, options);
  }
  const sql = new SqlBuilder(dialect).text('UPDATE ').id(parent.table).text(' SET ');
  sql.join(rollups, ', ', (rollup, s) => {
    s.id(rollup.field.column).text(' = ');
    writeAggregate(s, rollup, dialect);
  });
  sql.text(' WHERE ');
  dialect.inTextValues(sql, `${dialect.quote(parent.table)}.${dialect.quote('id')}`, sorted);
  await db.run(sql.sql, sql.params, options);
}

/** The write observer of one child model: recomputes every parent a change touched, by parent model. */
function rollupObserver(child: ModelMeta, rollups: readonly Rollup[]): WriteObserver {
  const byParent = new Map<ModelMeta, Rollup[]>();
  for (const rollup of rollups) byParent.set(rollup.parent, [...(byParent.get(rollup.parent) ?? []), rollup]);
  // Parents in name order: two writes touching two parent models lock them in the same order.
  const groups = [...byParent].sort(([a], [b]) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const names = rollups.map((r) => r.label).join('; ');
  return {
    name: `rollups of ${child.name}`,
    needsBefore: true,
    // The child row stays locked from the read of its parent before the write to the end: a concurrent re-parenting sees where it really was.
    needsLock: true,
    outsideTransaction(model, op, caller) {
      caller.log.error(
        { requestId: caller.requestId, model: model.name, op, rollups: names },
        `${op === 'update' ? 'an' : 'a'} ${op} of ${model.name} ran without a transaction, which its rollups need; register transaction() for ${model.name} (app.use('service', transaction(), { models: ['${model.name}'] })); nothing was written`,
      );
      return new ApiError('ROLLUP_NO_TX');
    },
    async observe(tx, change: WriteChange) {
      if (!tx.inTransaction) throw this.outsideTransaction!(change.model, change.op, change.caller);
      for (const [parent, group] of groups) {
        const ids = new Set<string>();
        for (const rollup of group) {
          for (const row of [change.before, change.after]) {
            const id = row?.[rollup.via.field];
            if (typeof id === 'string') ids.add(id);
          }
        }
        await recompute(tx, parent, group, [...ids], { signal: change.caller.cancel });
      }
    },
  };
}

/** Progress of a backfill, after each batch. */
export interface BackfillProgress {
  /** The parent model whose rows are being recomputed. */
  model: string;
  done: number;
  total: number;
}

export interface BackfillOptions {
  /** Parent rows recomputed per transaction (default 500). */
  batchSize?: number;
  /** Called after each batch; returning false stops after it. */
  onProgress?: (progress: BackfillProgress) => boolean | void;
}

export interface BackfillReport {
  /** Per parent model: the rows recomputed and the rollup columns set. */
  models: { model: string; rows: number; fields: string[] }[];
  /** False when onProgress stopped it. */
  complete: boolean;
}

/**
 * Recomputes every rollup of every parent row from the children as they are,
 * parent model by parent model in batches of `batchSize` rows by id, each
 * batch in a transaction that locks its rows (backfillRollups runs it on an
 * app's database).
 *
 * @example
 * const report = await backfillParents(db, app.rollups(), { batchSize: 1000 });
 */
export async function backfillParents(db: Executor, rollups: readonly Rollup[], options: BackfillOptions = {}): Promise<BackfillReport> {
  const batchSize = options.batchSize ?? 500;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new ConfigError(`backfill batchSize must be a positive whole number, got ${String(batchSize)}`);
  const byParent = new Map<ModelMeta, Rollup[]>();
  for (const rollup of rollups) byParent.set(rollup.parent, [...(byParent.get(rollup.parent) ?? []), rollup]);
  const report: BackfillReport = { models: [], complete: true };
  const dialect = db.dialect;
  for (const [parent, group] of [...byParent].sort(([a], [b]) => (a.name < b.name ? -1 : 1))) {
    const counted = await db.get(`SELECT COUNT(*) AS n FROM ${dialect.quote(parent.table)}`);
    const total = Number(counted?.n ?? 0);
    const entry = { model: parent.name, rows: 0, fields: group.map((r) => r.field.name) };
    report.models.push(entry);
    let after: string | null = null;
    for (;;) {
      const ids = await db.transaction(async (tx) => {
        const page = new SqlBuilder(dialect).text('SELECT ').id('id').text(' FROM ').id(parent.table);
        if (after !== null) page.text(' WHERE ').id('id').text(' > ').value(after);
        page.text(' ORDER BY ').id('id').text(' LIMIT ').value(batchSize);
        const rows = await tx.all(page.sql, page.params);
        const batch = rows.map((r) => String(r.id));
        await recompute(tx, parent, group, batch);
        return batch;
      });
      if (ids.length === 0) break;
      after = ids[ids.length - 1];
      entry.rows += ids.length;
      if (options.onProgress?.({ model: parent.name, done: entry.rows, total: Math.max(total, entry.rows) }) === false) {
        report.complete = false;
        return report;
      }
      if (ids.length < batchSize) break;
    }
  }
  return report;
}
