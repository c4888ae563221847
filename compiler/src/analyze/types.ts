/**
 * Maps a property's TypeScript type to a storage shape, through the type
 * checker: aliases, imported types, enums and literal unions are resolved
 * the way TypeScript sees them.
 */
import type { ScalarType } from '@mfx/runtime/manifest';
import type { Program, Symbol as MorphSymbol, Type } from 'ts-morph';
import { Node, typescript } from './morph.js';
import type { TypeShape } from '../ir/facts.js';
import type { RuntimeTypes } from './runtime.js';

export interface ClassifiedType {
  shape: TypeShape;
  /** The type includes `null` or `undefined`. */
  nullable: boolean;
}

const SCALARS: ReadonlySet<string> = new Set<ScalarType>(['string', 'number', 'integer', 'bigint', 'boolean', 'timestamp']);

/**
 * Reduces TypeScript types to storage shapes.
 *
 * @example new TypeClassifier(runtime, program, isModel).classify(property.getType()).shape // { kind: 'value', type: 'string' }
 */
export class TypeClassifier {
  /** Set once a type TypeScript could not resolve (an error type) was met. */
  sawUnresolved = false;

  constructor(
    private readonly runtime: RuntimeTypes,
    private readonly program: Program,
    /** True for interfaces that extend Model (registered or not). */
    private readonly isModelInterface: (symbol: MorphSymbol) => boolean,
  ) {}

  /**
   * The shape of a type, with null and undefined split off; `written` is
   * the type as the source spells it, for messages.
   *
   * @example classify(typeOf('views: Int | null')) // { shape: { kind: 'value', type: 'integer' }, nullable: true }
   */
  classify(type: Type, written?: string): ClassifiedType {
    const members = type.isUnion() ? type.getUnionTypes() : [type];
    const kept = members.filter((member) => !member.isNull() && !member.isUndefined());
    // Printing a type is costly; only unsupported types need the text.
    const text = () => written ?? type.getText();
    return { shape: this.shapeOf(kept, text), nullable: kept.length < members.length };
  }

  private shapeOf(members: Type[], text: () => string): TypeShape {
    if (members.length === 0) return unsupported(text, 'It holds nothing but null or undefined; give it a value type');
    if (members.every((t) => t.isBoolean() || t.isBooleanLiteral())) return { kind: 'value', type: 'boolean' };
    if (members.every((t) => t.isString() || t.isStringLiteral() || t.isTemplateLiteral())) return { kind: 'value', type: 'string' };
    if (members.every((t) => t.isNumber() || t.isNumberLiteral())) return { kind: 'value', type: 'number' };
    if (members.every((t) => t.isBigInt() || t.isBigIntLiteral())) return { kind: 'value', type: 'bigint' };
    if (members.length > 1) {
      return unsupported(text, 'A column has one type; use a single type, or a union of literals of one type');
    }
    return this.singleShape(members[0], text);
  }

  private singleShape(type: Type, text: () => string): TypeShape {
    if (isUnresolved(type)) {
      this.sawUnresolved = true;
      return unsupported(text, 'TypeScript cannot resolve it; fix the TypeScript error (a missing import or a typo) first');
    }
    if (type.isAny() || type.isUnknown()) return { kind: 'value', type: 'json_object', opaque: true };
    const brand = this.runtime.brandOf(type);
    if (brand === 'Int') return { kind: 'value', type: 'integer' };
    if (brand === 'Localized') return { kind: 'value', type: 'localized' };
    if (this.isDate(type)) return { kind: 'value', type: 'timestamp' };

    if (type.isArray() || type.isReadonlyArray() || type.isTuple()) return this.arrayShape(type);

    const symbol = type.getSymbol();
    if (symbol && this.isModelInterface(symbol)) return { kind: 'model', target: symbol.getName(), many: false };
    const embed = this.runtime.interfaceOf(symbol);
    if (embed) {
      return unsupported(
        text,
        `${embed} is a base to extend, not a column type; type the property as a concrete model with its foreign key (owner?: User plus ownerId: string), or use Record<string, unknown> for free-form JSON`,
      );
    }
    if (type.isTypeParameter()) return unsupported(text, 'Model properties cannot be generic; give the property a concrete type');
    if (type.getFlags() & typescript.TypeFlags.NonPrimitive) return { kind: 'value', type: 'json_object', opaque: true };
    if (type.isObject()) {
      if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) {
        return unsupported(text, 'Functions cannot be stored; drop the property or exclude it with @mfx -');
      }
      const values = type.getStringIndexType();
      if (values && isUnresolved(values)) this.sawUnresolved = true;
      const stringMap = values !== undefined && values.isString() && type.getProperties().length === 0;
      return { kind: 'value', type: 'json_object', ...(stringMap ? { stringMap: true } : {}) };
    }
    return unsupported(text, 'Use string, number, Int, bigint, boolean, Date, an array, an object type or Localized');
  }

  private arrayShape(type: Type): TypeShape {
    const element = type.isTuple() ? undefined : (type.getArrayElementType() ?? type.getNumberIndexType());
    if (!element) return { kind: 'value', type: 'json_array' };
    const inner = this.classify(element);
    if (inner.shape.kind === 'model') return { kind: 'model', target: inner.shape.target, many: true };
    const items = inner.shape.kind === 'value' && !inner.nullable && SCALARS.has(inner.shape.type) ? (inner.shape.type as ScalarType) : undefined;
    return { kind: 'value', type: 'json_array', ...(items ? { items } : {}) };
  }

  /** The global `Date` of the default library (a user's own `Date` class is an object). */
  private isDate(type: Type): boolean {
    const symbol = type.getSymbol();
    if (!symbol || symbol.getName() !== 'Date') return false;
    const program = this.program.compilerObject;
    return symbol.getDeclarations().some((d) => Node.isInterfaceDeclaration(d) && program.isSourceFileDefaultLibrary(d.getSourceFile().compilerNode));
  }
}

/** The checker's error type: what an unresolvable name turns into. */
export function isUnresolved(type: Type): boolean {
  return (type.compilerType as { intrinsicName?: string }).intrinsicName === 'error';
}

function unsupported(text: () => string, reason: string): TypeShape {
  return { kind: 'unsupported', text: text(), reason };
}
