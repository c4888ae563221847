/**
 * @mfx/compiler: TypeScript interfaces with `@mfx` tags become a manifest
 * (registry metadata, ajv validators, SQL templates) that @mfx/runtime serves.
 *
 * Three phases, one folder each: `analyze/` reads TypeScript (ts-morph),
 * `ir/` builds and checks the models, `emit/` writes the files.
 */
import { resolve } from 'node:path';
import type { Manifest } from '@mfx/runtime/manifest';
import type { ts } from 'ts-morph';
import { analyze } from './analyze/index.js';
import { emit, type ValidatorsModule, writeFiles } from './emit/index.js';
import { buildModels, type Diagnostic, DiagnosticBag, type ModelIR } from './ir/index.js';
import { compilerInfo } from './version.js';

export type { Diagnostic, FieldIR, ModelIR, RelationIR, Severity, Span } from './ir/index.js';
export { diagnosticText } from './ir/index.js';
export { formatDiagnostic } from './format.js';
export { sourceHashOf } from './emit/manifest.js';

export interface BuildOptions {
  /** Files that declare the models (relative to `cwd`); the files they import are read too. */
  entries: string[];
  /** tsconfig.json for compiler options; default: the nearest one above the first entry. */
  project?: string;
  /** Output directory, relative to `cwd`; default `.mfx`. */
  outDir?: string;
  /** Default: process.cwd(). */
  cwd?: string;
  /** Write the files (default true); false only computes them. */
  write?: boolean;
  /** Compiler options to use instead of a tsconfig (the tsc plugin passes its program's). */
  compilerOptions?: ts.CompilerOptions;
  /** Warnings are errors: a misspelt directive (or any other warning) fails the build and nothing is written (`mfx build --strict`). */
  strict?: boolean;
  /** Module format of validators.js: `cjs` (default, what @mfx/runtime's loadManifest evaluates) or `esm`. */
  validatorsModule?: ValidatorsModule;
}

export interface BuildResult {
  /** Every error and warning, ordered by file and position. */
  diagnostics: Diagnostic[];
  /** False when any diagnostic is an error; nothing is written then. */
  ok: boolean;
  /** The manifest, when the build succeeded. */
  manifest?: Manifest;
  /** Content of each output file by name (manifest.json, validators.js), when the build succeeded. */
  files?: Record<string, string>;
  /** Absolute output directory. */
  outDir: string;
  /** The checked model IR (also when there are errors, for tools). */
  models: ModelIR[];
  /**
   * The absolute paths of the files the build read: the entries, the user
   * files they import and the tsconfig.json (what `mfx build --watch`
   * watches); the entries (and the named tsconfig) when it could not read them.
   */
  inputs: string[];
}

/**
 * Compile the models reachable from `entries` into `outDir`.
 *
 * @example
 * const result = build({ entries: ['src/models.ts'], outDir: '.mfx' });
 * if (!result.ok) for (const d of result.diagnostics) console.error(formatDiagnostic(d, process.cwd()));
 */
export function build(options: BuildOptions): BuildResult {
  const cwd = options.cwd ?? process.cwd();
  const outDir = resolve(cwd, options.outDir ?? '.mfx');
  const bag = new DiagnosticBag();
  const entries = options.entries.map((entry) => resolve(cwd, entry));
  const tsconfig = options.project && resolve(cwd, options.project);
  const analysis = analyze({ entries, tsconfig, compilerOptions: options.compilerOptions }, bag);
  const models = analysis ? buildModels(analysis.models, analysis.nonModels, bag) : [];
  const inputs = analysis?.inputs ?? [...entries, ...(tsconfig ? [tsconfig] : [])];
  const diagnostics = options.strict ? bag.sorted().map((d): Diagnostic => (d.severity === 'warning' ? { ...d, severity: 'error' } : d)) : bag.sorted();
  const result: BuildResult = { diagnostics, ok: !diagnostics.some((d) => d.severity === 'error'), outDir, models, inputs };
  if (!result.ok) return result;

  const emitted = emit(models, outDir, compilerInfo(), options.validatorsModule);
  if (options.write !== false) writeFiles(outDir, emitted.files);
  return { ...result, manifest: emitted.manifest, files: emitted.files };
}
