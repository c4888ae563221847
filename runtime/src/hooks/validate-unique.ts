/**
 * `validate.unique({ field, caseInsensitive? })`: a Validate-step hook that
 * answers 409 CONFLICT before the write when another live record already
 * holds the value, with the details a database unique violation has.
 */
import { ConfigError } from '../errors/api-error.js';
import { mapDbError } from '../db/errors.js';
import { ruleHook } from '../pipeline/write-rules.js';
import type { Hook } from '../pipeline/types.js';
import { duplicateKey } from '../sql/dialects/shared.js';

export interface UniqueOptions {
  /** JSON name of the field whose value no two live records may share. */
  field: string;
  /** Compare lower-cased (both databases' `lower()`), so `Ada@x.io` collides with `ada@x.io`; not on encrypted fields. */
  caseInsensitive?: boolean;
}

/**
 * Refuses a create or update whose value another live record already holds:
 * 409 CONFLICT, message and details (`table`, `column`, `detail`) as a
 * UNIQUE violation of the database answers them, checked once the write has
 * no 422 problem and before it runs. An update that keeps its own value
 * passes; soft-deleted rows never collide (as the model's partial unique
 * index); an `encrypted,unique` field is compared on its blind index; an
 * absent or null value is not checked.
 *
 * It does not replace the UNIQUE constraint (`@mfx unique`): two writes
 * racing past the check both see no holder, and the constraint refuses the
 * second, which answers the same 409. On a field without the constraint the
 * check alone cannot stop such a race; `caseInsensitive` is stricter than the
 * constraint, so a race there can store two spellings.
 *
 * @example
 * app.use('validate', validate.unique({ field: 'email', caseInsensitive: true }), { models: ['User'] });
 */
export function unique(options: UniqueOptions): Hook {
  if (!options?.field) throw new ConfigError('validate.unique() needs { field }: the field no two records may share, such as { field: "email" }');
  const { field, caseInsensitive = false } = options;
  const label = `validate.unique({ field: '${field}' })`;
  return ruleHook({
    label,
    fields: [field],
    openapi: { statuses: ['409'] },
    rule(model, env) {
      const found = model.field(field)!;
      if (found.type === 'localized' || found.type === 'json_array' || found.type === 'json_object') {
        throw new ConfigError(`${label}: ${model.name}.${field} is a ${found.type} field, whose values are not compared whole; pick a scalar field`);
      }
      if (found.encrypted && !found.encrypted.unique) {
        throw new ConfigError(`${label}: ${model.name}.${field} is encrypted without unique, so no stored value can be compared; declare it \`@mfx encrypted, unique\` (a blind index)`);
      }
      if (found.encrypted && caseInsensitive) {
        throw new ConfigError(`${label}: ${model.name}.${field} is encrypted, and its blind index compares exact text only; drop caseInsensitive or lower-case the value in a service hook`);
      }
      const store = env.store(model.name);
      return {
        async conflict(record, { ctx, stored, sent }) {
          const value = record[field];
          // An update that leaves the field out keeps the value it has.
          if (value === undefined || value === null || (stored && !(field in sent))) return null;
          let held: boolean;
          try {
            held = await store.holdsValue(ctx.db, found, value, { exceptId: stored ? String(stored.id) : null, caseInsensitive, signal: ctx.cancel });
          } catch (error) {
            throw mapDbError(error, ctx.db.dialect, ctx.op);
          }
          if (!held) return null;
          return duplicateKey(found.column, { table: model.table, column: found.column, detail: `another ${model.name} already has this ${field}${caseInsensitive ? ' (compared case-insensitively)' : ''}` });
        },
      };
    },
  });
}
