/**
 * Relation resolution across models.
 *
 * First every model's BelongsTo relations are found (explicit `relation:`
 * foreign keys, then the `<model>Id` convention), because HasMany and
 * ManyToMany are defined by the BelongsTo relations that point back.
 */
import type { DiagnosticBag } from './diagnostics.js';
import type { FieldIR, ModelIR, RelationIR, RelationPropertyIR } from './model.js';
import { didYouMean } from './suggest.js';

type BelongsTo = Extract<RelationIR, { kind: 'belongsTo' }>;

/** Names that are not registered models, with why (`abstract`, not exported): for better messages. */
export type NonModels = ReadonlyMap<string, string>;

/**
 * Fill `relations` of every model and `relation` of every foreign-key field.
 *
 * @example
 * resolveRelations(models, new Map(), bag);
 * models.find((m) => m.name === 'Post')!.relations.map((r) => r.key); // ['author', 'comments', 'tags']
 */
export function resolveRelations(models: ModelIR[], nonModels: NonModels, bag: DiagnosticBag): void {
  const resolver = new RelationResolver(models, nonModels, bag);
  const companions = new Map(models.map((model) => [model.name, resolver.belongsTo(model)]));
  for (const model of models) resolver.collections(model, companions.get(model.name)!);
  for (const model of models) {
    model.relations.sort((a, b) => a.order - b.order);
    resolver.checkKeys(model);
  }
}

