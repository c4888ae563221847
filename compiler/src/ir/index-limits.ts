/**
 * Length limits of indexed text.
 *
 * An index holds each of its entries whole, and PostgreSQL refuses a write
 * whose entry is too large: a btree entry (unique, index, unique_index,
 * foreign keys) holds at most 2704 bytes, a tsvector (the full-text index of
 * the searchable fields) 1 MiB. Without a limit a long string is a 500 at
 * write time. So every text field that lands in an index gets a maximum
 * length, checked by the validators (422 naming the field) on every
 * database alike: `maxlen:N` sets it, and is refused when the index cannot
 * hold N characters of the worst kind (4 bytes each in UTF-8); without it,
 * the field takes a default (255 characters in a btree, 100,000 in the
 * full-text index), lowered to an equal share of what the index has left
 * when several such fields share one index.
 */
import type { DiagnosticBag, Span } from './diagnostics.js';
import type { FieldIR, ModelIR } from './model.js';
import { findField } from './model.js';

/** What one kind of index can hold, in bytes, and what a column costs in it at worst. */
export interface IndexCapacity {
  /** The largest entry the database accepts. */
  bytes: number;
  /** Bytes every entry spends before its columns (headers, null bitmap). */
  fixed: number;
  /** Bytes a character of text may take. */
  perChar: number;
  /** Bytes a text column takes besides its characters (length header, alignment, separator). */
  perText: number;
  /** Bytes a column of any other type takes at most. */
  perOther: number;
  /** The maximum length of a text field that sets none, when the index has room for it. */
  defaultChars: number;
  /** Why, in one sentence, for messages. */
  reason: string;
}

/** PostgreSQL btree: an entry is at most 2704 bytes (a third of a page); tuple header and null bitmap 16, a text column 4 bytes of length and up to 3 of alignment. */
export const BTREE: IndexCapacity = {
  bytes: 2704,
  fixed: 16,
  perChar: 4,
  perText: 8,
  perOther: 16,
  defaultChars: 255,
  reason: "PostgreSQL's btree index entries hold 2704 bytes and a character takes up to 4 bytes in UTF-8",
};

/**
 * PostgreSQL tsvector: at most 1,048,575 bytes. A word costs 4 bytes of entry, its own bytes, 2 of
 * position count and 2 per position, so a one-character word of a 4-byte character and the space
 * after it cost 12 bytes: 6 per character of text, at worst.
 */
export const FULL_TEXT: IndexCapacity = {
  bytes: 1_048_575,
  fixed: 8,
  perChar: 6,
  perText: 6,
  perOther: 0,
  defaultChars: 100_000,
  reason: "PostgreSQL's full-text vector holds 1 MiB and a character of text can take up to 6 bytes of it",
};

/** The blind index of `encrypted,unique` stores a fixed-size HMAC: any length fits, the default still bounds the input. */
export const BLIND_INDEX: IndexCapacity = {
  bytes: Number.POSITIVE_INFINITY,
  fixed: 0,
  perChar: 0,
  perText: 0,
  perOther: 0,
  defaultChars: 255,
  reason: 'the blind index stores a fixed-size HMAC of the value',
};

/** Ids are server-generated UUIDs: 36 characters. */
const ID_CHARS = 36;

/** One index of a model and the fields whose values it holds. */
interface IndexUse {
  capacity: IndexCapacity;
  /** How messages name it: `the unique index on email`, `index by_name (name, nickname)`. */
  label: string;
  fields: FieldIR[];
  span: Span;
  /** The property the index is declared on, for messages; absent for model-wide indexes. */
  owner?: FieldIR;
}

/**
 * Give every indexed text field its maximum length, and report `maxlen`s
 * that an index cannot hold. Runs once relations are resolved (foreign keys
 * are indexed).
 *
 * @example
 * applyIndexLimits(models, bag);
 * findField(user, 'email')!.maxlen; // 255 (unique, no maxlen of its own)
 */
export function applyIndexLimits(models: ModelIR[], bag: DiagnosticBag): void {
  for (const model of models) {
    // A field can sit in several indexes (unique and a foreign key, say): one report of one maxlen is enough.
    const reported = new Set<string>();
    const report: Report = (span, message, hint) => {
      if (!reported.has(message)) bag.error(span, message, hint);
      reported.add(message);
    };
    const uses = indexUses(model);
    const defaulted = new Set<FieldIR>();
    // Btree limits first: a field they bound counts at that length in the full-text index, leaving it more room.
    for (const capacity of [BTREE, BLIND_INDEX, FULL_TEXT]) {
      const limits = new Map<FieldIR, { chars: number; use: IndexUse }>();
      for (const use of uses.filter((u) => u.capacity === capacity)) {
        const share = defaultShare(model, use, report, defaulted);
        if (share === null) continue;
        for (const field of use.fields.filter(isOpen)) {
          const known = limits.get(field);
          if (!known || share < known.chars) limits.set(field, { chars: share, use });
        }
      }
      for (const [field, { chars, use }] of limits) {
        if (setDefaultLimit(model, field, chars, use, bag)) defaulted.add(field);
      }
    }
  }
}

