import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { ConfigError } from '../errors/api-error.js';
import { MANIFEST_FORMAT, type Manifest, validatorExportName } from './types.js';

/** A compiled validator as ajv standalone code exports it. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: AjvErrorObject[] | null;
}

export interface AjvErrorObject {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface LoadedManifest {
  manifest: Manifest;
  /** Export name (see validatorExportName) → validator. */
  validators: Record<string, CompiledValidator>;
  /** Where it was loaded from, for messages. */
  dir: string;
  /** Staleness and version warnings; the app logs them when it registers the manifest. */
  warnings: string[];
}

const runtimeRequire = createRequire(import.meta.url);
const runtimeVersion = (runtimeRequire('../../package.json') as { version: string }).version;

/**
 * Reads what `mfx build` wrote into `dir`: manifest.json and validators.js.
 *
 * validators.js is CommonJS evaluated with the runtime's own `require`, so the
 * ajv helpers it needs resolve from @mfx/runtime wherever the manifest lives.
 *
 * @example
 * app.register(loadManifest('.mfx'));
 */
export function loadManifest(dir = '.mfx'): LoadedManifest {
  const root = resolve(dir);
  const manifestPath = join(root, 'manifest.json');
  if (!existsSync(manifestPath)) {
    throw new ConfigError(`no manifest at ${manifestPath}; run \`mfx build <models.ts> --out ${dir}\` first`);
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  } catch (error) {
    throw new ConfigError(`${manifestPath} is not valid JSON (${(error as Error).message}); rebuild it with \`mfx build\``);
  }
  if (manifest.format !== MANIFEST_FORMAT) {
    throw new ConfigError(
      `${manifestPath} has manifest format ${String(manifest.format)}, this runtime reads format ${MANIFEST_FORMAT}; rebuild it with the matching \`mfx build\``,
    );
  }

  const validators = loadValidators(join(root, 'validators.js'), manifest);
  return { manifest, validators, dir: root, warnings: manifestWarnings(manifest, root) };
}

function loadValidators(path: string, manifest: Manifest): Record<string, CompiledValidator> {
  if (!existsSync(path)) throw new ConfigError(`no validators at ${path}; rebuild the manifest with \`mfx build\``);
  const module = { exports: {} as Record<string, CompiledValidator> };
  // The file is our own generated code; evaluating it this way keeps loadManifest synchronous.
  const factory = new Function('require', 'module', 'exports', readFileSync(path, 'utf8'));
  factory(runtimeRequire, module, module.exports);
  for (const model of manifest.models) {
    for (const op of ['create', 'update'] as const) {
      const name = validatorExportName(model.name, op);
      if (typeof module.exports[name] !== 'function') {
        throw new ConfigError(`${path} has no validator ${name}; the manifest and validators.js are from different builds, rebuild with \`mfx build\``);
      }
    }
  }
  return module.exports;
}

function manifestWarnings(manifest: Manifest, root: string): string[] {
  const warnings: string[] = [];
  if (manifest.compiler.version !== runtimeVersion) {
    warnings.push(
      `manifest in ${root} was built by ${manifest.compiler.name} ${manifest.compiler.version}, this is @mfx/runtime ${runtimeVersion}; rebuild it with the matching \`mfx build\``,
    );
  }
  const stale: string[] = [];
  for (const source of manifest.sources) {
    const path = resolve(root, source.file);
    if (!existsSync(path)) {
      stale.push(`${source.file} (missing)`);
      continue;
    }
    const sha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
    if (sha256 !== source.sha256) stale.push(source.file);
  }
  if (stale.length > 0) {
    warnings.push(`manifest in ${root} is older than its sources (${stale.join(', ')} changed since the build); run \`mfx build\` again`);
  }
  return warnings;
}