/** Lower-case, without underscores: `blog_post`, `blogPost` and `BlogPost` all name the same model. */
function normalize(name: string): string {
  return name.toLowerCase().replaceAll('_', '');
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

class RelationResolver {
  private readonly byName: Map<string, ModelIR>;
  private readonly byNormalizedName: Map<string, ModelIR>;

  constructor(
    models: ModelIR[],
    private readonly nonModels: NonModels,
    private readonly bag: DiagnosticBag,
  ) {
    this.byName = new Map(models.map((m) => [m.name, m]));
    this.byNormalizedName = new Map(models.map((m) => [normalize(m.name), m]));
  }

  /** Adds the model's BelongsTo relations; returns the names of the companion properties they use. */
  belongsTo(model: ModelIR): Set<string> {
    const companions = new Set<string>();
    for (const field of model.fields) {
      if (field.base) continue;
      // A companion stays claimed even when its relation fails, so it is not reported twice.
      const relation = field.explicitRelation ? this.explicit(model, field, companions) : this.convention(model, field);
      if (!relation) continue;
      field.relation = relation.key;
      if (relation.companion) companions.add(relation.companion);
      model.relations.push(relation);
    }
    return companions;
  }

  /** `relation:Name[;onDelete:…]` on the foreign key, with a companion property `Name` typed as the target. */
  private explicit(model: ModelIR, field: FieldIR, claimed: Set<string>): BelongsTo | undefined {
    const { name, onDelete } = field.explicitRelation!;
    const subject = `${model.name}.${field.name}`;
    const companion =
      model.relationProperties.find((p) => p.name === name) ??
      model.relationProperties.find((p) => p.name.toLowerCase() === name.toLowerCase());
    if (!companion) {
      const guess = this.conventionTarget(field)?.name ?? 'TargetModel';
      const notAModel = model.fields.find((f) => !f.base && f.name.toLowerCase() === name.toLowerCase());
      if (notAModel) {
        this.bag.error(
          field.span,
          `${subject}: 'relation:${name}' needs the companion ${model.name}.${notAModel.name} to be typed as a model`,
          `Declare it as '${notAModel.name}?: ${guess};', an interface that extends Model`,
        );
        return undefined;
      }
      this.bag.error(
        field.span,
        `${subject}: 'relation:${name}' has no companion property ${name}`,
        `Add '${name}?: ${guess};' to ${model.name}; its type names the model this foreign key points to`,
      );
      return undefined;
    }
    claimed.add(companion.name);
    if (companion.many) {
      this.bag.error(
        field.span,
        `${subject}: 'relation:${name}' needs a single-model companion, but ${model.name}.${companion.name} is an array`,
        `Declare it as '${companion.name}?: ${companion.target};'`,
      );
      return undefined;
    }
    const target = this.target(model, companion, field.span, `${subject}: 'relation:${name}' points to ${companion.target}, which`);
    if (!target) return undefined;
    if (onDelete === 'setNull' && !field.nullable) {
      this.bag.error(
        field.span,
        `${subject}: 'onDelete:setNull' needs a nullable foreign key, but ${field.name} is not nullable`,
        `Declare it as '${field.name}: string | null', or use onDelete:cascade or onDelete:restrict`,
      );
      return undefined;
    }
    return {
      kind: 'belongsTo',
      key: name.toLowerCase(),
      target: target.name,
      field: field.name,
      column: field.column,
      onDelete,
      companion: companion.name,
      span: field.span,
      order: field.order,
    };
  }

  /** The model a `<model>Id` / `<model>ID` / `<model>_id` string field names, if any. */
  private conventionTarget(field: FieldIR): ModelIR | undefined {
    const match = /^(.+?)(Id|ID|_id)$/.exec(field.name);
    return match ? this.byNormalizedName.get(normalize(match[1])) : undefined;
  }

  /** A string field named after a model: BelongsTo by convention, key = lower-cased model name, no referential action. */
  private convention(model: ModelIR, field: FieldIR): BelongsTo | undefined {
    if (field.type !== 'string') return undefined;
    const target = this.conventionTarget(field);
    if (!target) return undefined;
    const key = target.name.toLowerCase();
    const prefix = field.name.replace(/(Id|ID|_id)$/, '');
    // An optional companion: a single-model property named like the key or the field's prefix.
    const companion = model.relationProperties.find(
      (p) => !p.many && p.target === target.name && (p.name === prefix || p.name.toLowerCase() === key),
    );
    return {
      kind: 'belongsTo',
      key,
      target: target.name,
      field: field.name,
      column: field.column,
      onDelete: 'noAction',
      ...(companion ? { companion: companion.name } : {}),
      span: field.span,
      order: field.order,
    };
  }

  /** The registered model a relation property points to, or a diagnostic saying why it is none. */
  private target(
    model: ModelIR,
    property: RelationPropertyIR,
    span = property.span,
    subject = `${model.name}.${property.name}: ${property.target}`,
  ): ModelIR | undefined {
    const target = this.byName.get(property.target);
    if (target) return target;
    const why = this.nonModels.get(property.target);
    this.bag.error(
      span,
      `${subject} is not a model${why ? ` (${why})` : ''}`,
      why ? undefined : didYouMean(property.target, this.byName.keys()) ?? `Export an interface ${property.target} that extends Model`,
    );
    return undefined;
  }

  /** HasMany and ManyToMany from array properties; single-model properties must be companions. */
  collections(model: ModelIR, companions: Set<string>): void {
    for (const property of model.relationProperties) {
      if (companions.has(property.name) || property.reported) continue;
      const target = this.target(model, property);
      if (!target) continue;
      if (!property.many) {
        this.bag.error(
          property.span,
          `${model.name}.${property.name}: a property typed as a model must be the companion of a foreign key`,
          `Add '/** @mfx relation:${property.name} */ ${property.name}Id: string;' to ${model.name}, or declare '${property.name}?: ${target.name}[]' for a has-many`,
        );
        continue;
      }
      const relation = property.through ? this.manyToMany(model, property, target) : this.hasMany(model, property, target);
      if (relation) model.relations.push(relation);
    }
  }

  /** The BelongsTo relations of `owner` that point to `target`. */
  private pointingTo(owner: ModelIR, target: ModelIR): BelongsTo[] {
    return owner.relations.filter((r): r is BelongsTo => r.kind === 'belongsTo' && r.target === target.name);
  }

  private hasMany(model: ModelIR, property: RelationPropertyIR, child: ModelIR): RelationIR | undefined {
    const subject = `${model.name}.${property.name}`;
    const back = this.pointingTo(child, model);
    const inverse = this.choose(back, property, subject, () => [
      `${child.name} has no foreign key to ${model.name}`,
      `Add '${lowerFirst(model.name)}Id: string' to ${child.name} (or a relation:NAME foreign key), or use through:Junction for many-to-many`,
    ], child.name);
    if (!inverse) return undefined;
    return {
      kind: 'hasMany',
      key: property.name,
      target: child.name,
      inverse: inverse.key,
      remoteField: inverse.field,
      remoteColumn: inverse.column,
      span: property.span,
      order: property.order,
    };
  }

  private manyToMany(model: ModelIR, property: RelationPropertyIR, target: ModelIR): RelationIR | undefined {
    const subject = `${model.name}.${property.name}`;
    const junction = this.byName.get(property.through!);
    if (!junction) {
      this.bag.error(
        property.span,
        `${subject}: 'through:${property.through}' names no model`,
        didYouMean(property.through!, this.byName.keys()) ??
          `Declare a junction model ${property.through} with foreign keys to ${model.name} and ${target.name}`,
      );
      return undefined;
    }
    const notJunction = (side: ModelIR) => [
      `${junction.name} is not a junction of ${model.name} and ${target.name}: it has no foreign key to ${side.name}`,
      `Add '${lowerFirst(side.name)}Id: string' to ${junction.name}`,
    ];
    const toLocal = this.pointingTo(junction, model);
    const local = this.choose(toLocal, property, subject, () => notJunction(model), junction.name);
    if (!local) return undefined;
    // A self-referencing junction holds two keys to the same model: the target side is the other one.
    const toTarget = this.pointingTo(junction, target).filter((r) => r !== local);
    if (toTarget.length !== 1) {
      const [message, hint] =
        toTarget.length === 0
          ? notJunction(target)
          : [
              `${junction.name} has several foreign keys to ${target.name} (${toTarget.map((r) => r.key).join(', ')})`,
              `Keep one foreign key to ${target.name} in ${junction.name}`,
            ];
      this.bag.error(property.span, `${subject}: ${message}`, hint);
      return undefined;
    }
    return {
      kind: 'manyToMany',
      key: property.name,
      target: target.name,
      through: junction.name,
      throughTable: junction.table,
      localColumn: local.column,
      targetColumn: toTarget[0].column,
      span: property.span,
      order: property.order,
    };
  }

  /** One of the candidate BelongsTo relations: the one `relation:KEY` picks, or the only one. */
  private choose(
    candidates: BelongsTo[],
    property: RelationPropertyIR,
    subject: string,
    none: () => string[],
    owner: string,
  ): BelongsTo | undefined {
    const keys = candidates.map((r) => r.key);
    if (property.pick !== undefined) {
      const picked = candidates.find((r) => r.key === property.pick);
      if (!picked) {
        this.bag.error(
          property.span,
          `${subject}: 'relation:${property.pick}' names no relation of ${owner} pointing to this model`,
          keys.length ? `Pick one of ${keys.join(', ')}` : none()[1],
        );
      }
      return picked;
    }
    if (candidates.length === 1) return candidates[0];
    if (candidates.length === 0) {
      const [message, hint] = none();
      this.bag.error(property.span, `${subject}: ${message}`, hint);
      return undefined;
    }
    this.bag.error(
      property.span,
      `${subject}: ${owner} has several relations that could be the inverse (${keys.join(', ')})`,
      `Pick one with 'relation:KEY' on ${property.name}, e.g. relation:${keys[0]}`,
    );
    return undefined;
  }

  /** Relation keys name includes and dotted filters, so they must be unique and must not shadow a field. */
  checkKeys(model: ModelIR): void {
    const seen = new Map<string, RelationIR>();
    for (const relation of model.relations) {
      const subject = relation.kind === 'belongsTo' ? `${model.name}.${relation.field}` : `${model.name}.${relation.key}`;
      const earlier = seen.get(relation.key);
      if (earlier) {
        this.bag.error(relation.span, `${subject}: relation key '${relation.key}' is already used by another relation of ${model.name}`, 'Rename one of them, or name the foreign key explicitly with relation:NAME');
        continue;
      }
      seen.set(relation.key, relation);
      const shadowed = model.fields.find((f) => f.name === relation.key);
      if (shadowed) {
        this.bag.error(
          relation.span,
          `${subject}: relation key '${relation.key}' is also the name of the field ${model.name}.${shadowed.name}`,
          'Rename the field, or give the relation another key with relation:NAME and a companion property',
        );
      }
    }
  }
}
