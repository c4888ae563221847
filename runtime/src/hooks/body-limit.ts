/**
 * `bodyLimit({ bytes })`: the spec's body-size hook (Limits: "a body-size
 * hook can lower it"). For the requests it is scoped to it lowers both the
 * JSON body limit (`bodyLimit`, 4 MB by default) and the multipart limit
 * (`files.maxUploadBytes`, 32 MB by default); it never raises either. The
 * body is still read by the one body reader and the one multipart reader,
 * so a body over the lowered limit is refused exactly as one over the
 * server's: 413 `BODY_TOO_LARGE` naming the limit, nothing written.
 */
import { ConfigError } from '../errors/api-error.js';
import { lowerBodyLimit } from '../http/body.js';
import { describeHook } from '../pipeline/hook-meta.js';
import type { Hook } from '../pipeline/types.js';

export interface BodyLimitOptions {
  /** The largest body, in bytes, of a request this hook runs for (a positive whole number). */
  bytes: number;
}

/**
 * Lowers the body limit of the requests it runs for to `bytes` (JSON and
 * multipart bodies alike; a limit above the server's changes nothing). An
 * Auth-step hook, or a Deserialize-step hook at position `before`: it must
 * run before the body is read. The standalone file routes (`ops: ['file']`)
 * run Auth-step hooks only. Two hooks on one request: the lower stands.
 *
 * @example
 * app.use('auth', bodyLimit({ bytes: 64 * 1024 }), { models: ['Comment'], ops: ['create', 'update'] });
 * app.use('auth', bodyLimit({ bytes: 2 * 1024 * 1024 }), { ops: ['file'] });
 */
export function bodyLimit(options: BodyLimitOptions): Hook {
  const bytes = options?.bytes;
  if (!Number.isInteger(bytes) || bytes < 1) {
    throw new ConfigError(`bodyLimit(): bytes must be a positive whole number of bytes, got ${String(bytes)}`);
  }
  const hook: Hook = (ctx, next) => {
    lowerBodyLimit(ctx, bytes);
    return next();
  };
  return describeHook(hook, {
    role: 'other',
    label: 'bodyLimit()',
    openapi: { ops: ['create', 'update', 'action', 'file'], statuses: ['413'] },
    setup({ entry }) {
      if (entry.step === 'auth') return;
      if (entry.step !== 'deserialize' || entry.position !== 'before') {
        throw new ConfigError(`bodyLimit() must run before the body is read: register it at the auth step, or at the deserialize step with position 'before', not at ${entry.step} (${entry.position})`);
      }
      if (entry.ops?.has('file')) {
        throw new ConfigError("bodyLimit() scoped to the file routes (ops: ['file']) belongs at the auth step: those routes run Auth-step hooks only");
      }
    },
  });
}
