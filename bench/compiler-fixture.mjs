// Generates a large, realistic model set for the compiler benchmark: models
// spread over several files that import each other, fields of every type,
// directives on most of them, BelongsTo (convention and explicit), HasMany
// and ManyToMany relations through junction models.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

const FIRST = ['Customer', 'Order', 'Invoice', 'Product', 'Shipment', 'Supplier', 'Warehouse', 'Ticket', 'Project', 'Campaign',
  'Contract', 'Payment', 'Employee', 'Vehicle', 'Course', 'Patient', 'Device', 'Article', 'Event', 'Budget'];
const SECOND = ['', 'Note', 'Line', 'Review', 'Analysis', 'Matrix', 'Category', 'Status', 'Entry', 'Link'];

/** The model names, in generation order (every tenth is a junction). */
export function modelNames(count) {
  const names = [];
  for (let i = 0; names.length < count; i++) names.push(FIRST[i % FIRST.length] + SECOND[Math.floor(i / FIRST.length) % SECOND.length] + (i >= 200 ? String(Math.floor(i / 200)) : ''));
  return names;
}

const lowerFirst = (name) => name[0].toLowerCase() + name.slice(1);
const isJunction = (i) => i % 10 === 9;

/** The previous regular (non-junction) model, for the convention foreign key. */
function previousRegular(i) {
  for (let j = i - 1; j >= 0; j--) if (!isJunction(j)) return j;
  return -1;
}

function regularModel(i, names) {
  const name = names[i];
  const lines = [];
  const directives = ['base:created_at=filterable|sortable'];
  if (i % 4 === 0) directives.push('soft_delete');
  if (i % 5 === 0) directives.push('versioned');
  if (i % 3 === 0) directives.push('cursor_field:created_at');
  if (i % 7 === 0) directives.push('aggregate', 'export', 'export_max:5000');
  if (i % 2 === 0) directives.push(`index:idx_${lowerFirst(name)}_status=status|amount`);
  if (i % 11 === 0) directives.push('optimistic_lock');
  const embed = i % 6 === 1 ? ', SoftDelete' : '';
  lines.push(`/**\n * ${name}: generated model ${i}.\n * @mfx ${directives.join(', ')}\n */`);
  lines.push(`export interface ${name} extends Model${embed} {`);
  lines.push(`  /** Display name. @mfx required, minlen:1, maxlen:120, filterable, sortable, searchable */`, `  name: string;`);
  lines.push(`  /** @mfx unique, filterable */`, `  code: string;`);
  lines.push(`  /** @mfx enum:draft|active|archived, default:draft, filterable, sortable */`, `  status: string;`);
  lines.push(`  /** Size class. @mfx filterable */`, `  size: 'small' | 'medium' | 'large';`);
  lines.push(`  /** @mfx min:0, max:1000000, filterable, sortable */`, `  amount: number;`);
  lines.push(`  /** @mfx min:0, default:0, sortable */`, `  quantity: Int;`);
  lines.push(`  total: bigint | null;`);
  lines.push(`  /** @mfx filterable, default:true */`, `  active: boolean;`);
  lines.push(`  /** @mfx filterable, sortable */`, `  startsAt: Date | null;`);
  lines.push(`  /** @mfx filterable */`, `  tags: string[];`);
  lines.push(`  scores: number[];`);
  lines.push(`  attributes: Record<string, unknown> | null;`);
  lines.push(`  address: Address | null;`);
  if (i % 3 === 0) lines.push(`  /** @mfx split, default_locale:en */`, `  title: Localized;`);
  if (i % 4 === 1) lines.push(`  /** @mfx writeonly, minlen:8 */`, `  secret: string;`);
  if (i % 5 === 2) lines.push(`  /** @mfx hidden */`, `  internalNote: string | null;`);
  if (i % 8 === 3) lines.push(`  /** @mfx encrypted, unique, key:pii */`, `  taxNumber: string;`);
  if (i % 9 === 4) lines.push(`  /** @mfx file, max_size:5MB, accept:image/*|application/pdf */`, `  attachment: string | null;`);
  if (i % 6 === 5) lines.push(`  /** @mfx scheduled;field=status;to=archived */`, `  archiveAt: Date | null;`);
  lines.push(`  /** @mfx immutable, filterable */`, `  externalRef: string | null;`);

  const previous = previousRegular(i);
  if (previous >= 0) lines.push(`  /** @mfx filterable */`, `  ${lowerFirst(names[previous])}Id: string | null;`);
  const ownerIndex = previousRegular(previous);
  if (ownerIndex >= 0) {
    lines.push(`  /** @mfx relation:owner;onDelete:cascade, filterable */`, `  ownerId: string;`, `  owner?: ${names[ownerIndex]};`);
  }
  // HasMany: the next regular model holds a convention foreign key to this one.
  const next = isJunction(i + 1) ? i + 2 : i + 1;
  if (next < names.length) lines.push(`  children?: ${names[next]}[];`);
  // ManyToMany: the junction right after the pair (i, i + 1) when i + 2 is a junction.
  if (isJunction(i + 2) && i + 2 < names.length) lines.push(`  /** @mfx through:${names[i + 2]} */`, `  partners?: ${names[i + 1]}[];`);
  if (isJunction(i + 1) && i + 1 < names.length) lines.push(`  /** @mfx through:${names[i + 1]} */`, `  partners?: ${names[i - 1]}[];`);
  lines.push('}');
  return lines.join('\n');
}

