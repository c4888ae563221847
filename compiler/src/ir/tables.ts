/**
 * One table, one model: two models on one table (by name or `table:`) would
 * read and write each other's rows, and a model on the history table of a
 * versioned model would mix records with history entries. Each clash is an
 * error at both declarations, so the build names both places.
 */
import { historyTableName } from '@mfx/runtime/sql';
import type { DiagnosticBag } from './diagnostics.js';
import type { ModelIR } from './model.js';

type Owner = { model: ModelIR; history: boolean };

const what = ({ model, history }: Owner) => (history ? `the history table of versioned model ${model.name}` : `the table of model ${model.name}`);
const own = ({ model, history }: Owner) => (history ? `${model.name}: its history table` : `${model.name}: table`);

/**
 * Reports every table that two models would share: model tables, then the
 * history tables of versioned models.
 *
 * @example
 * checkTables(models, bag); // Post and Article both on `posts`: an error at each interface
 */
export function checkTables(models: readonly ModelIR[], bag: DiagnosticBag): void {
  const owners = new Map<string, Owner>();
  const claim = (table: string, owner: Owner) => {
    const first = owners.get(table);
    if (!first) {
      owners.set(table, owner);
      return;
    }
    const hint = first.history || owner.history ? 'Give the model another table with table:NAME, or rename one of the models' : 'Give one of them another table with table:NAME';
    bag.error(first.model.span, `${own(first)} '${table}' is also ${what(owner)}`, hint);
    bag.error(owner.model.span, `${own(owner)} '${table}' is also ${what(first)}`, hint);
  };
  for (const model of models) claim(model.table, { model, history: false });
  for (const model of models) if (model.options.versioned) claim(historyTableName(model), { model, history: true });
}
