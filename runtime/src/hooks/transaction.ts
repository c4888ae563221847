import { AbortedError, TxBeginError, TxCommitError } from '../db/adapter.js';
import { mapDbError } from '../db/errors.js';
import { type Hook, requiresBeforePosition } from '../pipeline/types.js';

const rollback = Symbol('mfx.rollback');

/**
 * Runs the rest of the pipeline in one transaction: committed when nothing
 * threw and the response is empty or below 400, rolled back otherwise (and
 * when the request was aborted). `ctx.afterCommit` callbacks run after the
 * commit and are dropped on rollback; `ctx.onRollback` callbacks the other way
 * round. Registering it twice is harmless: the second sees the open
 * transaction and passes through. Before position only.
 * The decision is taken when the chain ends, before the response is written:
 * a streamed response's source runs after the commit, so it reads through
 * `ctx.adapter`, not the transaction (which refuses statements once ended).
 *
 * @example
 * app.use('service', transaction(), { models: ['Order'], ops: ['create', 'update'] });
 */
export function transaction(): Hook {
  const hook: Hook = async function transaction(ctx, next) {
    if (ctx.tx) return next();
    try {
      await ctx.transaction(async () => {
        await next();
        if ((ctx.response && ctx.response.status >= 400) || ctx.cancel.aborted) throw rollback;
      });
    } catch (error) {
      if (error === rollback) return;
      if (error instanceof TxBeginError || error instanceof TxCommitError || error instanceof AbortedError) throw mapDbError(error, ctx.adapter.dialect);
      throw error;
    }
  };
  (hook as unknown as Record<symbol, boolean>)[requiresBeforePosition] = true;
  return hook;
}
