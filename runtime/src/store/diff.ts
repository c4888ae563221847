import type { FieldManifest } from '../manifest/types.js';
import type { RecordData } from './codec.js';

/** The kinds of write that change a row. */
export type WriteOp = 'create' | 'update' | 'delete';

/** `{ field: { old, new } }` by JSON name. */
export type Diff = Record<string, { old: unknown; new: unknown }>;

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * The diff of one write over `fields` (each consumer passes its own list:
 * history and audit pass the model's recorded fields): create records every
 * non-null field (old null), update only the fields whose value changed,
 * delete every field (new null). The id is left out; a snapshot keeps it.
 *
 * @example
 * diffOf(model.fieldsWith('recorded'), 'update', before, after) // { title: { old: 'a', new: 'b' }, updated_at: {...} }
 */
export function diffOf(fields: readonly FieldManifest[], op: WriteOp, before: RecordData | null, after: RecordData | null): Diff {
  const out: Diff = {};
  for (const field of fields) {
    if (field.base === 'id') continue;
    const old = before?.[field.name] ?? null;
    const now = after?.[field.name] ?? null;
    if (op === 'create' && now === null) continue;
    if (op === 'update' && same(old, now)) continue;
    out[field.name] = op === 'delete' ? { old, new: null } : { old, new: now };
  }
  return out;
}

/**
 * The row restricted to `fields`, every one present (null when unset).
 *
 * @example
 * snapshotOf(model.fieldsWith('recorded'), after) // { id: '…', title: 'b', … }
 */
export function snapshotOf(fields: readonly FieldManifest[], row: RecordData): RecordData {
  const out: RecordData = {};
  for (const field of fields) out[field.name] = row[field.name] ?? null;
  return out;
}
