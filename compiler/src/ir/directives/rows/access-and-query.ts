// Access, query and storage flags.
import type { DirectiveRow } from '../rule.js';
import { parseNamedList } from '../values.js';
import { addIndex, flag, INDEXABLE, type NamedList, ORDERED, text, UNINDEXABLE_HINTS } from './shared.js';

export const accessAndQueryRows: readonly DirectiveRow[] = [
  // ── Access ───────────────────────────────────────────────────────────
  {
    name: 'readonly',
    summary: 'stripped from all writes',
    docs: {
      text: 'Stripped from every write: clients can read the field but never set it. The server sets it (a Service hook, a default, an action).',
      example: `export interface Invoice extends Model {
  /** @mfx readonly, default:0 */
  total: number;
}`,
    },
    field: {
      parse: flag,
      conflicts: {
        writeonly: 'A readonly field is never written and a writeonly field is never read; drop one of them',
        immutable: 'readonly already strips the field from every write; drop immutable',
      },
      apply: (_, { field }) => void (field.readonly = true),
    },
  },
  {
    name: 'immutable',
    summary: 'accepted on create, stripped on update',
    docs: {
      text: 'Accepted on create, stripped from updates: the value a record was created with stays.',
      example: `export interface Shipment extends Model {
  /** @mfx required, immutable */
  trackingCode: string;
}`,
    },
    field: { parse: flag, apply: (_, { field }) => void (field.immutable = true) },
  },
  {
    name: 'writeonly',
    summary: 'accepted on write, never in responses',
    docs: {
      text: 'Accepted on create and update, never in a response, a filter, a sort, history or the audit log. The usual home of passwords (hash them with the `hashPassword()` hook).',
      example: `export interface Account extends Model {
  /** @mfx unique */
  email: string;
  /** @mfx writeonly, minlen:8 */
  password: string;
}`,
    },
    field: {
      parse: flag,
      conflicts: {
        hidden: 'A hidden field is not accepted on writes either; use writeonly alone for write-only input',
        filterable: 'A writeonly value never leaves the server, and a filter would let clients probe it; drop filterable',
        sortable: 'A writeonly value never leaves the server, and sorting by it would let clients probe it; drop sortable',
        searchable: 'A writeonly value never leaves the server, and a search would let clients probe it; drop searchable',
      },
      apply: (_, { field }) => void (field.writeonly = true),
    },
  },
  {
    name: 'hidden',
    summary: 'never in responses and absent from the create and update schemas',
    docs: {
      text: 'Never in a response and absent from the create and update schemas: a column only the server reads and writes (through hooks or SQL).',
      example: `export interface Session extends Model {
  /** @mfx hidden */
  riskScore: number;
}`,
    },
    field: { parse: flag, apply: (_, { field }) => void (field.hidden = true) },
  },

  // ── Query ────────────────────────────────────────────────────────────
  {
    name: 'filterable',
    summary: 'usable in filter',
    docs: {
      text: 'The field may be used in `filter=` on the list route (`?filter=state:eq:open`). Fields are not filterable unless they say so; the base columns opt in with `base:`. See [the query language](query-language.md).',
      example: `export interface Job extends Model {
  /** @mfx filterable */
  state: string;
}`,
    },
    field: { parse: flag, apply: (_, { field }) => void (field.filterable = true) },
  },
  {
    name: 'sortable',
    summary: 'usable in sort',
    docs: {
      text: 'The field may be used in `sort=` on the list route (`?sort=points:desc`).',
      example: `export interface Score extends Model {
  /** @mfx sortable, filterable */
  points: Int;
}`,
    },
    field: {
      parse: flag,
      types: ORDERED,
      apply: (_, { field }) => void (field.sortable = true),
    },
  },
  {
    name: 'searchable',
    summary: 'full-text search hint; text columns only',
    docs: {
      text: "The field is part of the model's full-text search, the list route's `q=` parameter: an FTS5 index on SQLite, a GIN index over `to_tsvector('simple', ...)` on PostgreSQL, kept in step by the database.",
      example: `export interface Article extends Model {
  /** @mfx searchable */
  title: string;
  /** @mfx searchable */
  body: string;
}`,
    },
    field: {
      parse: flag,
      types: ['string'],
      typeHints: {
        localized: 'Full-text search covers plain text columns only and a localized field is a JSON map; drop searchable',
      },
      apply: (_, { field }) => void (field.searchable = true),
    },
  },

  // ── Storage ──────────────────────────────────────────────────────────
  {
    name: 'unique',
    summary: 'UNIQUE constraint on the column',
    docs: {
      text: "A UNIQUE constraint on the column: a create or update that repeats a value answers 409 `CONFLICT`. On soft-delete models only live rows count, so a deleted record's value can be used again.",
      example: `export interface Member extends Model {
  /** @mfx required, unique */
  email: string;
}`,
    },
    field: { parse: flag, types: INDEXABLE, typeHints: UNINDEXABLE_HINTS, apply: (_, { field }) => void (field.unique = true) },
  },
  {
    name: 'index',
    summary: 'on a property: an index on its column; on a model: index:NAME=col|col',
    docs: {
      syntax: ['index', 'index:NAME=col|col'],
      text: "On a property: an index on its column. In the interface's `@mfx`: a named index over several columns, in order (JSON names or column names); repeat it for more indexes.",
      example: `/** @mfx index:by_room_day=room|day */
export interface Meeting extends Model {
  /** @mfx index */
  organizer: string;
  room: string;
  day: Date;
}`,
    },
    field: { parse: flag, types: INDEXABLE, typeHints: UNINDEXABLE_HINTS, apply: (_, { field }) => void (field.index = true) },
    model: {
      parse: (use) => parseNamedList(text(use, 'NAME=col|col')),
      repeatable: true,
      apply: () => {},
      check: (index: NamedList, model, report) => addIndex(model, index, false, report),
    },
  },
  {
    name: 'unique_index',
    summary: 'a UNIQUE index over several columns: unique_index:NAME=col|col',
    docs: {
      syntax: ['unique_index:NAME=col|col'],
      text: 'A UNIQUE index over several columns (409 `CONFLICT` on a repeat). On soft-delete models it binds live rows only.',
      example: `/** @mfx unique_index:one_per_seat=flight|seat */
export interface Booking extends Model {
  flight: string;
  seat: string;
}`,
    },
    model: {
      parse: (use) => parseNamedList(text(use, 'NAME=col|col')),
      repeatable: true,
      apply: () => {},
      check: (index: NamedList, model, report) => addIndex(model, index, true, report),
    },
  },
];
