/**
 * The generated parts of the user documentation: the directive reference
 * (from the compiler's directive catalogue), the filter operators (from the
 * runtime's operator catalogue) and the settings (from the settings table).
 *
 * Each part sits in a Markdown file between two markers,
 *
 *     <!-- generated:NAME ... -->
 *     ...
 *     <!-- end generated:NAME -->
 *
 * and everything outside the markers is hand-written. `npm run docs`
 * rewrites the parts; test/docs fails while a committed file differs.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FieldType } from '@mfx/runtime/manifest';
import { CATALOGUE } from '../../compiler/src/ir/directives/catalogue.js';
import type { DirectiveRow } from '../../compiler/src/ir/directives/rule.js';
import { type Command, settingRows, type Setting } from '../../runtime/src/config/settings.js';
import { commands, usage } from '../../runtime/src/cli/args.js';
import { appliesTo, OPERATORS, type OperatorRow } from '../../runtime/src/query/operators.js';

export const root = resolve(import.meta.dirname, '../..');

/** How a user declares each stored type (docs/models.md explains them). */
const TYPE_NAMES: Record<FieldType, string> = {
  string: '`string`',
  number: '`number`',
  integer: '`Int`',
  bigint: '`bigint`',
  boolean: '`boolean`',
  timestamp: '`Date`',
  json_array: 'arrays',
  json_object: 'objects',
  localized: '`Localized`',
};
const ALL_TYPES = Object.keys(TYPE_NAMES) as FieldType[];

const code = (text: string) => `\`${text}\``;
/** A table cell: no line breaks, and `|` escaped so it does not end the cell. */
const cell = (text: string) => text.replace(/\n/g, ' ').replace(/\|/g, '\\|');

function typeList(types: readonly FieldType[]): string {
  if (ALL_TYPES.every((type) => types.includes(type))) return 'every type';
  return types.map((type) => TYPE_NAMES[type]).join(', ');
}

// ── Directives ─────────────────────────────────────────────────────────

/** Where a directive may be written, in words. */
function places(row: DirectiveRow): string[] {
  const out: string[] = [];
  if (row.field) out.push(row.field.types ? `a property (${typeList(row.field.types)})` : 'a property');
  if (row.relationProperty) out.push(row.relationProperty.manyOnly ? 'a relation property (arrays of models)' : 'a relation property');
  if (row.model) out.push(row.model.repeatable ? "the interface's `@mfx` (repeatable)" : "the interface's `@mfx`");
  return out;
}

/** Every conflict of a directive, whichever side of the pair declares it. */
function conflictsOf(row: DirectiveRow): [string, string][] {
  const own = Object.entries(row.field?.conflicts ?? {});
  const theirs = CATALOGUE.flatMap((other): [string, string][] => {
    const reason = other.field?.conflicts?.[row.name];
    return reason === undefined ? [] : [[other.name, reason]];
  });
  return [...own, ...theirs];
}

const forms = (row: DirectiveRow) => row.docs?.syntax ?? [row.name];

function directiveSection(row: DirectiveRow): string {
  const lines = [`### ${code(row.name)}`, '', `${row.summary[0].toUpperCase()}${row.summary.slice(1)}.`, ''];
  lines.push(`- **Written:** ${forms(row).map(code).join(' or ')}`);
  lines.push(`- **On:** ${places(row).join('; ')}`);
  if (row.field?.requires) lines.push(`- **Needs:** ${code(row.field.requires)} on the same property`);
  for (const [other, reason] of conflictsOf(row)) lines.push(`- **Not with ${code(other)}:** ${reason}`);
  if (row.excludes) lines.push('- **Read first:** the property is dropped before any other directive is read');
  lines.push('');
  if (row.docs?.text) lines.push(row.docs.text, '');
  if (row.docs?.limits) lines.push(`> **Not yet:** ${row.docs.limits}`, '');
  if (row.docs?.example) lines.push('```ts', row.docs.example, '```', '');
  return lines.join('\n');
}

/** The directive reference: a table of every directive, then a section each, in catalogue order. */
export function renderDirectives(): string {
  const anchor = (name: string) => `#${name.toLowerCase().replace(/[^a-z0-9_ -]/g, '').replace(/ /g, '-')}`;
  const table = [
    '| Directive | Written | On | Does |',
    '|---|---|---|---|',
    ...CATALOGUE.map((row) => {
      const on = [row.field && 'property', row.relationProperty && 'relation', row.model && 'model'].filter(Boolean).join(', ');
      return `| [${code(row.name)}](${anchor(row.name)}) | ${cell(forms(row).map(code).join(', '))} | ${on} | ${cell(row.summary)} |`;
    }),
  ];
  return [`${CATALOGUE.length} directives.`, '', ...table, '', ...CATALOGUE.map(directiveSection)].join('\n').trimEnd();
}

// ── Filter operators ───────────────────────────────────────────────────

