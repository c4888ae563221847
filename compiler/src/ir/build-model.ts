/**
 * Turns the analyzer's facts about one model into model IR by running its
 * directives through the catalogue. Relations across models are resolved
 * afterwards (relations.ts), once every model is built.
 */
import type { FieldType } from '@mfx/runtime/manifest';
import { CATALOGUE, DIRECTIVES } from './directives/catalogue.js';
import type { DirectiveRow, FieldContext, ModelDraft, Report, ValueShape } from './directives/rule.js';
import { type DirectiveUse, parseDirectives } from './directives/syntax.js';
import { DirectiveProblem } from './directives/values.js';
import type { DiagnosticBag, Span } from './diagnostics.js';
import type { ModelFacts, PropertyFacts } from './facts.js';
import { leadingBaseFields, newField, trailingBaseFields } from './fields.js';
import type { FieldIR, ModelIR, RelationPropertyIR } from './model.js';
import { tableName } from './naming.js';
import { didYouMean } from './suggest.js';

/** How a field type reads in messages: the TypeScript spelling users wrote. */
const TYPE_LABELS: Record<FieldType, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an Int',
  bigint: 'a bigint',
  boolean: 'a boolean',
  timestamp: 'a Date',
  json_array: 'an array',
  json_object: 'an object',
  localized: 'a Localized',
};

const ORDER = new Map(CATALOGUE.map((row, i) => [row.name, i]));

/** A rule that ran, kept so its model-wide check can run once every field exists. */
interface Applied {
  check(report: Report): void;
  subject: string;
  span: Span;
}

/**
 * Build the IR of one model from its facts; problems go into `bag`.
 *
 * @example
 * const model = buildModel(facts, bag);
 * model.fields.map((f) => f.name); // ['id', 'title', …, 'created_at', 'updated_at']
 */
export function buildModel(facts: ModelFacts, bag: DiagnosticBag): ModelIR {
  const draft = newDraft(facts);
  const applied: Applied[] = [];

  applyModelDirectives(draft, facts, bag, applied);
  applySoftDeleteEmbeds(draft, facts, bag);

  const declared: FieldIR[] = [];
  facts.properties.forEach((property, order) => {
    const subject = `${facts.name}.${property.name}`;
    if (property.name === '__proto__') {
      // Records and JSON bodies are plain objects, where this key sets the prototype instead of a value.
      bag.error(property.span, `${subject}: '__proto__' cannot be a field name`, 'JavaScript objects treat it as their prototype; rename the property');
      return;
    }
    const uses = readUses(property.directives, property.span, subject, bag);
    if (uses.some((use) => DIRECTIVES.get(use.name)?.excludes)) return;
    const shape = property.shape;
    if (shape.kind === 'unsupported') {
      bag.error(property.span, `${subject}: type '${shape.text}' cannot be stored`, shape.reason);
    } else if (shape.kind === 'model') {
      const relation: RelationPropertyIR = { name: property.name, target: shape.target, many: shape.many, span: property.span, order };
      applyRelationPropertyDirectives(relation, uses, subject, bag);
      draft.ir.relationProperties.push(relation);
    } else {
      declared.push(buildField(draft, property, shape, order, uses, bag, applied));
    }
  });

  draft.ir.fields = [...leadingBaseFields(draft), ...declared, ...trailingBaseFields(draft)];
  checkColumns(draft.ir, bag);
  for (const rule of applied) rule.check((message, hint) => bag.error(rule.span, `${rule.subject}: ${message}`, hint));

  draft.ir.options.versioned = draft.versioned ? { diffOnly: draft.versioned.diffOnly, required: draft.versionedRequired } : null;
  return draft.ir;
}

function newDraft(facts: ModelFacts): ModelDraft {
  return {
    ir: {
      name: facts.name,
      table: tableName(facts.name),
      ...(facts.description ? { description: facts.description } : {}),
      fields: [],
      relationProperties: [],
      relations: [],
      options: {
        softDelete: null,
        versioned: null,
        singleton: false,
        headless: false,
        aggregate: false,
        export: false,
        maxExportRows: 100000,
        globalSearch: false,
        optimisticLock: false,
        cursorField: null,
        indices: [],
        defaultLocale: null,
        localeMode: null,
        adapter: null,
        queryLimits: {},
      },
      span: facts.span,
      files: facts.files,
    },
    base: { id: new Set(), created_at: new Set(), updated_at: new Set() },
    versionedRequired: false,
  };
}

/** Parse the `@mfx` texts of one declaration, reporting malformed pieces; uses come back in catalogue order. */
function readUses(texts: string[], span: Span, subject: string, bag: DiagnosticBag): DirectiveUse[] {
  const uses: DirectiveUse[] = [];
  for (const text of texts) {
    const parsed = parseDirectives(text);
    for (const problem of parsed.problems) bag.error(span, `${subject}: ${problem.message}`, problem.hint);
    uses.push(...parsed.uses);
  }
  // Unknown names sort first so their warnings come in the order written.
  return uses.sort((a, b) => (ORDER.get(a.name) ?? -1) - (ORDER.get(b.name) ?? -1));
}

