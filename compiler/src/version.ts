/**
 * The compiler's name and version, as recorded in every manifest.
 */
import { readFileSync } from 'node:fs';
import type { CompilerInfo } from './emit/manifest.js';

let cached: CompilerInfo | undefined;

/** Name and version from compiler/package.json. */
export function compilerInfo(): CompilerInfo {
  if (!cached) {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    cached = { name: pkg.name, version: pkg.version };
  }
  return cached;
}
