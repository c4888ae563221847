/**
 * Finds the models (exported interfaces that extend `Model`, directly or
 * through other interfaces) and collects the facts of each: its docs, its
 * soft-delete embeds and its properties with their TypeScript types.
 */
import type { InterfaceDeclaration, Program, SourceFile, Symbol as MorphSymbol, ts, Type } from 'ts-morph';
import type { DiagnosticBag } from '../ir/diagnostics.js';
import type { ModelFacts, PropertyFacts, SoftDeleteEmbed } from '../ir/facts.js';
import { readDocs } from './docs.js';
import { Node } from './morph.js';
import type { RuntimeTypes } from './runtime.js';
import { SourceClosure } from './sources.js';
import { spanOf } from './span.js';
import { isUnresolved, TypeClassifier } from './types.js';

export interface FoundModels {
  models: ModelFacts[];
  /** Interfaces that extend Model but are not models, with the reason (for relation messages). */
  nonModels: Map<string, string>;
}

function interfacesOf(symbol: MorphSymbol): InterfaceDeclaration[] {
  return symbol.getDeclarations().filter(Node.isInterfaceDeclaration);
}

/** A base type split into what it is made of: `extends Model & Audit` counts as two bases. */
function partsOf(type: Type): Type[] {
  return type.isIntersection() ? type.getIntersectionTypes().flatMap(partsOf) : [type];
}

interface Collected {
  model: string;
  members: Map<string, Node>;
  embeds: Set<SoftDeleteEmbed>;
  files: Set<string>;
  visited: Set<ts.Symbol>;
}

/**
 * Finds model interfaces and reads their facts.
 *
 * @example
 * const found = new ModelFinder(new RuntimeTypes(), project.getProgram(), bag).find(files);
 */
export class ModelFinder {
  private readonly extendsModelCache = new Map<ts.Symbol, boolean>();
  private readonly types: TypeClassifier;
  private unresolvedBase = false;

  constructor(
    private readonly runtime: RuntimeTypes,
    program: Program,
    private readonly bag: DiagnosticBag,
  ) {
    this.types = new TypeClassifier(runtime, program, (symbol) => this.extendsModel(symbol));
  }

  /**
   * Every model declared in `files` (the entries and the user files they import).
   *
   * @example
   * finder.find(files).models.map((m) => m.name); // ['Company', 'User', …]
   */
  find(files: SourceFile[]): FoundModels {
    const found: FoundModels = { models: [], nonModels: new Map() };
    const sources = new SourceClosure(files);
    const seen = new Set<ts.Symbol>();
    const declaredIn = new Map<string, string>();
    for (const file of files) {
      for (const declaration of file.getInterfaces()) {
        const symbol = declaration.getSymbol();
        if (!symbol || seen.has(symbol.compilerSymbol) || !this.extendsModel(symbol)) continue;
        seen.add(symbol.compilerSymbol);
        const name = symbol.getName();
        if (!interfacesOf(symbol).some((d) => d.isExported())) {
          found.nonModels.set(name, 'it is not exported');
          continue;
        }
        const earlier = declaredIn.get(name);
        if (earlier) {
          this.bag.error(spanOf(declaration), `${name}: a model named ${name} is already declared in ${earlier}`, 'Model names must be unique; rename one of them');
          continue;
        }
        declaredIn.set(name, file.getFilePath());
        if (declaration.getTypeParameters().length > 0) {
          this.bag.error(spanOf(declaration), `${name}: a model cannot be generic`, 'Declare a generic base interface and extend it with concrete types');
          continue;
        }
        const facts = this.factsOf(symbol);
        found.models.push({ ...facts, files: sources.of(facts.files) });
      }
    }
    return found;
  }

  /** True when some type could not be resolved: a narrower program may have left it out. */
  sawUnresolved(): boolean {
    return this.unresolvedBase || this.types.sawUnresolved;
  }

