import type { CompiledValidator } from '../manifest/load.js';
import type {
  Dialect,
  FieldManifest,
  ModelManifest,
  ModelOptions,
  QueryLimits,
  RelationManifest,
  SqlTemplates,
} from '../manifest/types.js';
import { FIELD_ROLES, type FieldRole, type FieldRoles, fieldRoles } from '../manifest/roles.js';
import { type StoredColumn, storedColumns } from '../sql/columns.js';
import type { NamedExpression } from '../aggregate/expression.js';

export type BelongsTo = Extract<RelationManifest, { kind: 'belongsTo' }>;

/** A BelongsTo of another model that points at this one: what a delete must take care of. */
export interface InboundRelation {
  child: ModelMeta;
  relation: BelongsTo;
}

/**
 * A registered model with everything the request path needs precomputed, so
 * no request ever scans the field list to answer "is this writable?".
 */
export class ModelMeta {
  readonly name: string;
  readonly table: string;
  readonly options: ModelOptions;
  readonly fields: readonly FieldManifest[];
  readonly columns: readonly StoredColumn[];
  /** Dotted event and type prefix: the model name with its first letter lower-cased. */
  readonly typeName: string;
  readonly relations: ReadonlyMap<string, RelationManifest>;
  /** BelongsTo relations of other models that target this one; filled when the registry seals. */
  inbound: InboundRelation[] = [];
  /** Relation key → the related model (and the junction of many-to-many); filled when the registry seals. */
  related = new Map<string, { target: ModelMeta; through?: ModelMeta }>();
  /** Named expressions of the aggregate route (`app.expression()`), by name; filled before the handler is built. */
  readonly expressions = new Map<string, NamedExpression>();

  private readonly byName = new Map<string, FieldManifest>();
  private readonly byColumn = new Map<string, FieldManifest>();
  private readonly rolesByField = new Map<FieldManifest, FieldRoles>();
  private readonly fieldsByRole = new Map<FieldRole, readonly FieldManifest[]>();
  /** JSON name → field, for keys a client may send on create / update. */
  readonly createKeys: ReadonlyMap<string, FieldManifest>;
  readonly updateKeys: ReadonlyMap<string, FieldManifest>;
  /** Fields that appear in responses (not hidden, not writeonly), in declaration order. */
  readonly visibleFields: readonly FieldManifest[];

  constructor(
    readonly manifest: ModelManifest,
    readonly validators: { create: CompiledValidator; update: CompiledValidator },
    readonly queryLimits: QueryLimits,
  ) {
    this.name = manifest.name;
    this.table = manifest.table;
    this.options = manifest.options;
    this.fields = manifest.fields;
    this.columns = storedColumns(manifest);
    this.typeName = manifest.name.charAt(0).toLowerCase() + manifest.name.slice(1);
    this.relations = new Map(manifest.relations.map((r) => [r.key, r]));
    for (const field of manifest.fields) {
      this.byName.set(field.name, field);
      this.byColumn.set(field.column, field);
      this.rolesByField.set(field, fieldRoles(field));
    }
    for (const role of FIELD_ROLES) this.fieldsByRole.set(role, manifest.fields.filter((f) => this.rolesByField.get(f)![role]));
    this.createKeys = new Map(this.fieldsWith('writable').map((f) => [f.name, f]));
    this.updateKeys = new Map(this.fieldsWith('updatable').map((f) => [f.name, f]));
    this.visibleFields = this.fieldsWith('visible');
  }

  /** What one of this model's fields may be used for (computed once, at load). */
  roles(field: FieldManifest): FieldRoles {
    return this.rolesByField.get(field) ?? fieldRoles(field);
  }

  /** The fields that have a role, in declaration order (computed once per role). */
  fieldsWith(role: FieldRole): readonly FieldManifest[] {
    return this.fieldsByRole.get(role)!;
  }

  /** A field by its JSON name or, failing that, its column name. */
  field(name: string): FieldManifest | undefined {
    return this.byName.get(name) ?? this.byColumn.get(name);
  }

  /** The model a relation key leads to, once the registry is sealed. */
  target(key: string): { relation: RelationManifest; target: ModelMeta; through?: ModelMeta } | undefined {
    const relation = this.relations.get(key);
    const related = this.related.get(key);
    return relation && related ? { relation, ...related } : undefined;
  }

  fieldByColumn(column: string): FieldManifest | undefined {
    return this.byColumn.get(column);
  }

  sql(dialect: Dialect): SqlTemplates {
    return this.manifest.sql[dialect];
  }

  /** Routes: none for headless models. */
  get mounted(): boolean {
    return !this.options.headless;
  }
}
