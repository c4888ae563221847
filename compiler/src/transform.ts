/**
 * The ts-patch program transformer behind `@mfx/compiler/transform`: during
 * a normal `tspc` build it writes the same manifest as `mfx build`, and model
 * errors become TypeScript diagnostics (so they fail the build).
 *
 * tsconfig.json:
 *
 *   { "compilerOptions": { "plugins": [
 *     { "transform": "@mfx/compiler/transform", "transformProgram": true, "outDir": ".mfx" }
 *   ] } }
 *
 * Plugin options (paths relative to the tsconfig's directory):
 * - `outDir`: where manifest.json and validators.js go (default `.mfx`);
 * - `entries`: the files that declare models (default: every root file of the program).
 *
 * Warnings (unknown directives) are printed to stderr in tsc's format rather
 * than returned as diagnostics, because tsc fails on any diagnostic.
 */
import { dirname, relative, resolve } from 'node:path';
import type * as ts from 'typescript';
import { type Diagnostic, diagnosticText } from './ir/diagnostics.js';
import { build } from './index.js';

export interface MfxPluginConfig {
  transform?: string;
  outDir?: string;
  entries?: string[];
  [option: string]: unknown;
}

/** Diagnostic code of every mfx error in tsc's output (`error TS9901: …`). */
export const MFX_DIAGNOSTIC_CODE = 9901;

const SOURCE_FILE = /\.(ts|tsx|mts|cts)$/;

/**
 * ts-patch program transformer: builds the manifest from the program's files
 * and returns the program with the model errors added to its diagnostics.
 *
 * @example // tsconfig.json: { "transform": "@mfx/compiler/transform", "transformProgram": true }
 */
export function transformProgram(
  program: ts.Program,
  _host: ts.CompilerHost | undefined,
  config: MfxPluginConfig,
  extras: { ts: typeof ts },
): ts.Program {
  const options = program.getCompilerOptions();
  const base = typeof options.configFilePath === 'string' ? dirname(options.configFilePath) : program.getCurrentDirectory();
  const entries = config.entries
    ? config.entries.map((entry) => resolve(base, entry))
    : program.getRootFileNames().filter((file) => SOURCE_FILE.test(file) && !file.endsWith('.d.ts'));

  const result = build({ entries, compilerOptions: options, outDir: resolve(base, config.outDir ?? '.mfx'), cwd: base });

  const cwd = program.getCurrentDirectory();
  for (const warning of result.diagnostics.filter((d) => d.severity === 'warning')) {
    const where = warning.span ? `${relative(cwd, warning.span.file)}(${warning.span.line},${warning.span.col}): ` : '';
    process.stderr.write(`${where}warning mfx: ${diagnosticText(warning)}\n`);
  }
  const errors = result.diagnostics.filter((d) => d.severity === 'error').map((d) => toTypeScript(d, program, extras.ts));
  return errors.length > 0 ? withDiagnostics(program, errors) : program;
}

function toTypeScript(diagnostic: Diagnostic, program: ts.Program, tsInstance: typeof ts): ts.Diagnostic {
  const file = diagnostic.span && program.getSourceFile(diagnostic.span.file);
  return {
    file,
    start: file ? diagnostic.span!.start : undefined,
    length: file ? diagnostic.span!.length : undefined,
    messageText: diagnosticText(diagnostic),
    category: tsInstance.DiagnosticCategory.Error,
    code: MFX_DIAGNOSTIC_CODE,
    source: 'mfx',
  };
}

/**
 * The program with extra diagnostics: file diagnostics join the semantic
 * ones of their file (plain `tsc` and builder programs both ask there),
 * the rest join the global ones.
 */
function withDiagnostics(program: ts.Program, diagnostics: ts.Diagnostic[]): ts.Program {
  const global = diagnostics.filter((d) => !d.file);
  const ofFile = (file: ts.SourceFile) => diagnostics.filter((d) => d.file === file);
  const inFiles = diagnostics.filter((d) => d.file);
  // Builder programs (incremental builds) read a file's diagnostics through this internal method.
  const internal = program as ts.Program & { getBindAndCheckDiagnostics?: BindAndCheck };
  const bindAndCheck = internal.getBindAndCheckDiagnostics;
  return {
    ...program,
    getSemanticDiagnostics: (file, token) => [...program.getSemanticDiagnostics(file, token), ...(file ? ofFile(file) : inFiles)],
    getGlobalDiagnostics: (token) => [...program.getGlobalDiagnostics(token), ...global],
    ...(bindAndCheck ? { getBindAndCheckDiagnostics: ((file, token) => [...bindAndCheck(file, token), ...ofFile(file)]) satisfies BindAndCheck } : {}),
  };
}

type BindAndCheck = (file: ts.SourceFile, token?: ts.CancellationToken) => readonly ts.Diagnostic[];
