/**
 * The analyze phase: TypeScript sources in, model facts out.
 */
import { DiagnosticBag } from '../ir/diagnostics.js';
import type { ModelFacts } from '../ir/facts.js';
import { ModelFinder } from './models.js';
import { openProject, type ProjectInput, type ResolutionScope } from './project.js';
import { RuntimeTypes } from './runtime.js';

export type { ProjectInput } from './project.js';

export interface Analysis {
  models: ModelFacts[];
  /** Interfaces that extend Model without being models, and why. */
  nonModels: Map<string, string>;
  /** The files read: the entries, the user files they import, the tsconfig.json (what a watcher watches). */
  inputs: string[];
}

/**
 * Read the models reachable from the entries.
 *
 * @example
 * const analysis = analyze({ entries: ['fixtures/blog/models.ts'] }, bag);
 * analysis?.models.length; // 6
 */
export function analyze(input: ProjectInput, bag: DiagnosticBag): Analysis | undefined {
  // The surface pass reads packages only as far as their public types; if
  // that left any type unresolved, start over with what tsc would read.
  const surface = new DiagnosticBag();
  let found = findModels(input, surface, 'surface');
  if (found && !found.unresolved) {
    bag.items.push(...surface.items);
  } else if (found) {
    found = findModels(input, bag, 'full');
  } else {
    bag.items.push(...surface.items);
  }
  if (!found) return undefined;
  if (found.models.length === 0 && !bag.hasErrors()) {
    bag.warning(
      undefined,
      'no models found in the entry files or the files they import',
      "Export interfaces that extend Model from '@mfx/runtime'",
    );
  }
  return { models: found.models, nonModels: found.nonModels, inputs: found.inputs };
}

function findModels(input: ProjectInput, bag: DiagnosticBag, scope: ResolutionScope) {
  const opened = openProject(input, bag, scope);
  if (!opened) return undefined;
  const finder = new ModelFinder(new RuntimeTypes(), opened.project.getProgram(), bag);
  const found = finder.find(opened.scope);
  const inputs = [...opened.scope.map((file) => file.getFilePath()), ...(opened.tsconfig ? [opened.tsconfig] : [])];
  return { ...found, inputs, unresolved: finder.sawUnresolved() };
}
