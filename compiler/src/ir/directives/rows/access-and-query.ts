// Access, query and storage flags.
import type { DirectiveRow } from '../rule.js';
import { parseNamedList } from '../values.js';
import { addIndex, flag, INDEXABLE, type NamedList, ORDERED, text, UNINDEXABLE_HINTS } from './shared.js';

export const accessAndQueryRows: readonly DirectiveRow[] = [
  // ── Access ───────────────────────────────────────────────────────────
  {
    name: 'readonly',
    summary: 'stripped from all writes',
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
    field: { parse: flag, apply: (_, { field }) => void (field.immutable = true) },
  },
  {
    name: 'writeonly',
    summary: 'accepted on write, never in responses',
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
    field: { parse: flag, apply: (_, { field }) => void (field.hidden = true) },
  },

  // ── Query ────────────────────────────────────────────────────────────
  {
    name: 'filterable',
    summary: 'usable in filter',
    field: { parse: flag, apply: (_, { field }) => void (field.filterable = true) },
  },
  {
    name: 'sortable',
    summary: 'usable in sort',
    field: {
      parse: flag,
      types: ORDERED,
      apply: (_, { field }) => void (field.sortable = true),
    },
  },
  {
    name: 'searchable',
    summary: 'full-text search hint; text columns only',
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
    field: { parse: flag, types: INDEXABLE, typeHints: UNINDEXABLE_HINTS, apply: (_, { field }) => void (field.unique = true) },
  },
  {
    name: 'index',
    summary: 'on a property: an index on its column; on a model: index:NAME=col|col',
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
    model: {
      parse: (use) => parseNamedList(text(use, 'NAME=col|col')),
      repeatable: true,
      apply: () => {},
      check: (index: NamedList, model, report) => addIndex(model, index, true, report),
    },
  },
];