function warnUnknown(use: DirectiveUse, candidates: (row: DirectiveRow) => boolean, span: Span, subject: string, bag: DiagnosticBag): void {
  const names = CATALOGUE.filter(candidates).map((row) => row.name);
  bag.warning(span, `${subject}: unknown directive '${use.name}' is ignored`, didYouMean(use.name, names));
}

/** Report a directive given twice where once is the most it can mean. */
function isRepeated(use: DirectiveUse, seen: Set<string>, span: Span, subject: string, bag: DiagnosticBag): boolean {
  if (!seen.has(use.name)) {
    seen.add(use.name);
    return false;
  }
  bag.error(span, `${subject}: '${use.name}' is given twice`, 'Keep one of them');
  return true;
}

/** Run a parse or apply step, turning a DirectiveProblem into a diagnostic. */
function attempt<T>(step: () => T, use: DirectiveUse, span: Span, subject: string, bag: DiagnosticBag): T | typeof FAILED {
  try {
    return step();
  } catch (problem) {
    if (!(problem instanceof DirectiveProblem)) throw problem;
    bag.error(span, `${subject}: '${use.text}' is invalid: ${problem.message}`, problem.hint);
    return FAILED;
  }
}
const FAILED = Symbol('failed');

function applyModelDirectives(draft: ModelDraft, facts: ModelFacts, bag: DiagnosticBag, applied: Applied[]): void {
  const subject = facts.name;
  const span = facts.span;
  const seen = new Set<string>();
  for (const use of readUses(facts.directives, span, subject, bag)) {
    const row = DIRECTIVES.get(use.name);
    if (!row) {
      warnUnknown(use, (r) => r.model !== undefined, span, subject, bag);
      continue;
    }
    const rule = row.model;
    if (!rule) {
      bag.error(span, `${subject}: '${use.name}' is a property directive, not a model directive`, `Move it to the @mfx of a property of ${subject}`);
      continue;
    }
    if (!rule.repeatable && isRepeated(use, seen, span, subject, bag)) continue;
    if (use.options.length > 0) {
      bag.error(span, `${subject}: '${use.text}' is invalid: '${use.name}' takes no ';' options`);
      continue;
    }
    const value = attempt(() => rule.parse(use), use, span, subject, bag);
    if (value === FAILED) continue;
    if (attempt(() => rule.apply(value, draft), use, span, subject, bag) === FAILED) continue;
    if (rule.check) applied.push({ check: (report) => rule.check!(value, draft, report), subject, span });
  }
}

function applySoftDeleteEmbeds(draft: ModelDraft, facts: ModelFacts, bag: DiagnosticBag): void {
  if (facts.embeds.length > 1) {
    bag.error(facts.span, `${facts.name}: extends both SoftDelete and SoftDeleteFlag`, 'A model has one soft-delete marker; extend only one of them');
    return;
  }
  const embed = facts.embeds[0];
  if (!embed) return;
  const type = embed === 'SoftDeleteFlag' ? 'boolean' : 'timestamp';
  const directive = draft.ir.options.softDelete;
  if (directive && directive.type !== type) {
    bag.error(
      facts.span,
      `${facts.name}: '${type === 'boolean' ? 'soft_delete' : 'soft_delete:flag'}' contradicts the ${embed} embed`,
      `Drop the directive or extend ${embed === 'SoftDelete' ? 'SoftDeleteFlag' : 'SoftDelete'} instead`,
    );
    return;
  }
  const column = type === 'boolean' ? 'is_deleted' : 'deleted_at';
  draft.ir.options.softDelete = { field: column, column, type };
}