function junctionModel(i, names) {
  const left = names[i - 2];
  const right = names[i - 1];
  return [
    `/** Links ${left} and ${right}. @mfx unique_index:${lowerFirst(names[i])}_pair=leftId|rightId */`,
    `export interface ${names[i]} extends Model {`,
    `  /** @mfx relation:left;onDelete:cascade, filterable */`,
    `  leftId: string;`,
    `  left?: ${left};`,
    `  /** @mfx relation:right;onDelete:cascade, filterable */`,
    `  rightId: string;`,
    `  right?: ${right};`,
    `  /** @mfx min:0, default:0 */`,
    `  position: Int;`,
    '}',
  ].join('\n');
}

/**
 * Write `count` models over `files` files into `dir`, plus a tsconfig.json and
 * a node_modules link so `@mfx/runtime` resolves. Returns the entry files.
 */
export function generateFixture(dir, { count = 200, files = 10 } = {}) {
  const names = modelNames(count);
  const perFile = Math.ceil(count / files);
  const fileOf = (i) => Math.floor(i / perFile);
  mkdirSync(join(dir, 'models'), { recursive: true });
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  const entries = [];
  for (let f = 0; f * perFile < count; f++) {
    const indexes = names.map((_, i) => i).filter((i) => fileOf(i) === f);
    const bodies = indexes.map((i) => (isJunction(i) ? junctionModel(i, names) : regularModel(i, names)));
    const text = bodies.join('\n\n');
    const imports = new Map();
    for (const [i, name] of names.entries()) {
      if (fileOf(i) !== f && new RegExp(`\\b${name}\\b`).test(text)) {
        const file = `./models-${String(fileOf(i)).padStart(2, '0')}.js`;
        imports.set(file, [...(imports.get(file) ?? []), name]);
      }
    }
    const header = [
      `// Generated by bench/compiler-fixture.mjs.`,
      `import type { Int, Localized, Model, SoftDelete } from '@mfx/runtime';`,
      ...[...imports].map(([file, list]) => `import type { ${list.join(', ')} } from '${file}';`),
      '',
      `/** A postal address, stored as a JSON object. */`,
      `interface Address {`,
      `  street: string;`,
      `  city: string;`,
      `  zip?: string;`,
      `}`,
      '',
    ].join('\n');
    const path = join(dir, 'models', `models-${String(f).padStart(2, '0')}.ts`);
    writeFileSync(path, `${header}\n${text}\n`);
    entries.push(path);
  }
  writeFileSync(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: true,
          noEmit: true,
          types: ['node'],
          // @mfx/runtime from its sources, as everything in this repository runs (scripts/sources.mjs).
          customConditions: ['mfx-source'],
        },
        include: ['models/**/*.ts'],
      },
      null,
      2,
    )}\n`,
  );
  return entries;
}
