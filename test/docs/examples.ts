// Compiles the models the documentation shows: the directive catalogue's
// examples and the ```ts models blocks of docs/*.md.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build, type BuildResult, diagnosticText } from '@mfx/compiler';
import ts from 'typescript';

export const root = resolve(import.meta.dirname, '../..');

/** The types of '@mfx/runtime' a directive example may use without importing them. */
export const EXAMPLE_IMPORTS = "import type { Int, Localized, Model, SoftDelete, SoftDeleteFlag } from '@mfx/runtime';";

/** The fenced blocks of a Markdown file whose info string is exactly ```ts models (models the compiler must accept). */
export function modelBlocks(markdown: string): { line: number; code: string }[] {
  return fencedBlocks(markdown, 'ts models');
}

/** The Markdown files under docs/. */
export function docFiles(): string[] {
  return readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
}

/**
 * Compiles files (name → source) as one project whose node_modules is the
 * repository's, and answers the build result with every diagnostic as text.
 */
export function compileFiles(files: Record<string, string>): { result: BuildResult; problems: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-docs-examples-'));
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: true, noEmit: true } }));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    for (const [name, source] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), source);
    }
    const result = build({ entries: Object.keys(files), cwd: dir, write: false });
    const problems = result.diagnostics.map((d) => `${d.span ? `${d.span.file.slice(dir.length + 1)}:${d.span.line}: ` : ''}${d.severity}: ${diagnosticText(d)}`);
    return { result, problems };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The source of a file under the repository. */
export const readRepoFile = (path: string) => readFileSync(join(root, path), 'utf8');

/** The fenced blocks of a Markdown file whose info string is exactly ```ts check (modules that must type-check). */
export function checkedBlocks(markdown: string): { line: number; code: string }[] {
  return fencedBlocks(markdown, 'ts check');
}

function fencedBlocks(markdown: string, info: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== `\`\`\`${info}`) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== '```') end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

/**
 * Type-checks modules (name → source) with TypeScript in a project whose
 * node_modules is the repository's, as strict as a careful user's tsconfig
 * (strict, noUncheckedIndexedAccess, exactOptionalPropertyTypes); answers
 * every error in them as `file:line: message`.
 */
export function typeCheck(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-docs-check-'));
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const names = Object.keys(files).map((name) => join(dir, name));
    for (const [name, source] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), source);
    }
    const program = ts.createProgram(names, {
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      skipLibCheck: true,
      noEmit: true,
    });
    // Only the examples' own errors (checking just their files): mfx's packages are checked by their own build.
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...names.flatMap((name) => {
        const file = program.getSourceFile(name);
        return file ? [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)] : [];
      }),
    ];
    return diagnostics.map((d) => {
      const where = d.file && d.start !== undefined ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
      return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
