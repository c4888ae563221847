// Every impossible declaration is an error at file:line:col naming the model,
// the property and the directive, with a hint. One fixture file per case under
// fixtures/compiler/diagnostics/; all are compiled together, once, and each
// test checks that its file produces exactly the expected diagnostics.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { BuildResult } from '@mfx/compiler';
import { compile, fixture, locate, type Seen, seen } from './support.js';

const dir = fixture('compiler', 'diagnostics');
let result: BuildResult;

before(() => {
  result = compile(readdirSync(dir).map((file) => join(dir, file)));
});

/** An expected error (or warning) at the first occurrence of `at` in the case's file. */
function expected(file: string, at: string, text: string, severity: Seen['severity'] = 'error'): Seen {
  return { severity, ...locate(join(dir, file), at), text };
}

function check(file: string, ...diagnostics: Seen[]): void {
  assert.deepEqual(seen(result.diagnostics, join(dir, file)), diagnostics);
}

/** The scheduled forms refused in scheduled.ts: where, and the message after `ScheduledForms.`. */
const SCHEDULED_FORMS: [string, string][] = [
  ['hideAt:', "hideAt: 'scheduled;soft-delete' needs a soft-delete model. Add 'soft_delete' to the model's @mfx or extend SoftDelete"],
  ['bothAt:', "bothAt: 'scheduled;soft-delete;hard-delete' is invalid: 'scheduled' takes exactly one action, not soft-delete and hard-delete. Declare another nullable Date field for each further action"],
  ['mixedAt:', "mixedAt: 'scheduled;field=state;to=live;hard-delete' is invalid: 'scheduled' takes exactly one action, not field=NAME and hard-delete. Declare another nullable Date field for each further action"],
  ['valuedAt:', "valuedAt: 'scheduled;hard-delete=yes' is invalid: 'hard-delete' takes no value. Write 'scheduled;hard-delete'"],
  ['twiceAt:', "twiceAt: 'scheduled;field=state;to=live;to=draft' is invalid: 'to' is given twice. Keep one of them"],
  ['noToAt:', "noToAt: 'scheduled;field=state' is invalid: 'scheduled;field=NAME' needs both field= and to=. Write 'scheduled;soft-delete', 'scheduled;hard-delete', 'scheduled;field=NAME;to=VALUE' or 'scheduled;field=NAME;from=OLD;to=NEW'"],
  ['noFieldAt:', "noFieldAt: 'scheduled;to=live' is invalid: 'scheduled;field=NAME' needs both field= and to=. Write 'scheduled;soft-delete', 'scheduled;hard-delete', 'scheduled;field=NAME;to=VALUE' or 'scheduled;field=NAME;from=OLD;to=NEW'"],
  ['typoAt:', "typoAt: 'scheduled;field=stat' names no field of ScheduledForms. Did you mean 'state'?"],
  ['outsideAt:', "outsideAt: 'scheduled' to=published is not one of the enum values of state (draft, live). Use one of the enum values, or add it to the enum"],
  ['fromOutsideAt:', "fromOutsideAt: 'scheduled' from=archived is not one of the enum values of state (draft, live). Use one of the enum values, or add it to the enum"],
  ['countAt:', "countAt: 'scheduled' value for count is invalid: 'many' is not a number. Write a decimal number such as 0, 10 or 2.5"],
  ['nullAt:', "nullAt: 'scheduled' value for state is invalid: null is not allowed on a non-nullable field. Make the field nullable (`| null`) or give another value"],
  ['selfAt:', "selfAt: 'scheduled;field=selfAt' names the scheduled field itself. The runner clears the scheduled time once it sets the field; name another field"],
];