const written: Record<OperatorRow['arity'], (op: string) => string> = {
  none: (op) => `field:${op}`,
  one: (op) => `field:${op}:value`,
  list: (op) => `field:${op}:a,b,c`,
  pair: (op) => `field:${op}:low,high`,
};

/** The filter operators: how each is written, which field types it applies to, what it matches. */
export function renderOperators(): string {
  const rows = [...OPERATORS.values()].map((row) => {
    const types = ALL_TYPES.filter((type) => appliesTo(row, type));
    return `| ${code(row.op)} | ${code(written[row.arity](row.op))} | ${typeList(types)} | ${cell(row.doc)} |`;
  });
  return ['| Operator | Written | Fields | Matches |', '|---|---|---|---|', ...rows].join('\n');
}

// ── Settings ───────────────────────────────────────────────────────────

function defaultOf(setting: Setting<unknown>): string {
  const value = setting.default;
  if (value === undefined) return '';
  if (setting.millis) return `${code(String(value))} ms`;
  return code(typeof value === 'string' ? value : JSON.stringify(value));
}

const flagOf = (setting: Setting<unknown>) => (setting.flag ? cell(code(`--${setting.flag.name}${setting.flag.placeholder ? ` ${setting.flag.placeholder}` : ''}`)) : '');
const envOf = (setting: Setting<unknown>) => (setting.env ? code(setting.env.name) : '');

/** The server settings: the keys of `createServer({...})`, with their variable and flag where `mfx serve` reads one. */
export function renderServerSettings(): string {
  const rows = settingRows
    .filter(([, setting]) => setting.scope === 'server')
    .map(([key, setting]) => `| ${code(key)} | ${defaultOf(setting)} | ${envOf(setting)} | ${flagOf(setting)} | ${cell(setting.doc)} |`);
  return ['| Key | Default | Environment | `mfx serve` flag | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The settings only the mfx commands read. */
export function renderCommandSettings(): string {
  const rows = settingRows
    .filter(([, setting]) => setting.scope === 'command')
    .map(
      ([key, setting]) =>
        `| ${code(key)} | ${flagOf(setting)} | ${envOf(setting)} | ${defaultOf(setting)} | ${(setting.commands ?? []).join(', ')} | ${cell(setting.doc)} |`,
    );
  return ['| Setting | Flag | Environment | Default | Commands | Meaning |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** What `mfx <command> --help` prints, for each command the settings table knows. */
export function renderUsage(): string {
  return (Object.keys(commands) as Command[]).map((command) => [`### \`mfx ${command}\``, '', '```text', usage(command).trimEnd(), '```'].join('\n')).join('\n\n');
}

// ── Files ──────────────────────────────────────────────────────────────

/** One generated part of a docs file. */
export interface GeneratedPart {
  file: string;
  name: string;
  /** Where the part comes from, named in its opening marker. */
  source: string;
  render(): string;
}

export const PARTS: readonly GeneratedPart[] = [
  { file: 'docs/directives.md', name: 'directives', source: 'compiler/src/ir/directives/', render: renderDirectives },
  { file: 'docs/query-language.md', name: 'operators', source: 'runtime/src/query/operators.ts', render: renderOperators },
  { file: 'docs/configuration.md', name: 'server-settings', source: 'runtime/src/config/settings.ts', render: renderServerSettings },
  { file: 'docs/configuration.md', name: 'command-settings', source: 'runtime/src/config/settings.ts', render: renderCommandSettings },
  { file: 'docs/configuration.md', name: 'usage', source: 'runtime/src/config/settings.ts', render: renderUsage },
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A file's text with each of its generated parts rewritten; throws when a
 * part's markers are missing.
 *
 * @example
 * regenerate('docs/query-language.md', text); // the text with the operator table up to date
 */
export function regenerate(file: string, text: string): string {
  let out = text;
  for (const part of PARTS.filter((p) => p.file === file)) {
    const pattern = new RegExp(`<!-- generated:${escapeRegExp(part.name)}\\b[^>]*-->\\n[\\s\\S]*?<!-- end generated:${escapeRegExp(part.name)} -->`);
    if (!pattern.test(out)) throw new Error(`${file} has no <!-- generated:${part.name} --> ... <!-- end generated:${part.name} --> markers`);
    const opening = `<!-- generated:${part.name}: written by npm run docs from ${part.source}; edit the source, not this part -->`;
    out = out.replace(pattern, () => `${opening}\n${part.render()}\n<!-- end generated:${part.name} -->`);
  }
  return out;
}

/** Every file with generated parts: its committed text and the text the generator writes. */
export function generatedFiles(): { file: string; committed: string; expected: string }[] {
  return [...new Set(PARTS.map((part) => part.file))].map((file) => {
    const committed = readFileSync(join(root, file), 'utf8');
    return { file, committed, expected: regenerate(file, committed) };
  });
}
