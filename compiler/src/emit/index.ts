/**
 * The emit phase: model IR in, the files of the manifest directory out.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest } from '@mfx/runtime/manifest';
import type { ModelIR } from '../ir/model.js';
import { buildManifest, type CompilerInfo, serializeManifest } from './manifest.js';
import { type ValidatorsModule, validatorsSource } from './validators.js';

export { buildManifest, relativePath, serializeManifest } from './manifest.js';
export { bodySchemas, propertySchema } from './schema.js';
export { type ValidatorsModule, validatorsSource } from './validators.js';

/** The files of the manifest directory, as the runtime's loadManifest expects them. */
export const MANIFEST_FILE = 'manifest.json';
export const VALIDATORS_FILE = 'validators.js';

export interface Emitted {
  manifest: Manifest;
  /** File name → content, for the manifest directory. */
  files: Record<string, string>;
}

/**
 * Everything the manifest directory holds, as text.
 *
 * @example emit(models, '/app/.mfx', compilerInfo()).files['manifest.json']
 */
export function emit(models: ModelIR[], outDir: string, compiler: CompilerInfo, module: ValidatorsModule = 'cjs'): Emitted {
  const manifest = buildManifest(models, outDir, compiler);
  const validators = validatorsSource(
    manifest.models.map((m) => ({ model: m.name, schemas: m.schemas })),
    module,
  );
  return { manifest, files: { [MANIFEST_FILE]: serializeManifest(manifest), [VALIDATORS_FILE]: validators } };
}

/**
 * Write the files, leaving unchanged ones untouched (watchers see no
 * spurious change). Each file is written beside its place and renamed into
 * it, manifest.json last: a reader (`mfx serve --watch`) never sees half a
 * file, and once manifest.json changes the rest of its build is in place.
 */
export function writeFiles(outDir: string, files: Record<string, string>): string[] {
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  const names = Object.keys(files).sort((a, b) => Number(a === MANIFEST_FILE) - Number(b === MANIFEST_FILE));
  for (const name of names) {
    const content = files[name];
    const path = join(outDir, name);
    let current: string | undefined;
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== content) {
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, content);
      renameSync(temporary, path);
    }
    written.push(path);
  }
  return written;
}
