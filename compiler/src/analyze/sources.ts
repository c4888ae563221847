/**
 * The source files a model depends on: the files that declare it and its
 * bases, plus every user file they import (type aliases, enums and shared
 * types live there). The runtime hashes these to tell a stale manifest.
 */
import type { SourceFile } from 'ts-morph';

export class SourceClosure {
  private readonly byPath: Map<string, SourceFile>;
  private readonly closures = new Map<string, ReadonlySet<string>>();

  /** `scope`: the user files of the program (no packages, no declaration files). */
  constructor(scope: SourceFile[]) {
    this.byPath = new Map(scope.map((file) => [file.getFilePath(), file]));
  }

  /**
   * The files, plus the user files they import, directly or not.
   *
   * @example closure.of(['/app/models.ts']) // ['/app/models.ts', '/app/types.ts']
   */
  of(files: Iterable<string>): string[] {
    const all = new Set<string>();
    for (const file of files) for (const path of this.closureOf(file)) all.add(path);
    return [...all].sort();
  }

  private closureOf(path: string): ReadonlySet<string> {
    const cached = this.closures.get(path);
    if (cached) return cached;
    const found = new Set<string>([path]);
    this.closures.set(path, found);
    const pending = [path];
    while (pending.length > 0) {
      const file = this.byPath.get(pending.pop()!);
      if (!file) continue;
      for (const declaration of [...file.getImportDeclarations(), ...file.getExportDeclarations()]) {
        const target = declaration.getModuleSpecifierSourceFile()?.getFilePath();
        if (target && this.byPath.has(target) && !found.has(target)) {
          found.add(target);
          pending.push(target);
        }
      }
    }
    return found;
  }
}
