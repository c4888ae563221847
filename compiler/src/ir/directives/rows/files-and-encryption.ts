// File fields and encryption.
import type { DirectiveRow } from '../rule.js';
import { DirectiveProblem, parseChoice, parseList, parseSize } from '../values.js';
import { ENCRYPTED_INDEX_HINT, flag, text } from './shared.js';

export const filesAndEncryptionRows: readonly DirectiveRow[] = [
  // ── Files ────────────────────────────────────────────────────────────
  {
    name: 'file',
    summary: 'multipart file field; the column stores the storage key',
    field: {
      parse: flag,
      types: ['string'],
      typeHints: Object.fromEntries(
        (['number', 'integer', 'bigint', 'boolean', 'timestamp', 'json_array', 'json_object', 'localized'] as const).map((t) => [
          t,
          'A file field stores the storage key, so declare it as string (or string | null)',
        ]),
      ),
      apply: (_, { field }) => void (field.file = { autoDelete: true }),
    },
  },
  {
    name: 'max_size',
    summary: 'file size cap: bytes or a KB/MB/GB suffix',
    field: {
      parse: (use) => parseSize(text(use, '5MB')),
      requires: 'file',
      apply: (bytes: number, { field }) => void (field.file!.maxSize = bytes),
    },
  },
  {
    name: 'accept',
    summary: 'allowed MIME patterns, e.g. image/*|application/pdf',
    field: {
      parse: (use) => {
        const patterns = parseList(text(use, 'image/*|application/pdf'));
        const bad = patterns.find((p) => !/^[\w.+-]+\/([\w.+-]+|\*)$/.test(p));
        if (bad) throw new DirectiveProblem(`'${bad}' is not a MIME type pattern`, 'Write type/subtype, e.g. image/png or image/*');
        return patterns;
      },
      requires: 'file',
      apply: (patterns: string[], { field }) => void (field.file!.accept = patterns),
    },
  },
  {
    name: 'auto_delete',
    summary: 'auto_delete:false keeps the stored file when the row is deleted or the field replaced',
    field: {
      parse: (use) => parseChoice(text(use, 'false'), ['true', 'false'] as const) === 'true',
      requires: 'file',
      apply: (keep: boolean, { field }) => void (field.file!.autoDelete = keep),
    },
  },

  // ── Encryption ───────────────────────────────────────────────────────
  {
    name: 'encrypted',
    summary: 'AES-256-GCM at rest; with unique, a <column>_hmac blind index',
    field: {
      parse: flag,
      types: ['string'],
      typeHints: Object.fromEntries(
        (['number', 'integer', 'bigint', 'boolean', 'timestamp', 'json_array', 'json_object', 'localized'] as const).map((t) => [
          t,
          'Encrypted values are stored as text; declare the field as string',
        ]),
      ),
      conflicts: {
        filterable: 'Encrypted values cannot be filtered; drop filterable (encrypted,unique still allows exact lookups)',
        sortable: 'Encrypted values cannot be sorted; drop sortable',
        searchable: 'Encrypted values cannot be searched; drop searchable',
        default: 'A column default would be stored unencrypted; drop default',
        index: ENCRYPTED_INDEX_HINT,
      },
      // The UNIQUE constraint moves to the HMAC companion column: ciphertexts of equal values differ.
      apply: (_, { field }) => {
        field.encrypted = { keyId: 'default', unique: field.unique };
        field.unique = false;
      },
    },
  },
  {
    name: 'key',
    summary: 'key id for the key provider (default: default)',
    field: {
      parse: (use) => text(use, 'NAME'),
      requires: 'encrypted',
      apply: (keyId: string, { field }) => void (field.encrypted!.keyId = keyId),
    },
  },
];
