/**
 * Recognises the marker types of `@mfx/runtime` (Model, SoftDelete,
 * SoftDeleteFlag, Int, Localized) by where they are declared, not by name:
 * a user's own `interface Model` is just an interface.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SourceFile, Symbol as MorphSymbol, Type } from 'ts-morph';
import { Node } from './morph.js';

/** The package that declares the marker types. */
export const RUNTIME_PACKAGE = '@mfx/runtime';

export type RuntimeInterface = 'Model' | 'SoftDelete' | 'SoftDeleteFlag';
export type RuntimeBrand = 'Int' | 'Localized';

const INTERFACES: ReadonlySet<string> = new Set<RuntimeInterface>(['Model', 'SoftDelete', 'SoftDeleteFlag']);
const BRANDS: ReadonlySet<string> = new Set<RuntimeBrand>(['Int', 'Localized']);
const BRAND_PROPERTY = '__mfxBrand';

/**
 * Answers "is this declaration part of @mfx/runtime?" by the nearest
 * package.json of its file, which holds for the workspace symlink, an
 * installed copy and a built `.d.ts` alike.
 */
export class RuntimeTypes {
  private readonly packageByDirectory = new Map<string, string | undefined>();

  /** True when the file belongs to the @mfx/runtime package. */
  isRuntimeFile(file: SourceFile): boolean {
    return this.packageName(dirname(file.getFilePath())) === RUNTIME_PACKAGE;
  }

  /** Which runtime interface a symbol is, if it is one. */
  interfaceOf(symbol: MorphSymbol | undefined): RuntimeInterface | undefined {
    if (!symbol || !INTERFACES.has(symbol.getName())) return undefined;
    const declarations = symbol.getDeclarations();
    const fromRuntime = declarations.length > 0 && declarations.every((d) => Node.isInterfaceDeclaration(d) && this.isRuntimeFile(d.getSourceFile()));
    return fromRuntime ? (symbol.getName() as RuntimeInterface) : undefined;
  }

  /** `Int` or `Localized` when the type carries the runtime's brand property. */
  brandOf(type: Type): RuntimeBrand | undefined {
    if (!type.isIntersection()) return undefined;
    const brand = type.getProperty(BRAND_PROPERTY);
    const declaration = brand?.getDeclarations()[0];
    if (!declaration || !Node.isPropertySignature(declaration) || !this.isRuntimeFile(declaration.getSourceFile())) return undefined;
    const literal = declaration.getTypeNode()?.getText().replace(/^['"]|['"]$/g, '');
    return literal && BRANDS.has(literal) ? (literal as RuntimeBrand) : undefined;
  }

  private packageName(directory: string): string | undefined {
    if (this.packageByDirectory.has(directory)) return this.packageByDirectory.get(directory);
    const manifest = join(directory, 'package.json');
    let name: string | undefined;
    if (existsSync(manifest)) {
      try {
        name = JSON.parse(readFileSync(manifest, 'utf8')).name;
      } catch {
        name = undefined;
      }
    } else {
      const parent = dirname(directory);
      name = parent === directory ? undefined : this.packageName(parent);
    }
    this.packageByDirectory.set(directory, name);
    return name;
  }
}
