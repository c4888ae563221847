// Runs mfx from its TypeScript sources, in this process: tsx compiles the
// files, and the `mfx-source` export condition makes `@mfx/runtime` and
// `@mfx/compiler` resolve to `src/` instead of the built `dist/` (see the
// `exports` of their package.json). The repository's own entry points use it
// (bin/mfx.mjs, bench/run.mjs); child processes get the same with
// `node --conditions=mfx-source --import tsx`.
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

export const SOURCE_CONDITION = 'mfx-source';

/** The node flags that run a file from the sources, for spawning a child. */
export const SOURCE_FLAGS = [`--conditions=${SOURCE_CONDITION}`, '--import', 'tsx'];

const hooks = `export async function resolve(specifier, context, next) {
  const conditions = context.conditions.includes(${JSON.stringify(SOURCE_CONDITION)}) ? context.conditions : [...context.conditions, ${JSON.stringify(SOURCE_CONDITION)}];
  return next(specifier, { ...context, conditions });
}`;

/** Register tsx and the source condition for every later import of this process. */
export function useSources() {
  registerTsx();
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}
