// A generated model set of any size (200 for the OpenAPI benchmark), written as
// TypeScript and compiled by the real compiler, cached like the test fixtures.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from '@mfx/compiler';

const root = join(import.meta.dirname, '../..');

/** TypeScript source of `count` models, each with a spread of types and directives and a BelongsTo to the previous one. */
export function manyModelsSource(count: number): string {
  const lines = ["import type { Int, Model } from '@mfx/runtime';", ''];
  for (let i = 0; i < count; i++) {
    const options = [
      i % 10 === 0 ? 'versioned' : '',
      i % 7 === 0 ? 'soft_delete' : '',
      i % 5 === 0 ? 'base:created_at=filterable|sortable, cursor_field:created_at' : '',
      i % 11 === 0 ? 'optimistic_lock' : '',
    ].filter(Boolean);
    lines.push(`/** Generated model ${i}.${options.length ? ` @mfx ${options.join(', ')}` : ''} */`);
    lines.push(`export interface Item${i} extends Model {`);
    lines.push('  /** @mfx required, minlen:1, maxlen:200, filterable, sortable, searchable */', '  name: string;');
    lines.push('  /** @mfx enum:new|active|done, default:new, filterable, sortable */', '  status: string;');
    lines.push('  /** @mfx min:0, default:0, filterable, sortable */', '  count: Int;');
    lines.push('  /** @mfx min:0, max:1000 */', '  price: number | null;');
    lines.push('  /** @mfx filterable */', '  active: boolean;');
    lines.push('  /** @mfx filterable */', '  labels: string[];');
    lines.push('  meta: Record<string, unknown> | null;');
    lines.push('  /** @mfx filterable, sortable */', '  dueAt: Date | null;');
    lines.push('  /** @mfx writeonly, minlen:8 */', '  secret: string;');
    lines.push('  /** @mfx hidden */', '  rank: Int;');
    if (i > 0) lines.push(`  /** @mfx filterable */`, `  item${i - 1}Id: string | null;`);
    if (i < count - 1) lines.push(`  item${i + 1}s?: Item${i + 1}[];`);
    lines.push('}', '');
  }
  return lines.join('\n');
}

/** The manifest directory of `count` generated models, compiled once. */
export async function manyModelsManifest(count: number): Promise<string> {
  const source = manyModelsSource(count);
  const hash = createHash('sha256').update(source).update(readFileSync(join(root, 'compiler/src/version.ts'))).digest('hex').slice(0, 12);
  // Outside node_modules: the compiler does not look for models in packages.
  const dir = join(root, 'bench/.generated', `many-${count}-${hash}`);
  if (existsSync(join(dir, 'manifest.json'))) return dir;
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'models.ts');
  writeFileSync(entry, source);
  const result = await build({ entries: [entry], outDir: dir });
  const errors = result.diagnostics.filter((d: { severity: string }) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`generated models do not compile:\n${errors.map((d: { message: string }) => d.message).join('\n')}`);
  return dir;
}
