// Compiles a fixture's models once and shares the result between test processes.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from '@mfx/compiler';
import { type LoadedManifest, loadManifest } from '@mfx/runtime';

const root = resolve(import.meta.dirname, '../..');
const cacheRoot = join(root, 'node_modules/.cache/mfx-test');

function sourcesHash(dir: string): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts')).sort()) {
    hash.update(file).update(readFileSync(join(dir, file)));
  }
  // The compiler itself is part of the input.
  for (const dirPath of [join(root, 'compiler/src'), join(root, 'runtime/src/sql'), join(root, 'runtime/src/manifest')]) hashTree(dirPath, hash);
  return hash.digest('hex').slice(0, 16);
}

function hashTree(dir: string, hash: ReturnType<typeof createHash>): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) hashTree(path, hash);
    else hash.update(path).update(readFileSync(path));
  }
}

/** The manifest directory of `fixtures/<name>/models.ts`, built if needed. */
export async function fixtureManifestDir(name: string): Promise<string> {
  const dir = join(root, 'fixtures', name);
  const out = join(cacheRoot, `${name}-${sourcesHash(dir)}`);
  if (existsSync(join(out, 'manifest.json'))) return out;
  const tmp = `${out}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  const result = await build({ entries: [join(dir, 'models.ts')], outDir: tmp });
  const errors = result.diagnostics.filter((d: { severity: string }) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`fixture ${name} does not compile:\n${errors.map((d: { message: string }) => d.message).join('\n')}`);
  try {
    renameSync(tmp, out);
  } catch {
    // Another test process won the race; its output is identical.
    rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}

export async function loadFixture(name: string): Promise<LoadedManifest> {
  return loadManifest(await fixtureManifestDir(name));
}