/** Every index of the model that holds text a client writes. */
function indexUses(model: ModelIR): IndexUse[] {
  const uses: IndexUse[] = [];
  const single = (capacity: IndexCapacity, label: string, field: FieldIR) => uses.push({ capacity, label, fields: [field], span: field.span, owner: field });
  for (const field of model.fields) {
    if (field.base) continue;
    if (field.unique) single(BTREE, `the unique index on ${field.name}`, field);
    else if (field.index) single(BTREE, `the index on ${field.name}`, field);
    if (field.encrypted?.unique) single(BLIND_INDEX, `the blind index of ${field.name}`, field);
  }
  for (const relation of model.relations) {
    const field = relation.kind === 'belongsTo' ? findField(model, relation.field) : undefined;
    if (field) single(BTREE, `the foreign-key index on ${field.name}`, field);
  }
  for (const index of model.options.indices) {
    const fields = index.columns.map((column) => findField(model, column)).filter((f): f is FieldIR => f !== undefined);
    const label = `${index.unique ? 'unique_index' : 'index'} ${index.name} (${fields.map((f) => f.name).join(', ')})`;
    uses.push({ capacity: BTREE, label, fields, span: model.span });
  }
  const cursor = model.options.cursorField ? findField(model, model.options.cursorField) : undefined;
  const id = findField(model, 'id');
  // Keyset pagination orders by (cursor field, id), and a careful operator indexes exactly that.
  if (cursor && id) uses.push({ capacity: BTREE, label: `the keyset order of cursor_field ${cursor.name} (with id)`, fields: [cursor, id], span: cursor.base ? model.span : cursor.span, owner: cursor.base ? undefined : cursor });
  const searchable = model.fields.filter((f) => f.searchable && f.type === 'string');
  if (searchable.length === 1) uses.push({ capacity: FULL_TEXT, label: `the full-text index on ${searchable[0].name}`, fields: searchable, span: searchable[0].span, owner: searchable[0] });
  else if (searchable.length > 1) uses.push({ capacity: FULL_TEXT, label: `the full-text index (${searchable.map((f) => f.name).join(', ')})`, fields: searchable, span: model.span });
  return uses;
}

/** A text field whose length nothing bounds yet: no maxlen, no enum. */
const isOpen = (field: FieldIR) => field.type === 'string' && !field.base && field.maxlen === undefined && field.enum === undefined;

/** The characters a bounded column can hold, or null when its length is open (text without maxlen) or it is not text. */
function boundedChars(field: FieldIR): number | null {
  if (field.type !== 'string') return null;
  if (field.base === 'id') return ID_CHARS;
  if (field.enum) return Math.max(0, ...field.enum.map((value) => [...value].length));
  return field.maxlen ?? null;
}

type Report = (span: Span, message: string, hint: string) => void;

/**
 * What each defaulted text field of the index may hold: the default, or an
 * equal share of the room the other columns leave. Null (and reported) when
 * the bounded columns alone do not fit.
 */
function defaultShare(model: ModelIR, use: IndexUse, report: Report, defaulted: ReadonlySet<FieldIR>): number | null {
  const { capacity } = use;
  let room = capacity.bytes - capacity.fixed;
  let open = 0;
  let boundedText = 0;
  for (const field of use.fields) {
    const chars = boundedChars(field);
    if (isOpen(field)) {
      open++;
      room -= capacity.perText;
    } else if (chars !== null) {
      boundedText++;
      room -= capacity.perText + chars * capacity.perChar;
    } else {
      room -= capacity.perOther;
    }
  }
  const share = open === 0 ? Number.POSITIVE_INFINITY : Math.floor(room / (open * capacity.perChar));
  if (room >= 0 && share >= 1) return Math.min(capacity.defaultChars, share);
  if (boundedText > 0) reportTooLong(model, use, report, defaulted);
  return null;
}

/** `maxlen`s that together overflow the index; ids and enum values count at their fixed lengths. */
function reportTooLong(model: ModelIR, use: IndexUse, report: Report, defaulted: ReadonlySet<FieldIR>): void {
  const { capacity } = use;
  const text = use.fields.filter((f) => f.type === 'string');
  const fixed = text.filter((f) => f.base === 'id' || f.enum);
  const adjustable = text.filter((f) => !fixed.includes(f));
  const spent = (use.fields.length - text.length) * capacity.perOther + text.length * capacity.perText + fixed.reduce((sum, f) => sum + boundedChars(f)! * capacity.perChar, 0);
  const most = Math.floor((capacity.bytes - capacity.fixed - spent) / capacity.perChar);
  if (use.owner && adjustable.length === 1 && adjustable[0] === use.owner) {
    report(use.span, `${model.name}.${use.owner.name}: maxlen:${use.owner.maxlen} is more than ${use.label} can hold`, `Use maxlen:${most} or less: ${capacity.reason}`);
    return;
  }
  const length = (f: FieldIR) => (f.enum ? `the enum values of ${f.name}` : defaulted.has(f) ? `the ${f.maxlen}-character default of ${f.name}` : `maxlen:${f.maxlen} on ${f.name}`);
  report(
    use.span,
    `${model.name}: ${use.label} cannot hold its text at full length (${text.filter((f) => !isOpen(f) && f.base !== 'id').map(length).join(', ')})`,
    `Lower maxlen on ${adjustable.map((f) => f.name).join(', ')} so that together they hold at most ${most} characters: ${capacity.reason}`,
  );
}

/** Sets a default limit, checking it against the field's own minlen and default; false when they contradict it. */
function setDefaultLimit(model: ModelIR, field: FieldIR, chars: number, use: IndexUse, bag: DiagnosticBag): boolean {
  const subject = `${model.name}.${field.name}`;
  const fix = `Give ${field.name} a maxlen:N of its own (${use.capacity.reason})`;
  if (field.minlen !== undefined && field.minlen > chars) {
    bag.error(field.span, `${subject}: minlen:${field.minlen} is more than the ${chars} characters ${use.label} allows by default`, fix);
    return false;
  }
  if (typeof field.default === 'string' && [...field.default].length > chars) {
    bag.error(field.span, `${subject}: default "${field.default.slice(0, 40)}" is longer than the ${chars} characters ${use.label} allows by default`, fix);
    return false;
  }
  field.maxlen = chars;
  return true;
}
