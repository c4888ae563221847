// Exclusion, naming and type shaping: these run first, so later rows see the final column and type.
import type { DirectiveRow } from '../rule.js';
import { flag, text, ensureLocale } from './shared.js';

export const namingRows: readonly DirectiveRow[] = [
  // ── Exclusion and naming ─────────────────────────────────────────────
  {
    name: '-',
    summary: 'drop the property: no column, no field',
    docs: {
      text: 'The property is left out entirely: no column, no field in any request, response or schema. Use it for properties your TypeScript code needs but the API must not know.',
      example: `export interface Draft extends Model {
  title: string;
  /** @mfx - */
  cachedPreview?: string;
}`,
    },
    excludes: true,
    field: { parse: flag, apply: () => {} },
    relationProperty: { parse: flag, apply: () => {} },
  },
  {
    name: 'db',
    summary: 'column name (default: the JSON name)',
    docs: {
      syntax: ['db:NAME'],
      text: "The column's name in the database. By default the column is named like the property (camelCase stays camelCase, quoted in SQL); the JSON name never changes.",
      example: `export interface Contact extends Model {
  /** @mfx db:full_name */
  fullName: string;
}`,
    },
    field: {
      parse: (use) => text(use, 'NAME'),
      apply: (column: string, { field }) => void (field.column = column),
    },
  },
  {
    name: 'renamed_from',
    summary: "the column's previous name: the migration renames column OLD instead of adding an empty column",
    docs: {
      syntax: ['renamed_from:OLD'],
      text: "Where a table still has column OLD and not this field's column, the migration renames OLD (both databases; indexes, foreign keys and full-text tables follow, and the history entries of a versioned model move to the field's new name). Where both columns exist the migration warns and changes nothing. Type changes are never made by the migration. Remove the directive once every database is migrated.",
      example: `export interface Customer extends Model {
  /** @mfx renamed_from:fullName */
  displayName: string;
}`,
    },
    field: {
      parse: (use) => text(use, 'OLD'),
      apply: (old: string, { field }) => void (field.renamedFrom = old),
      check(old: string, { model, field }, report) {
        if (old === field.column) {
          report(`'renamed_from:${old}' names the field's own column`, `Name the column ${field.name} had before, or remove the directive once every database is migrated`);
          return;
        }
        const holder = model.ir.fields.find((f) => f !== field && (f.column === old || (f.encrypted?.unique && `${f.column}_hmac` === old)));
        if (holder) {
          report(
            `'renamed_from:${old}' names the column of ${holder.base ? `the base column ${holder.name}` : `${model.ir.name}.${holder.name}`}`,
            'A column can be renamed only once no field uses it; name the column this field had before',
          );
          return;
        }
        const twin = model.ir.fields.find((f) => f !== field && f.renamedFrom === old);
        if (twin) report(`'renamed_from:${old}' is also on ${model.ir.name}.${twin.name}`, 'One old column becomes one new column; keep the directive on one of the fields');
      },
    },
  },
  {
    name: 'abstract',
    summary: 'the interface is a base for other models, not a model itself',
    docs: {
      text: 'Marks an interface that extends `Model` as a base that other models extend: it gets no table and no routes, and its properties and directives are inherited by the models that extend it.',
      example: `/** @mfx abstract */
export interface Stamped extends Model {
  /** @mfx filterable */
  source: string;
}

export interface Reading extends Stamped {
  value: number;
}`,
    },
    // Read before any model is built (ir/index.ts): an abstract base is only checked through its sub-models.
    model: { parse: flag, apply: () => {} },
  },
  {
    name: 'table',
    summary: 'table name (default: snake_case plural of the model name)',
    docs: {
      syntax: ['table:NAME'],
      text: "The table's name, which is also the path of the model's routes (`/people`). By default it is the snake_case plural of the model's name (`BlogPost` → `blog_posts`).",
      example: `/** @mfx table:people */
export interface Person extends Model {
  name: string;
}`,
    },
    model: { parse: (use) => text(use, 'NAME'), apply: (table: string, model) => void (model.ir.table = table) },
  },

  // ── Type shaping ─────────────────────────────────────────────────────
  {
    name: 'int',
    summary: 'store a number as a 32-bit integer (like the Int type)',
    docs: {
      text: 'Stores a `number` as a 32-bit integer column, exactly like declaring the property with the `Int` type; the validator refuses fractions and values outside the 32-bit range with 422.',
      example: `export interface StockItem extends Model {
  /** @mfx int, min:0 */
  quantity: number;
}`,
    },
    field: {
      parse: flag,
      types: ['number', 'integer'],
      apply: (_, { field }) => void (field.type = 'integer'),
    },
  },
  {
    name: 'json_array',
    summary: 'the column holds a JSON array',
    docs: {
      text: 'Stores the property as a JSON array column. Array types (`string[]`, `number[]`, ...) are JSON arrays already; use it on an `unknown` property to say that it holds an array.',
      example: `export interface WebhookLog extends Model {
  /** @mfx json_array */
  deliveries: unknown;
}`,
    },
    field: {
      parse: flag,
      fits: ({ field, shape }) => field.type === 'json_array' || shape.opaque === true,
      typeHints: { json_object: 'Declare the property as an array type (or unknown) to store a JSON array' },
      apply: (_, { field }) => void (field.type = 'json_array'),
    },
  },
  {
    name: 'json_object',
    summary: 'the column holds a JSON object',
    docs: {
      text: 'Affirms that the property is a JSON object column, as `Record<string, ...>`, object literal types and `unknown` are anyway. It documents intent and is refused on array types.',
      example: `export interface Workspace extends Model {
  /** @mfx json_object */
  preferences: Record<string, string>;
}`,
    },
    field: {
      parse: flag,
      fits: ({ field }) => field.type === 'json_object',
      typeHints: { json_array: 'Arrays are stored as JSON arrays; use json_array or declare an object type' },
      apply: () => {},
    },
  },
  {
    name: 'locale',
    summary: 'a localized string field (a map of locale code to text)',
    docs: {
      text: 'Makes a `Record<string, string>` property a localized field (a map of locale code to text), like declaring it with the `Localized` type.',
      example: `export interface Country extends Model {
  /** @mfx locale */
  name: Record<string, string>;
}`,
    },
    field: {
      parse: flag,
      fits: ({ field, shape }) => field.type === 'localized' || (field.type === 'json_object' && shape.stringMap === true),
      typeHints: { string: "Declare the property as Localized (from '@mfx/runtime') to store one text per locale" },
      apply: (_, { field }) => {
        field.type = 'localized';
        ensureLocale(field);
      },
    },
  },
];
