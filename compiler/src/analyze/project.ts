/**
 * Opens the TypeScript project the models live in: the entry files plus
 * everything they import, with compiler options from a tsconfig (whose own
 * file list is ignored) or from the program a tsc plugin was handed.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ProjectOptions, SourceFile, ts } from 'ts-morph';
import { Project, typescript } from './morph.js';
import type { DiagnosticBag } from '../ir/diagnostics.js';
import { surfaceResolution } from './resolution.js';
import { spanAt } from './span.js';

export interface ProjectInput {
  /** Entry files. */
  entries: string[];
  /** A tsconfig.json that supplies compiler options; found next to the first entry (or above) when omitted. */
  tsconfig?: string;
  /** Compiler options to use as they are, instead of a tsconfig (the tsc plugin passes its program's). */
  compilerOptions?: ts.CompilerOptions;
}

/**
 * `surface`: packages are read only as far as their public types and no
 * ambient `@types` are loaded (fast); `full`: exactly what tsc would load.
 */
export type ResolutionScope = 'surface' | 'full';

export interface OpenProject {
  project: Project;
  /** The entry files and the user files they import (no declaration files, nothing from packages). */
  scope: SourceFile[];
  /** The tsconfig.json the compiler options came from, if any. */
  tsconfig?: string;
}

/** Used when no tsconfig is found: what a current Node + TypeScript project would set. */
const DEFAULT_OPTIONS: ts.CompilerOptions = {
  target: typescript.ScriptTarget.ES2022,
  module: typescript.ModuleKind.NodeNext,
  moduleResolution: typescript.ModuleResolutionKind.NodeNext,
  strict: true,
  skipLibCheck: true,
};

/**
 * Always set: the analysis needs `null` to stay in types, and it never
 * emits or writes build info.
 */
const FORCED_OPTIONS: ts.CompilerOptions = {
  strictNullChecks: true,
  noEmit: true,
  incremental: false,
  composite: false,
  declaration: false,
};

/**
 * Open a project for the entries; problems (a missing entry, an unreadable
 * tsconfig, syntax errors) go into `bag`. Returns undefined when nothing
 * can be analysed.
 *
 * @example
 * const opened = openProject({ entries: ['/app/models.ts'] }, bag);
 * opened?.scope.map((f) => f.getBaseName()); // ['models.ts', 'base.ts']
 */
export function openProject(input: ProjectInput, bag: DiagnosticBag, scope: ResolutionScope = 'full'): OpenProject | undefined {
  const entries = input.entries.map((entry) => resolve(entry));
  const missing = entries.filter((entry) => !existsSync(entry));
  for (const entry of missing) bag.error(undefined, `cannot read entry file ${entry}`, 'Check the path');
  if (missing.length > 0 || entries.length === 0) {
    if (entries.length === 0) bag.error(undefined, 'no entry files given', 'Name the TypeScript files that declare your models');
    return undefined;
  }

  let project: Project;
  let tsconfig: string | undefined;
  try {
    ({ project, tsconfig } = createProject(input, entries, scope));
  } catch (error) {
    bag.error(undefined, `cannot read the TypeScript configuration: ${(error as Error).message}`);
    return undefined;
  }
  for (const entry of entries) project.addSourceFileAtPath(entry);
  project.resolveSourceFileDependencies();

  const program = project.getProgram().compilerObject;
  const files = project
    .getSourceFiles()
    .filter((file) => !file.isDeclarationFile() && !file.isFromExternalLibrary() && !file.isInNodeModules());
  for (const file of files) {
    for (const diagnostic of program.getSyntacticDiagnostics(file.compilerNode)) {
      const span = spanAt(file, diagnostic.start ?? 0, diagnostic.length ?? 0);
      bag.error(span, typescript.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    }
  }
  return { project, scope: files, tsconfig };
}

function createProject(input: ProjectInput, entries: string[], scope: ResolutionScope): { project: Project; tsconfig?: string } {
  const forced: ts.CompilerOptions = scope === 'surface' ? { ...FORCED_OPTIONS, types: [] } : FORCED_OPTIONS;
  const shared: ProjectOptions = scope === 'surface' ? { resolutionHost: surfaceResolution } : {};
  if (input.compilerOptions) {
    return { project: new Project({ ...shared, compilerOptions: { ...input.compilerOptions, ...forced } }) };
  }
  const tsconfig = input.tsconfig ? resolve(input.tsconfig) : typescript.findConfigFile(dirname(entries[0]), typescript.sys.fileExists);
  if (input.tsconfig && !existsSync(tsconfig!)) throw new Error(`${tsconfig} does not exist`);
  if (!tsconfig) return { project: new Project({ ...shared, compilerOptions: { ...DEFAULT_OPTIONS, ...forced } }) };
  return { project: new Project({ ...shared, tsConfigFilePath: tsconfig, skipAddingFilesFromTsConfig: true, compilerOptions: forced }), tsconfig };
}
