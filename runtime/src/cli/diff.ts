import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_FORMAT, type Manifest } from '../manifest/types.js';
import { diffManifests, type ManifestChange } from '../migrate/manifest-diff.js';
import { readCommandLine, usage, UsageError, usageFailure } from './args.js';
import { endOnClosedPipe } from './process.js';

/**
 * `mfx diff OLD_MANIFEST NEW_MANIFEST [--json]`
 *
 * Reports what changes from one manifest to the next (manifest directories
 * or manifest.json files): the schema and the API. Exits 1 when a change
 * breaks clients or a database migrated for the old models, 0 otherwise,
 * 2 on a usage error; for CI.
 *
 * @example
 * await main(['old/.mfx', '.mfx']); // prints the report, resolves to 0 or 1
 */
export async function main(argv: string[]): Promise<number> {
  endOnClosedPipe();
  let manifests: [Manifest, Manifest];
  let json: boolean;
  try {
    // Operands are the arguments that are not flags (no flag of diff takes a value).
    const { options, help } = readCommandLine('diff', argv.filter((a) => a.startsWith('-')));
    if (help) {
      process.stdout.write(usage('diff'));
      return 0;
    }
    const paths = argv.filter((a) => !a.startsWith('-'));
    if (paths.length !== 2) throw new UsageError('diff', `name two manifests, the old one and the new one (got ${paths.length})`);
    manifests = [readManifest(paths[0]), readManifest(paths[1])];
    json = options.json;
  } catch (error) {
    // Flags, operands and unreadable manifests alike are mistakes in how diff was called.
    return usageFailure('diff', error instanceof UsageError ? error : (error as Error).message);
  }
  const changes = diffManifests(...manifests);
  const breaking = changes.some((c) => c.breaking);
  process.stdout.write(json ? `${JSON.stringify({ breaking, changes }, null, 2)}\n` : report(changes));
  return breaking ? 1 : 0;
}

/** A manifest directory (its manifest.json) or a manifest.json file; only the manifest is read, never validators.js. */
function readManifest(path: string): Manifest {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, 'manifest.json') : path;
  if (!existsSync(file)) throw new UsageError('diff', `no manifest at ${file}; name a directory mfx build wrote, or its manifest.json`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch (error) {
    throw new UsageError('diff', `${file} is not valid JSON (${(error as Error).message})`);
  }
  if (manifest?.format !== MANIFEST_FORMAT || !Array.isArray(manifest.models)) {
    throw new UsageError('diff', `${file} is not an mfx manifest of format ${MANIFEST_FORMAT}; rebuild it with the matching mfx build`);
  }
  return manifest;
}

/** The readable report: schema changes, then API changes, breaking ones marked `!`, and a count. */
function report(changes: readonly ManifestChange[]): string {
  if (changes.length === 0) return 'no changes\n';
  const lines: string[] = [];
  for (const area of ['schema', 'api'] as const) {
    const of = changes.filter((c) => c.area === area);
    if (of.length === 0) continue;
    lines.push(`${area}:`);
    for (const c of of) lines.push(`  ${c.breaking ? '!' : ' '} ${c.subject}: ${c.change}`);
  }
  const breaking = changes.filter((c) => c.breaking).length;
  lines.push(`${changes.length} change${changes.length === 1 ? '' : 's'}, ${breaking} breaking${breaking ? ' (marked !)' : ''}`);
  return `${lines.join('\n')}\n`;
}
