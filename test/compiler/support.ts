// Shared helpers of the compiler tests.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type BuildOptions, type BuildResult, build, type Diagnostic, diagnosticText } from '@mfx/compiler';

export const root = resolve(import.meta.dirname, '../..');

/** Absolute path of a file under fixtures/. */
export function fixture(...parts: string[]): string {
  return join(root, 'fixtures', ...parts);
}

/**
 * 1-based line and column of the first occurrence of `needle` in a file
 * (of the `nth` occurrence, counting from 1), so expectations name the
 * source text rather than magic numbers.
 */
export function locate(file: string, needle: string, nth = 1): { line: number; col: number } {
  const text = readFileSync(file, 'utf8');
  let at = -1;
  for (let i = 0; i < nth; i++) {
    at = text.indexOf(needle, at + 1);
    if (at === -1) throw new Error(`${needle} (occurrence ${nth}) not found in ${file}`);
  }
  const before = text.slice(0, at).split('\n');
  return { line: before.length, col: before[before.length - 1].length + 1 };
}

/** Build without writing anything (unless `write` is set). */
export function compile(entries: string[], options: Partial<BuildOptions> = {}): BuildResult {
  return build({ entries, write: false, outDir: join(tmpdir(), 'mfx-test-unused'), ...options });
}

/** A diagnostic reduced to what tests compare: severity, place and full text. */
export interface Seen {
  severity: Diagnostic['severity'];
  line: number;
  col: number;
  text: string;
}

export function seen(diagnostics: Diagnostic[], file?: string): Seen[] {
  return diagnostics
    .filter((d) => file === undefined || d.span?.file === file)
    .map((d) => ({ severity: d.severity, line: d.span?.line ?? 0, col: d.span?.col ?? 0, text: diagnosticText(d) }));
}

/**
 * What a throwaway project's tsconfig adds so that `@mfx/runtime` resolves to
 * its TypeScript sources (the `mfx-source` export condition), as the tests
 * run them: no build needed.
 */
export const sourceOptions = { customConditions: ['mfx-source'] };

/** The tsconfig.json of a throwaway project that brings none: the compiler's defaults, from the sources. */
const defaultTsconfig = JSON.stringify({
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, ...sourceOptions },
});

/**
 * A throwaway project directory with `node_modules` linked to the
 * repository's, so `@mfx/runtime` and the compiler resolve (to their
 * sources: a tsconfig.json with `sourceOptions` is written unless `files` has one).
 */
export function tempProject(files: Record<string, string>): { dir: string; path: (name: string) => string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-compiler-test-'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const [name, content] of Object.entries({ 'tsconfig.json': defaultTsconfig, ...files })) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return { dir, path: (name) => join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A field of a built model, or a thrown error naming what is missing. */
export function fieldOf(result: BuildResult, model: string, field: string) {
  const found = result.models.find((m) => m.name === model)?.fields.find((f) => f.name === field);
  if (!found) throw new Error(`no field ${model}.${field}`);
  return found;
}
