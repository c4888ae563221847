/**
 * "Surface" module resolution: read packages only as far as their public
 * type surface.
 *
 * The analysis needs the types a model's properties name, not a package's
 * implementation. A package shipped as TypeScript sources (such as
 * @mfx/runtime in a workspace) would otherwise drag in everything its
 * implementation imports (database drivers, @types/node, …), which is most of
 * the parsing and binding time. So imports written in user files resolve as
 * usual, and so do imports in a package's declaration files; in a package's
 * `.ts` sources only `export … from` re-exports are followed.
 *
 * Any type that this leaves unresolved shows up as an error type during the
 * analysis, which then starts over with ordinary resolution
 * (analyze/index.ts), so the result never depends on the shortcut.
 */
import type { ResolutionHostFactory, ts } from 'ts-morph';
import { typescript } from './morph.js';

/** Specifiers of the `export … from '…'` declarations of a file. */
function reexportedSpecifiers(file: ts.SourceFile): Set<string> {
  const specifiers = new Set<string>();
  for (const statement of file.statements) {
    if (typescript.isExportDeclaration(statement) && statement.moduleSpecifier && typescript.isStringLiteral(statement.moduleSpecifier)) {
      specifiers.add(statement.moduleSpecifier.text);
    }
  }
  return specifiers;
}

/**
 * The resolution mode TypeScript would use for this import (ESM or CJS
 * conditions under node16/nodenext); `imports` is the parser's list of the
 * file's module specifiers.
 */
function modeOf(file: ts.SourceFile | undefined, name: string, options: ts.CompilerOptions): ts.ResolutionMode {
  if (!file) return undefined;
  const usages = (file as ts.SourceFile & { imports?: readonly ts.StringLiteralLike[] }).imports ?? [];
  const usage = usages.find((literal) => literal.text === name);
  return usage ? typescript.getModeForUsageLocation(file, usage, options) : file.impliedNodeFormat;
}

/** A ts-morph resolution host that follows only the public surface of packages (see above). */
export const surfaceResolution: ResolutionHostFactory = (host, getCompilerOptions) => {
  const inPackages = new Set<string>();
  let cache: ts.ModuleResolutionCache | undefined;
  return {
    resolveModuleNames(names, containingFile, _reused, redirectedReference, options, containingSourceFile) {
      const compilerOptions = options ?? getCompilerOptions();
      cache ??= typescript.createModuleResolutionCache(host.getCurrentDirectory?.() ?? '/', (f) => f, compilerOptions);
      const fromPackage = inPackages.has(containingFile) || containingFile.includes('/node_modules/');
      const followed =
        fromPackage && containingSourceFile && !containingSourceFile.isDeclarationFile ? reexportedSpecifiers(containingSourceFile) : undefined;
      return names.map((name) => {
        if (followed && !followed.has(name)) return undefined;
        const mode = modeOf(containingSourceFile, name, compilerOptions);
        const resolved = typescript.resolveModuleName(name, containingFile, compilerOptions, host, cache, redirectedReference, mode).resolvedModule;
        if (resolved && (fromPackage || resolved.isExternalLibraryImport)) inPackages.add(resolved.resolvedFileName);
        return resolved;
      });
    },
  };
};
