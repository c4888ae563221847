/**
 * The analyze phase: TypeScript sources in, model facts out.
 */
import type { DiagnosticBag } from '../ir/diagnostics.js';
import type { ModelFacts } from '../ir/facts.js';
import { ModelFinder } from './models.js';
import { openProject, type ProjectInput } from './project.js';
import { RuntimeTypes } from './runtime.js';

export type { ProjectInput } from './project.js';

export interface Analysis {
  models: ModelFacts[];
  /** Interfaces that extend Model without being models, and why. */
  nonModels: Map<string, string>;
}

/**
 * Read the models reachable from the entries.
 *
 * @example
 * const analysis = analyze({ entries: ['fixtures/blog/models.ts'] }, bag);
 * analysis?.models.length; // 6
 */
export function analyze(input: ProjectInput, bag: DiagnosticBag): Analysis | undefined {
  const opened = openProject(input, bag);
  if (!opened) return undefined;
  const finder = new ModelFinder(new RuntimeTypes(), opened.project.getProgram(), bag);
  const found = finder.find(opened.scope);
  if (found.models.length === 0 && !bag.hasErrors()) {
    bag.warning(
      undefined,
      'no models found in the entry files or the files they import',
      "Export interfaces that extend Model from '@mfx/runtime'",
    );
  }
  return found;
}