  /** True when the interface extends the runtime's Model, directly or through other interfaces. */
  extendsModel(symbol: MorphSymbol, visiting = new Set<ts.Symbol>()): boolean {
    const key = symbol.compilerSymbol;
    const cached = this.extendsModelCache.get(key);
    if (cached !== undefined) return cached;
    if (visiting.has(key)) return false;
    visiting.add(key);
    const result = interfacesOf(symbol).some((declaration) =>
      declaration.getExtends().some((heritage) =>
        partsOf(heritage.getType()).some((part) => {
          const base = part.getSymbol();
          if (!base) return false;
          return this.runtime.interfaceOf(base) === 'Model' || this.extendsModel(base, visiting);
        }),
      ),
    );
    this.extendsModelCache.set(key, result);
    return result;
  }

  private factsOf(symbol: MorphSymbol): ModelFacts {
    const declarations = interfacesOf(symbol);
    const primary = declarations[0];
    const name = symbol.getName();
    const collected: Collected = { model: name, members: new Map(), embeds: new Set(), files: new Set(), visited: new Set() };
    this.collectMembers(symbol, collected);
    const { members, embeds, files } = collected;

    const modelType = primary.getType();
    const properties: PropertyFacts[] = [];
    for (const [propertyName, node] of members) {
      const property = modelType.getProperty(propertyName);
      const type = property ? property.getTypeAtLocation(primary) : node.getType();
      const written = Node.isPropertySignature(node) ? node.getTypeNode()?.getText() : undefined;
      const { shape, nullable } = this.types.classify(type, written);
      const docs = Node.isPropertySignature(node) ? readDocs(node) : { directives: [] };
      properties.push({
        name: propertyName,
        shape,
        nullable: nullable || (property?.isOptional() ?? false),
        ...(docs.description ? { description: docs.description } : {}),
        directives: docs.directives,
        span: Node.isPropertySignature(node) ? spanOf(node) : spanOf(primary),
      });
    }

    const docs = declarations.map(readDocs);
    const description = docs.map((d) => d.description).filter(Boolean).join('\n\n');
    return {
      name,
      ...(description ? { description } : {}),
      directives: docs.flatMap((d) => d.directives),
      span: spanOf(primary),
      embeds: [...embeds],
      properties,
      files: [...files].sort(),
    };
  }

  /**
   * Walks the interface and its bases, bases first, so inherited properties
   * come before the model's own. A redeclared property keeps its first
   * position and takes the most derived declaration.
   */
  private collectMembers(symbol: MorphSymbol, collected: Collected): void {
    collected.visited.add(symbol.compilerSymbol);
    for (const declaration of interfacesOf(symbol)) {
      collected.files.add(declaration.getSourceFile().getFilePath());
      for (const heritage of declaration.getExtends()) {
        for (const part of partsOf(heritage.getType())) this.collectBase(part, heritage, collected);
      }
      for (const member of declaration.getMembers()) {
        if (Node.isPropertySignature(member)) {
          const nameNode = member.getNameNode();
          collected.members.set(Node.isStringLiteral(nameNode) ? nameNode.getLiteralValue() : member.getName(), member);
        } else {
          this.bag.error(
            spanOf(member),
            `${collected.model}: '${member.getText().split('\n')[0]}' is not a property`,
            'A model declares properties only (no methods, index or call signatures)',
          );
        }
      }
    }
  }

  /** One base of an interface: a runtime marker, another interface (walked), or an object type (its properties). */
  private collectBase(type: Type, heritage: Node, collected: Collected): void {
    const base = type.getSymbol();
    const marker = this.runtime.interfaceOf(base);
    if (marker === 'Model') return;
    if (marker) {
      collected.embeds.add(marker);
      return;
    }
    if (isUnresolved(type)) {
      this.unresolvedBase = true;
      this.bag.error(spanOf(heritage), `${collected.model}: cannot resolve the base type '${heritage.getText()}'`, 'Check its import');
      return;
    }
    if (base && interfacesOf(base).length > 0) {
      if (!collected.visited.has(base.compilerSymbol)) this.collectMembers(base, collected);
      return;
    }
    // A type alias or mapped type (Pick<…>, an object literal type): take its properties as they are.
    for (const property of type.getProperties()) {
      const declaration = property.getDeclarations()[0] ?? heritage;
      collected.files.add(declaration.getSourceFile().getFilePath());
      collected.members.set(property.getName(), declaration);
    }
  }
}
