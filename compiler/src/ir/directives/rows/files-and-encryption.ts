// File fields and encryption.
import type { DirectiveRow } from '../rule.js';
import { DirectiveProblem, parseChoice, parseList, parseSize } from '../values.js';
import { ENCRYPTED_INDEX_HINT, flag, hintOtherTypes, text } from './shared.js';

export const filesAndEncryptionRows: readonly DirectiveRow[] = [
  // ── Files ────────────────────────────────────────────────────────────
  {
    name: 'file',
    summary: 'multipart file field; the column stores the storage key',
    docs: {
      text: 'The field is a file: the column holds the storage key (a string) and creates and updates may send the file as a `multipart/form-data` part named after the field (streamed to the server\'s file storage), or, in JSON, the key `POST /files` returned. See [Files](files.md).',
      limits: 'Needs file storage (`createServer({ files: { storage } })` or `mfx serve --files DIR`): without it a multipart body is answered 501 `NO_STORAGE` and a JSON body\'s key is stored unchecked.',
      example: `export interface Attachment extends Model {
  /** @mfx file */
  document: string | null;
}`,
    },
    field: {
      parse: flag,
      types: ['string'],
      typeHints: hintOtherTypes(['string'], 'A file field stores the storage key, so declare it as string (or string | null)'),
      apply: (_, { field }) => void (field.file = { autoDelete: true }),
    },
  },
  {
    name: 'max_size',
    summary: 'file size cap: bytes or a KB/MB/GB suffix',
    docs: {
      syntax: ['max_size:5MB'],
      text: 'The largest file the field accepts: bytes, or a number with a `KB`, `MB` or `GB` suffix (413 `FILE_TOO_LARGE` over it, counted as the file streams). Needs `file`.',
      example: `export interface Photo extends Model {
  /** @mfx file, max_size:2MB */
  image: string | null;
}`,
    },
    field: {
      parse: (use) => parseSize(text(use, '5MB')),
      requires: 'file',
      apply: (bytes: number, { field }) => void (field.file!.maxSize = bytes),
    },
  },
  {
    name: 'accept',
    summary: 'allowed MIME patterns, e.g. image/*|application/pdf',
    docs: {
      syntax: ['accept:image/*|application/pdf'],
      text: 'The MIME types the field accepts, `type/subtype` or `type/*`, separated by `|`: the declared type and, where its leading bytes show one, the content\'s own type must both match (415 `FILE_TYPE_NOT_ALLOWED`). Needs `file`.',
      example: `export interface Scan extends Model {
  /** @mfx file, accept:image/png|image/jpeg|application/pdf */
  page: string | null;
}`,
    },
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
    docs: {
      syntax: ['auto_delete:false'],
      text: '`auto_delete:false` keeps the stored file when its row is deleted or the field gets another file (by default the old file is removed once the write commits; a soft delete never removes files). Needs `file`.',
      example: `export interface Contract extends Model {
  /** @mfx file, auto_delete:false */
  signedCopy: string | null;
}`,
    },
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
    docs: {
      text: 'Marks a string field to be stored encrypted (AES-256-GCM, a fresh nonce per value, stored as `enc:` + base64); with `unique`, a `<column>_hmac` blind-index column (an HMAC of the value with the index key) carries the UNIQUE constraint, so a duplicate is still a 409 naming the field. The keys come from the server\'s `keyProvider`; the field is never filterable, sortable, searchable or indexed, and never in history, audit diffs or logs. See [Encryption](encryption.md).',
      example: `export interface Patient extends Model {
  name: string;
  /** @mfx encrypted */
  notes: string;
}`,
    },
    field: {
      parse: flag,
      types: ['string'],
      typeHints: hintOtherTypes(['string'], 'Encrypted values are stored as text; declare the field as string'),
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
    docs: {
      syntax: ['key:NAME'],
      text: 'The id of the key (from the key provider) that encrypts new values of the field; `default` when left out. Needs `encrypted`. Values under other key ids (before or during a rotation) stay readable while the provider holds their keys.',
      example: `export interface PaymentCard extends Model {
  /** @mfx encrypted, key:payments */
  cardNumber: string;
}`,
    },
    field: {
      parse: (use) => text(use, 'NAME'),
      requires: 'encrypted',
      apply: (keyId: string, { field }) => void (field.encrypted!.keyId = keyId),
    },
  },
];
