/**
 * What a column can hold beyond what the JSON Schema checks: no NUL
 * character in any text (PostgreSQL's text and jsonb refuse it), and JSON
 * values nested at most MAX_JSON_DEPTH levels (deeper ones overflow the
 * stack while they are encoded, and SQLite's JSON functions refuse them).
 * Both answer 422 naming the field, the same on every database.
 */
import type { ValidationDetail } from '../errors/api-error.js';
import type { FieldManifest } from '../manifest/types.js';
import { hasNul, mayHoldNul, NUL_REFUSAL } from '../util/nul.js';

/** Levels of arrays and objects a JSON column's value may nest, the column's own array or object included. */
export const MAX_JSON_DEPTH = 64;

const DEPTH_REFUSAL = `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; flatten the value`;

const NONE: readonly ValidationDetail[] = Object.freeze([]);

/** Field types whose values are JSON trees, walked for their depth on every write that carries them. */
const JSON_TYPES = new Set<FieldManifest['type']>(['json_array', 'json_object', 'localized']);

/**
 * The storable-value check of one model's writes: built once per model, run
 * on every create and update body after its keys are stripped. `raw` is the
 * JSON text the body was parsed from, or null (multipart, a hook's body):
 * text is searched for NUL characters only when the raw bytes hold the
 * escape, or when there are no raw bytes to scan; JSON columns are walked
 * for their depth whenever the body carries them.
 *
 * @example
 * const check = storableCheck(model.createKeys);
 * check({ title: 'a\u0000' }, ctx.rawBody); // [{ field: 'title', message: 'contains a NUL character, …' }]
 */
export function storableCheck(keys: ReadonlyMap<string, FieldManifest>): (body: Record<string, unknown>, raw: Buffer | null) => readonly ValidationDetail[] {
  const trees = new Set([...keys.values()].filter((f) => JSON_TYPES.has(f.type)).map((f) => f.name));
  return (body, raw) => {
    const nul = raw === null || mayHoldNul(raw);
    // Nearly every write: no NUL escape in the raw body and no JSON column to walk.
    if (!nul && trees.size === 0) return NONE;
    const problems: ValidationDetail[] = [];
    for (const name in body) {
      const value = body[name];
      let problem: ValidationDetail | null = null;
      if (trees.has(name)) problem = inspect(value, 0, { nul, field: name, at: [] });
      else if (nul && typeof value === 'string' && hasNul(value)) problem = { field: name, message: NUL_REFUSAL };
      if (problem) problems.push(problem);
    }
    return problems;
  };
}

/** What a walk of one JSON value looks for, the field it belongs to, and where it is (kept as a stack, joined only for a problem). */
interface Walk {
  nul: boolean;
  field: string;
  at: (string | number)[];
}

const pathOf = (walk: Walk) => [walk.field, ...walk.at].join('.');

/**
 * The first problem inside one JSON value: a NUL in a string or an object
 * key (named by the path of the string, or of the object holding the key,
 * as validation details name nested values), or nesting past the limit
 * (named by the field). Recursion stops at the limit, so hostile nesting
 * cannot exhaust the stack here.
 */
function inspect(value: unknown, depth: number, walk: Walk): ValidationDetail | null {
  if (typeof value === 'string') return walk.nul && hasNul(value) ? { field: pathOf(walk), message: NUL_REFUSAL } : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_JSON_DEPTH) return { field: walk.field, message: DEPTH_REFUSAL };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      walk.at.push(i);
      const problem = inspect(value[i], depth + 1, walk);
      walk.at.pop();
      if (problem) return problem;
    }
    return null;
  }
  for (const key in value) {
    if (walk.nul && hasNul(key)) return { field: pathOf(walk), message: NUL_REFUSAL };
    walk.at.push(key);
    const problem = inspect((value as Record<string, unknown>)[key], depth + 1, walk);
    walk.at.pop();
    if (problem) return problem;
  }
  return null;
}
