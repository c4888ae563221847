import { ConfigError } from '../errors/api-error.js';
import { describeHook } from '../pipeline/hook-meta.js';
import type { Hook } from '../pipeline/types.js';
import type { WriteCaller } from '../pipeline/write-observers.js';
import { type Diff, diffOf } from '../store/diff.js';
import { isoNow } from '../util/iso-time.js';

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
  /** `{ field: { old, new } }` of the recorded fields by the history rules: create every non-null field, update the changed ones, delete every field. */
  diff: Diff;
}

export interface AuditOptions {
  /** Receives every record; fire-and-forget: what it throws or rejects is logged, never sent to the client. */
  sink: (record: AuditRecord) => void | Promise<void>;
}

/**
 * Audit log for create, update and delete. Register it at the DB step,
 * position before, scoped like any hook: it follows the writes of the models
 * and operations it is scoped to as a write observer, so it sees the row as
 * it was before the write (read once, under the write's row lock) and every
 * row a delete cascades to or clears. Each record goes to the sink after the
 * write commits (nothing on rollback), without waiting for it; a sink error
 * never fails the request.
 *
 * @example
 * app.use('db', audit({ sink: (record) => auditLog.info(record) }), { ops: ['create', 'update', 'delete'] });
 */
export function audit(options: AuditOptions): Hook {
  if (typeof options?.sink !== 'function') throw new ConfigError('audit() needs { sink: (record) => void }');

  const deliver = (record: AuditRecord, caller: WriteCaller) => {
    const failed = (error: unknown) =>
      caller.log.error({ requestId: caller.requestId, err: String((error as Error)?.message ?? error) }, 'audit sink failed');
    try {
      Promise.resolve(options.sink(record)).catch(failed);
    } catch (error) {
      failed(error);
    }
  };

  // The work happens in the observer; in the pipeline the hook only marks where audit was asked for.
  const hook: Hook = (_ctx, next) => next();
  return describeHook(hook, {
    role: 'other',
    label: 'audit()',
    passThrough: true,
    setup({ entry, models, observeWrites }) {
      if (entry.step !== 'db' || entry.position !== 'before') throw new ConfigError('audit() belongs at the db step, position before: it reads the record before the write');
      observeWrites(
        {
          name: 'audit()',
          needsBefore: true,
          needsLock: true,
          observe(_tx, change) {
            if (!entry.matches(change.model.name, change.op)) return;
            const { model, op, before, after, caller } = change;
            const record: AuditRecord = {
              model: model.name,
              operation: op,
              recordId: change.id,
              actor: caller.identity?.userId ?? null,
              tenant: caller.identity?.tenantId ?? null,
              requestId: caller.requestId,
              traceId: caller.traceId,
              timestamp: isoNow(),
              diff: diffOf(model.fieldsWith('recorded'), op, before, after),
            };
            // Not awaited: the response never waits for the sink.
            caller.afterCommit(() => deliver(record, caller));
          },
        },
        models.map((m) => m.name),
      );
    },
  });
}
