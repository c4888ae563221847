/**
 * The IR phase: model facts in, checked model IR out.
 */
import { buildModel } from './build-model.js';
import { parseDirectives } from './directives/syntax.js';
import type { DiagnosticBag } from './diagnostics.js';
import type { ModelFacts } from './facts.js';
import type { ModelIR } from './model.js';
import { applyIndexLimits } from './index-limits.js';
import { resolveRelations } from './relations.js';
import { checkTables } from './tables.js';

export type { Diagnostic, Severity, Span } from './diagnostics.js';
export { DiagnosticBag, diagnosticText } from './diagnostics.js';
export type { FieldIR, ModelIR, RelationIR, RelationPropertyIR } from './model.js';

/**
 * Build and check every model, check that no two share a table, then
 * resolve relations across them and bound the text that indexes hold.
 * Abstract models are dropped; the result is sorted by name.
 *
 * @example
 * const models = buildModels(analysis.models, analysis.nonModels, bag);
 */
export function buildModels(facts: ModelFacts[], nonModels: ReadonlyMap<string, string>, bag: DiagnosticBag): ModelIR[] {
  const reasons = new Map(nonModels);
  const models: ModelIR[] = [];
  for (const fact of facts) {
    // An abstract base is checked through the models that extend it, not on its own (no duplicate reports).
    if (isAbstract(fact)) reasons.set(fact.name, 'it is abstract');
    else models.push(buildModel(fact, bag));
  }
  models.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  checkTables(models, bag);
  resolveRelations(models, reasons, bag);
  applyIndexLimits(models, bag);
  return models;
}

function isAbstract(fact: ModelFacts): boolean {
  return fact.directives.some((text) => parseDirectives(text).uses.some((use) => use.name === 'abstract'));
}