describe('diagnostics', () => {
  it('the build fails and writes nothing', () => {
    assert.equal(result.ok, false);
    assert.equal(result.manifest, undefined);
  });

  it('adapter:NAME needs a name an adapter can be registered under', () => {
    check(
      'adapter-name.ts',
      expected(
        'adapter-name.ts',
        'AdapterWithSpace',
        "AdapterWithSpace: 'adapter:my db' is invalid: 'my db' is not an adapter name. Write adapter:NAME where an adapter name starts with a letter, then letters, digits, _ or -, at most 63 characters (such as analytics or reports_pg)",
      ),
      expected('adapter-name.ts', 'AdapterWithoutName', "AdapterWithoutName: 'adapter' is invalid: 'adapter' needs a value. Write 'adapter:NAME'"),
    );
  });

  it('min and max on a string point to minlen and maxlen', () => {
    check(
      'min-max-on-string.ts',
      expected('min-max-on-string.ts', 'title:', "MinOnString.title: 'min' does not apply to a string field. Use 'minlen:N' / 'maxlen:N' to bound a string's length"),
      expected('min-max-on-string.ts', 'subtitle:', "MinOnString.subtitle: 'max' does not apply to a string field. Use 'minlen:N' / 'maxlen:N' to bound a string's length"),
    );
  });

  it('minlen and maxlen on a number point to min and max', () => {
    check(
      'minlen-on-number.ts',
      expected('minlen-on-number.ts', 'price:', "MinlenOnNumber.price: 'minlen' does not apply to a number field. Use 'min:N' / 'max:N' to bound a number"),
      expected('minlen-on-number.ts', 'stock:', "MinlenOnNumber.stock: 'maxlen' does not apply to an Int field. Use 'min:N' / 'max:N' to bound a number"),
    );
  });

  it('encrypted cannot be filterable or sortable', () => {
    check(
      'encrypted-query.ts',
      expected(
        'encrypted-query.ts',
        'ssn:',
        "EncryptedQuery.ssn: 'encrypted' cannot be combined with 'filterable'. Encrypted values cannot be filtered; drop filterable (encrypted,unique still allows exact lookups)",
      ),
      expected('encrypted-query.ts', 'iban:', "EncryptedQuery.iban: 'encrypted' cannot be combined with 'sortable'. Encrypted values cannot be sorted; drop sortable"),
    );
  });

  it('writeonly cannot be filterable, sortable or searchable (the parser would refuse what the document advertises)', () => {
    check(
      'writeonly-query.ts',
      expected(
        'writeonly-query.ts',
        'pin:',
        "WriteonlyQuery.pin: 'writeonly' cannot be combined with 'filterable'. A writeonly value never leaves the server, and a filter would let clients probe it; drop filterable",
      ),
      expected(
        'writeonly-query.ts',
        'rank:',
        "WriteonlyQuery.rank: 'writeonly' cannot be combined with 'sortable'. A writeonly value never leaves the server, and sorting by it would let clients probe it; drop sortable",
      ),
      expected(
        'writeonly-query.ts',
        'answer:',
        "WriteonlyQuery.answer: 'writeonly' cannot be combined with 'searchable'. A writeonly value never leaves the server, and a search would let clients probe it; drop searchable",
      ),
    );
  });

  it('searchable applies to plain text only: not localized, not numbers', () => {
    check(
      'searchable.ts',
      expected(
        'searchable.ts',
        'headline:',
        "SearchableMisuse.headline: 'searchable' does not apply to a Localized field. Full-text search covers plain text columns only and a localized field is a JSON map; drop searchable",
      ),
      expected('searchable.ts', 'rank:', "SearchableMisuse.rank: 'searchable' does not apply to an Int field. It applies to string fields"),
    );
  });

  it('a singleton model may not declare required fields', () => {
    check(
      'required-singleton.ts',
      expected(
        'required-singleton.ts',
        'siteName:',
        "SiteSettings.siteName: 'required' is not allowed on a singleton model (its one row is created from defaults). Give the field a default:V or make it nullable instead",
      ),
    );
  });

  it('required cannot be readonly or hidden', () => {
    check(
      'required-access.ts',
      expected(
        'required-access.ts',
        'serial:',
        "RequiredAccess.serial: 'required' cannot be combined with 'readonly'. A readonly field is stripped from every write, so a client can never send it; drop one of them",
      ),
      expected(
        'required-access.ts',
        'secretCode:',
        "RequiredAccess.secretCode: 'required' cannot be combined with 'hidden'. A hidden field is absent from the create schema, so a client can never send it; drop one of them",
      ),
    );
  });

  it('two properties may not map to one column, base columns included', () => {
    check(
      'duplicate-column.ts',
      expected('duplicate-column.ts', 'heading:', "DuplicateColumn.heading: column 'title' is already used by DuplicateColumn.title. Give one of them another column with db:NAME"),
      expected('duplicate-column.ts', 'externalId:', "DuplicateColumn.externalId: column 'id' is already used by the base column id. Give one of them another column with db:NAME"),
      expected(
        'duplicate-column.ts',
        'created_at:',
        "DuplicateColumn.created_at: 'created_at' is a base column of every model. Rename the property: Model already provides id, created_at and updated_at",
      ),
    );
  });

  it('base: accepts only the spec options of id, created_at and updated_at', () => {
    check(
      'base-options.ts',
      expected(
        'base-options.ts',
        'BaseOptionUnknown',
        "BaseOptionUnknown: 'base:created_at=searchable' is invalid: 'searchable' is not a base option of created_at. created_at accepts filterable, sortable, index, hidden",
      ),
      expected(
        'base-options.ts',
        'BaseColumnUnknown',
        "BaseColumnUnknown: 'base:deleted_at=filterable' is invalid: 'deleted_at' is not a base column. base: applies to id, created_at, updated_at",
      ),
    );
  });

  it('the cursor field must be sortable: created_at through base:, other fields through sortable', () => {
    check(
      'cursor-field.ts',
      expected(
        'cursor-field.ts',
        'CursorNotSortable',
        "CursorNotSortable: 'cursor_field:created_at' needs created_at to be sortable. Add 'base:created_at=sortable' to the model's @mfx",
      ),
      expected(
        'cursor-field.ts',
        'CursorFieldNotSortable',
        "CursorFieldNotSortable: 'cursor_field:publishedAt' needs publishedAt to be sortable. Add 'sortable' to the @mfx of CursorFieldNotSortable.publishedAt",
      ),
      expected(
        'cursor-field.ts',
        'rank:',
        "CursorOnProperty.rank: 'cursor_field:rank' needs rank to be sortable. Add 'sortable' to the @mfx of CursorOnProperty.rank",
      ),
    );
    const cursor = result.models.find((m) => m.name === 'CursorSortable');
    assert.equal(cursor?.options.cursorField, 'created_at');
  });

  it('an explicit relation needs a companion typed as a registered model', () => {
    check(
      'relation-companion.ts',
      expected(
        'relation-companion.ts',
        'authorId:',
        "CompanionProblems.authorId: 'relation:author' has no companion property author. Add 'author?: TargetModel;' to CompanionProblems; its type names the model this foreign key points to",
      ),
      expected(
        'relation-companion.ts',
        'ghostId:',
        "CompanionProblems.ghostId: 'relation:ghost' points to Ghost, which is not a model (it is not exported)",
      ),
      expected(
        'relation-companion.ts',
        'reviewerId:',
        "CompanionProblems.reviewerId: 'relation:reviewer' needs the companion CompanionProblems.reviewer to be typed as a model. Declare it as 'reviewer?: TargetModel;', an interface that extends Model",
      ),
    );
  });

  it('through: must name a model with foreign keys to both sides', () => {
    check(
      'through.ts',
      expected(
        'through.ts',
        'labels?:',
        "ThroughProblems.labels: 'through:Nowhere' names no model. Declare a junction model Nowhere with foreign keys to ThroughProblems and Label",
      ),
      expected(
        'through.ts',
        'moreLabels?:',
        "ThroughProblems.moreLabels: HalfBridge is not a junction of ThroughProblems and Label: it has no foreign key to ThroughProblems. Add 'throughProblemsId: string' to HalfBridge",
      ),
    );
  });

  it('onDelete:setNull needs a nullable foreign key', () => {
    check(
      'set-null.ts',
      expected(
        'set-null.ts',
        'ownerId:',
        "SetNullOnRequired.ownerId: 'onDelete:setNull' needs a nullable foreign key, but ownerId is not nullable. Declare it as 'ownerId: string | null', or use onDelete:cascade or onDelete:restrict",
      ),
    );
  });

  it('an enum may not have an empty option', () => {
    check(
      'enum-empty.ts',
      expected(
        'enum-empty.ts',
        'grade:',
        "EnumEmptyOption.grade: 'enum:a||b' is invalid: 'a||b' has an empty option. Remove the extra '|' or fill in the missing value",
      ),
    );
  });

  it('a bound must be a number', () => {
    check(
      'unparsable-number.ts',
      expected('unparsable-number.ts', 'weight:', "UnparsableNumber.weight: 'min:abc' is invalid: 'abc' is not a number. Write a decimal number such as 0, 10 or 2.5"),
    );
  });

  it('a default must be castable to the field type and inside the enum', () => {
    check(
      'default-enum.ts',
      expected(
        'default-enum.ts',
        'status:',
        'DefaultOutsideEnum.status: default "deleted" is not one of the enum values (draft, published). Use one of the enum values, or add it to the enum',
      ),
      expected(
        'default-enum.ts',
        'count:',
        "DefaultOutsideEnum.count: 'default:many' is invalid: 'many' is not a 32-bit integer. Write a whole number from -2147483648 to 2147483647",
      ),
    );
  });

  it('scheduled: a nullable timestamp, one action, a soft-delete model, an existing field, values of its type and enum', () => {
    check(
      'scheduled.ts',
      expected(
        'scheduled.ts',
        'expiresAt:',
        "ScheduledMisuse.expiresAt: 'scheduled;hard-delete' is invalid: 'scheduled' needs a nullable timestamp. Declare the field as Date | null: null means nothing is scheduled",
      ),
      expected(
        'scheduled.ts',
        'purgeOn:',
        "ScheduledMisuse.purgeOn: 'scheduled' does not apply to a string field. The runner fires when the time passes, so declare the field as Date | null",
      ),
      ...SCHEDULED_FORMS.map(([at, text]) => expected('scheduled.ts', at, `ScheduledForms.${text}`)),
    );
  });

  it('file needs a string field (the column stores the storage key)', () => {
    check(
      'file-non-string.ts',
      expected(
        'file-non-string.ts',
        'avatar:',
        "FileOnNumber.avatar: 'file' does not apply to a number field. A file field stores the storage key, so declare it as string (or string | null)",
      ),
    );
  });

  it('an unknown directive is a warning with a did-you-mean suggestion', () => {
    check(
      'unknown-directive.ts',
      expected('unknown-directive.ts', 'UnknownDirective', "UnknownDirective: unknown directive 'versiond' is ignored. Did you mean 'versioned'?", 'warning'),
      expected('unknown-directive.ts', 'name:', "UnknownDirective.name: unknown directive 'filterabel' is ignored. Did you mean 'filterable'?", 'warning'),
    );
  });

  it('a property typed as a model must be a companion, a has-many with an inverse, or a many-to-many', () => {
    check(
      'model-properties.ts',
      expected(
        'model-properties.ts',
        'reviews?:',
        "Person.reviews: Review has several relations that could be the inverse (writer, checker). Pick one with 'relation:KEY' on reviews, e.g. relation:writer",
      ),
      expected(
        'model-properties.ts',
        'reviewer?:',
        "ModelProperties.reviewer: a property typed as a model must be the companion of a foreign key. Add '/** @mfx relation:reviewer */ reviewerId: string;' to ModelProperties, or declare 'reviewer?: Person[]' for a has-many",
      ),
      expected(
        'model-properties.ts',
        'people?:',
        "ModelProperties.people: Person has no foreign key to ModelProperties. Add 'modelPropertiesId: string' to Person (or a relation:NAME foreign key), or use through:Junction for many-to-many",
      ),
    );
  });

  it('types that cannot be a column are refused', () => {
    check(
      'unsupported-type.ts',
      expected(
        'unsupported-type.ts',
        'onChange:',
        "UnsupportedTypes.onChange: type '() => void' cannot be stored. Functions cannot be stored; drop the property or exclude it with @mfx -",
      ),
      expected(
        'unsupported-type.ts',
        'amount:',
        "UnsupportedTypes.amount: type 'string | number' cannot be stored. A column has one type; use a single type, or a union of literals of one type",
      ),
      expected(
        'unsupported-type.ts',
        'parent:',
        "BaseTyped.parent: type 'Model' cannot be stored. Model is a base to extend, not a column type; type the property as a concrete model with its foreign key (owner?: User plus ownerId: string), or use Record<string, unknown> for free-form JSON",
      ),
    );
  });

  it('a field named __proto__ is refused', () => {
    check(
      'reserved-name.ts',
      expected('reserved-name.ts', '__proto__:', "ProtoNamed.__proto__: '__proto__' cannot be a field name. JavaScript objects treat it as their prototype; rename the property"),
    );
  });

  it('every fixture file is covered by a case above', () => {
    const files = new Set(result.diagnostics.map((d) => d.span?.file));
    assert.equal(files.size, readdirSync(dir).length);
  });
});
