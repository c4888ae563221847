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
    relationProperty: {
      parse: (use) => text(use, 'Junction'),
      manyOnly: true,
      apply: (junction: string, property) => void (property.through = junction),
    },
  },
];
