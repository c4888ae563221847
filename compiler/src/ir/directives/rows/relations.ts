// Relations: explicit foreign keys and many-to-many junctions.
import type { OnDelete } from '@mfx/runtime/manifest';
import { didYouMean } from '../../suggest.js';
import type { DirectiveRow } from '../rule.js';
import { DirectiveProblem, parseChoice } from '../values.js';
import { ON_DELETE, text } from './shared.js';

export const relationsRows: readonly DirectiveRow[] = [
  // ── Relations ────────────────────────────────────────────────────────
  {
    name: 'relation',
    summary: 'explicit foreign key relation:Name[;onDelete:cascade|setNull|restrict]; on an array, picks the inverse',
    docs: {
      syntax: ['relation:KEY', 'relation:KEY;onDelete:cascade|setNull|restrict'],
      text: "On a foreign-key property (`string`, the parent's id): an explicit BelongsTo whose relation key is `KEY`; the companion property `KEY?: Parent` is how the model names the parent, and `include=KEY` loads it. `onDelete` says what deleting the parent does to this row: `cascade` deletes it too, `setNull` clears the key (the property must be nullable), `restrict` refuses the delete with 409 `DELETE_RESTRICTED`; without it, a hard delete of a parent that still has children is refused the same way. On an array property (a HasMany): `relation:KEY` picks which BelongsTo of the child it is the inverse of, when the child points at the parent more than once. A property named `<model>Id` needs no directive: it is a BelongsTo by convention.",
      example: `export interface Author extends Model {
  name: string;
  /** @mfx relation:writer */
  books?: Book[];
}

export interface Book extends Model {
  title: string;
  /** @mfx relation:writer;onDelete:cascade */
  writerId: string;
  writer?: Author;
  /** @mfx relation:editor;onDelete:setNull */
  editorId: string | null;
  editor?: Author;
}`,
    },
    field: {
      parse: (use): { name: string; onDelete: OnDelete } => {
        const name = text(use, 'Name');
        let onDelete: OnDelete = 'noAction';
        for (const option of use.options) {
          if (option.key !== 'onDelete') {
            throw new DirectiveProblem(`'${option.key}' is not a relation option`, didYouMean(option.key, ['onDelete']) ?? "The only option is 'onDelete'");
          }
          onDelete = parseChoice(option.value ?? '', ON_DELETE);
        }
        return { name, onDelete };
      },
      // A wrong onDelete still names the companion: bind it, so it is not reported as an orphan too.
      recover: (use, { field }) => {
        if (use.value) field.explicitRelation = { name: use.value, onDelete: 'noAction' };
      },
      options: true,
      types: ['string'],
      typeHints: Object.fromEntries(
        (['number', 'integer', 'bigint'] as const).map((t) => [t, 'A foreign key holds the parent id, which is a string']),
      ),
      apply: (relation: { name: string; onDelete: OnDelete }, { field }) => void (field.explicitRelation = relation),
    },
    relationProperty: {
      parse: (use) => text(use, 'KEY'),
      manyOnly: true,
      apply: (key: string, property) => void (property.pick = key),
    },
  },
  {
    name: 'through',
    summary: 'many-to-many through a junction model, on array properties',
    docs: {
      syntax: ['through:JunctionModel'],
      text: 'A many-to-many relation through a junction model that has a BelongsTo to each side. `include=students` loads the related records through it, and `filter=students.name:eq:Ada` filters on them.',
      example: `export interface Course extends Model {
  title: string;
  /** @mfx through:Enrollment */
  students?: Student[];
}

export interface Student extends Model {
  name: string;
}

export interface Enrollment extends Model {
  courseId: string;
  studentId: string;
}`,
    },
    relationProperty: {
      parse: (use) => text(use, 'Junction'),
      manyOnly: true,
      apply: (junction: string, property) => void (property.through = junction),
    },
  },
];
