import { ConfigError } from '../errors/api-error.js';
import type { FieldManifest } from '../manifest/types.js';
import type { Context } from '../pipeline/context.js';
import { describeHook } from '../pipeline/hook-meta.js';
import type { Hook } from '../pipeline/types.js';
import type { RecordData } from '../store/codec.js';
import type { ModelStore } from '../store/model-store.js';

/** One audited write. */
export interface AuditRecord {
  model: string;
  operation: 'create' | 'update' | 'delete';
  recordId: string | null;
  /** The caller's user id (null when anonymous). */
  actor: string | null;
  tenant: string | null;
  requestId: string;
  traceId: string;
  /** When the write happened (ISO 8601, UTC). */
  timestamp: string;
  /** `{ field: { old, new } }` of the changed fields (JSON names). */
  diff: Record<string, { old: unknown; new: unknown }>;
}

export interface AuditOptions {
  /** Receives every record; fire-and-forget: what it throws or rejects is logged, never sent to the client. */
  sink: (record: AuditRecord) => void | Promise<void>;
}

/** Fields that never appear in an audit diff: the key, and what must not leave the server. */
const audited = (field: FieldManifest) => field.name !== 'id' && !field.hidden && !field.writeonly && !field.encrypted;

function diffOf(fields: readonly FieldManifest[], before: RecordData | null, after: RecordData | null): AuditRecord['diff'] {
  const diff: AuditRecord['diff'] = {};
  for (const field of fields) {
    const old = before ? (before[field.name] ?? null) : null;
    const now = after ? (after[field.name] ?? null) : null;
    if (!before && now === null) continue;
    if (!after && old === null) continue;
    if (JSON.stringify(old) === JSON.stringify(now)) continue;
    diff[field.name] = { old, new: now };
  }
  return diff;
}

/**
 * Audit log for create, update and delete. Register it at the DB step,
 * position before: it reads the pre-image before the write. The record goes
 * to the sink after the write succeeds (after commit inside a transaction;
 * nothing on rollback), without waiting for it; a sink error never fails the
 * request.
 *
 * @example
 * app.use('db', audit({ sink: (record) => auditLog.info(record) }), { ops: ['create', 'update', 'delete'] });
 */
export function audit(options: AuditOptions): Hook {
  if (typeof options?.sink !== 'function') throw new ConfigError('audit() needs { sink: (record) => void }');
  const fieldsByModel = new Map<string, FieldManifest[]>();
  let store: (model: string) => ModelStore = () => {
    throw new Error('mfx: audit() used before the app sealed');
  };

  const deliver = (record: AuditRecord, ctx: Context) => {
    try {
      Promise.resolve(options.sink(record)).catch((error) => ctx.log.error({ requestId: ctx.requestId, err: String(error?.message ?? error) }, 'audit sink failed'));
    } catch (error) {
      ctx.log.error({ requestId: ctx.requestId, err: String((error as Error)?.message ?? error) }, 'audit sink failed');
    }
  };

  const hook: Hook = async (ctx, next) => {
    const op = ctx.op;
    const model = ctx.model;
    if (!model || (op !== 'create' && op !== 'update' && op !== 'delete')) return next();
    const before = op === 'create' ? null : await store(model.name).findById(ctx.db, ctx.params.id, { signal: ctx.cancel, scope: ctx.scope });
    await next();
    const after = op === 'delete' ? null : ((ctx.result as RecordData | null) ?? null);
    const record: AuditRecord = {
      model: model.name,
      operation: op,
      recordId: (after?.id ?? before?.id ?? ctx.params.id ?? null) as string | null,
      actor: ctx.identity?.userId ?? null,
      tenant: ctx.identity?.tenantId ?? null,
      requestId: ctx.requestId,
      traceId: ctx.traceId,
      timestamp: new Date().toISOString(),
      diff: diffOf(fieldsByModel.get(model.name) ?? [], before, after),
    };
    // Not awaited: the response never waits for the sink.
    ctx.afterCommit(() => deliver(record, ctx));
  };
  return describeHook(hook, {
    role: 'other',
    label: 'audit()',
    setup({ entry, models, store: storeOf }) {
      if (entry.step !== 'db' || entry.position !== 'before') throw new ConfigError('audit() belongs at the db step, position before: it reads the record before the write');
      store = storeOf;
      for (const model of models) fieldsByModel.set(model.name, model.fields.filter(audited));
    },
  });
}
