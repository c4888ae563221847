/**
 * The directive catalogue: one row per `@mfx` directive.
 *
 * A row says where the directive may appear (property, relation property,
 * interface), how its value is parsed, which field types it fits, what it
 * conflicts with, what it writes into the IR, which checks it needs once the
 * model is complete, and its JSON-Schema fragment. Adding a directive means
 * adding a row here; nothing else dispatches on directive names.
 *
 * Rows run in catalogue order: `db` and the type-shaping rows (`int`,
 * `json_array`, `json_object`, `locale`) come first, so later rows check the
 * final type, and `default` comes after every row it is checked against.
 */
import type { DirectiveRow } from './rule.js';
import { namingRows } from './rows/naming.js';
import { validationRows } from './rows/validation.js';
import { accessAndQueryRows } from './rows/access-and-query.js';
import { relationsRows } from './rows/relations.js';
import { filesAndEncryptionRows } from './rows/files-and-encryption.js';
import { lifecycleRows } from './rows/lifecycle.js';
import { modelOptionsRows } from './rows/model-options.js';

/** Every directive, in the order rows are applied to a property; one module per theme. */
export const CATALOGUE: readonly DirectiveRow[] = [
  ...namingRows,
  ...validationRows,
  ...accessAndQueryRows,
  ...relationsRows,
  ...filesAndEncryptionRows,
  ...lifecycleRows,
  ...modelOptionsRows,
];

/** Catalogue rows by directive name. */
export const DIRECTIVES: ReadonlyMap<string, DirectiveRow> = new Map(CATALOGUE.map((row) => [row.name, row]));
