import bcrypt from 'bcryptjs';
import { ConfigError } from '../errors/api-error.js';
import { describeHook, type HookEnvironment } from '../pipeline/hook-meta.js';
import type { Hook } from '../pipeline/types.js';

export interface HashPasswordOptions {
  /** JSON name of the writeonly password field. */
  field: string;
  /** bcrypt cost factor (default 10). */
  rounds?: number;
}

/**
 * Replaces the password in create and update bodies with its bcrypt hash at
 * the Service step, after validation saw the plain text (minlen and the like)
 * and before the DB step writes it. The field must be writeonly, so the hash
 * never comes back.
 *
 * @example
 * app.use('service', hashPassword({ field: 'password' }), { models: ['User'], ops: ['create', 'update'] });
 */
export function hashPassword(options: HashPasswordOptions): Hook {
  if (!options?.field) throw new ConfigError('hashPassword() needs { field }: the writeonly password field');
  const rounds = options.rounds ?? 10;
  if (!Number.isInteger(rounds) || rounds < 4 || rounds > 31) throw new ConfigError(`hashPassword() rounds must be an integer from 4 to 31, got ${rounds}`);
  const hook: Hook = async (ctx, next) => {
    const value = ctx.body?.[options.field];
    if ((ctx.op === 'create' || ctx.op === 'update') && typeof value === 'string') ctx.body![options.field] = await bcrypt.hash(value, rounds);
    await next();
  };
  return describeHook(hook, {
    role: 'other',
    label: `hashPassword({ field: '${options.field}' })`,
    setup({ entry, models }: HookEnvironment) {
      if (entry.step !== 'service') throw new ConfigError(`hashPassword() belongs at the service step, not ${entry.step}: validation must see the plain password first`);
      for (const model of models) {
        const field = model.field(options.field);
        if (!field) {
          if (entry.models) throw new ConfigError(`hashPassword({ field: '${options.field}' }) is scoped to ${model.name}, which has no such field`);
          continue;
        }
        if (!field.writeonly) throw new ConfigError(`hashPassword({ field: '${options.field}' }): ${model.name}.${field.name} must be writeonly so the hash never leaves the server; add @mfx writeonly`);
      }
    },
  });
}

/**
 * Checks a password against a stored bcrypt hash (for login actions).
 *
 * @example
 * if (!(await verifyPassword(body.password, user.password))) throw new ApiError('INVALID_CREDENTIALS');
 */
export function verifyPassword(plain: string, hash: string): Promise<boolean> {
  return bcrypt.compare(plain, hash);
}

/** Hashes a password the same way the hook does (for seeding and tests). */
export function hashPasswordValue(plain: string, rounds = 10): Promise<string> {
  return bcrypt.hash(plain, rounds);
}