function buildField(
  draft: ModelDraft,
  property: PropertyFacts,
  shape: ValueShape,
  order: number,
  uses: DirectiveUse[],
  bag: DiagnosticBag,
  applied: Applied[],
): FieldIR {
  const subject = `${draft.ir.name}.${property.name}`;
  const span = property.span;
  const field = newField({
    name: property.name,
    type: shape.type,
    items: shape.items,
    nullable: property.nullable,
    description: property.description,
    span,
    order,
  });
  const ctx: FieldContext = { model: draft, field, shape, present: new Set(uses.map((u) => u.name)), span };
  const seen = new Set<string>();

  for (const use of uses) {
    const row = DIRECTIVES.get(use.name);
    if (!row) {
      warnUnknown(use, (r) => r.field !== undefined, span, subject, bag);
      continue;
    }
    const rule = row.field;
    if (!rule) {
      if (row.relationProperty) {
        bag.error(span, `${subject}: '${use.name}' applies to properties typed as an array of models`, `${property.name} is ${TYPE_LABELS[field.type]}`);
      } else {
        bag.error(span, `${subject}: '${use.name}' is a model directive, not a property directive`, `Move it to the @mfx of interface ${draft.ir.name}`);
      }
      continue;
    }
    if (isRepeated(use, seen, span, subject, bag)) continue;
    const value = attempt(() => rule.parse(use), use, span, subject, bag);
    if (value === FAILED) {
      rule.recover?.(use, ctx);
      continue;
    }
    if (use.options.length > 0 && !rule.options) {
      bag.error(span, `${subject}: '${use.text}' is invalid: '${use.name}' takes no ';' options`);
      continue;
    }
    const fits = rule.fits ? rule.fits(ctx) : !rule.types || rule.types.includes(field.type);
    if (!fits) {
      const hint = rule.typeHints?.[field.type] ?? (rule.types && `It applies to ${rule.types.map((t) => TYPE_LABELS[t].replace(/^an? /, '')).join(', ')} fields`);
      bag.error(span, `${subject}: '${use.name}' does not apply to ${TYPE_LABELS[field.type]} field`, hint);
      continue;
    }
    if (rule.requires && !ctx.present.has(rule.requires)) {
      bag.error(span, `${subject}: '${use.name}' needs '${rule.requires}' on the same property`, `Add '${rule.requires}' to the @mfx of ${property.name}`);
      continue;
    }
    for (const [other, reason] of Object.entries(rule.conflicts ?? {})) {
      if (ctx.present.has(other)) bag.error(span, `${subject}: '${use.name}' cannot be combined with '${other}'`, reason);
    }
    if (attempt(() => rule.apply(value, ctx), use, span, subject, bag) === FAILED) continue;
    if (rule.check) applied.push({ check: (report) => rule.check!(value, ctx, report), subject, span });
  }
  return field;
}

function applyRelationPropertyDirectives(relation: RelationPropertyIR, uses: DirectiveUse[], subject: string, bag: DiagnosticBag): void {
  const seen = new Set<string>();
  for (const use of uses) {
    const row = DIRECTIVES.get(use.name);
    if (!row) {
      warnUnknown(use, (r) => r.relationProperty !== undefined, relation.span, subject, bag);
      continue;
    }
    const rule = row.relationProperty;
    if (!rule) {
      bag.warning(
        relation.span,
        `${subject}: '${use.name}' has no effect on a relation property`,
        'Relation properties are not columns; put column directives on the foreign-key field',
      );
      continue;
    }
    if (rule.manyOnly && !relation.many) {
      relation.reported = true;
      bag.error(
        relation.span,
        `${subject}: '${use.name}' applies to array properties`,
        use.name === 'relation'
          ? `Put 'relation:${relation.name}' on the foreign-key field; ${relation.name} is its companion`
          : `Declare ${relation.name} as ${relation.target}[]`,
      );
      continue;
    }
    if (isRepeated(use, seen, relation.span, subject, bag)) continue;
    if (use.options.length > 0) {
      bag.error(relation.span, `${subject}: '${use.text}' is invalid: '${use.name}' takes no ';' options here`);
      continue;
    }
    const value = attempt(() => rule.parse(use), use, relation.span, subject, bag);
    if (value === FAILED) relation.reported = true;
    else rule.apply(value, relation);
  }
}

/**
 * Two fields may not share a column or a JSON name; base columns count
 * (spec: "a field that maps to the same column as another field (including
 * a base column) is refused").
 */
function checkColumns(model: ModelIR, bag: DiagnosticBag): void {
  const columns = new Map<string, FieldIR>();
  const names = new Map<string, FieldIR>();
  const owner = (field: FieldIR) => (field.base ? `the base column ${field.name}` : `${model.name}.${field.name}`);
  const ordered = [...model.fields.filter((f) => f.base), ...model.fields.filter((f) => !f.base)];
  for (const field of ordered) {
    const subject = `${model.name}.${field.name}`;
    const nameOwner = names.get(field.name);
    if (nameOwner?.base === 'deleted_at' || nameOwner?.base === 'is_deleted') {
      bag.error(field.span, `${subject}: '${field.name}' is the soft-delete marker of ${model.name}`, 'Rename the property; soft delete already provides this column');
      continue;
    }
    if (nameOwner?.base) {
      bag.error(field.span, `${subject}: '${field.name}' is a base column of every model`, 'Rename the property: Model already provides id, created_at and updated_at');
      continue;
    }
    const stored = field.encrypted?.unique ? [field.column, `${field.column}_hmac`] : [field.column];
    const clash = stored.find((column) => columns.has(column));
    if (clash !== undefined) {
      bag.error(
        field.span,
        `${subject}: column '${clash}' is already used by ${owner(columns.get(clash)!)}`,
        'Give one of them another column with db:NAME',
      );
      continue;
    }
    names.set(field.name, field);
    for (const column of stored) columns.set(column, field);
  }
}
