#!/usr/bin/env node
// The mfx command of this repository, for development: runs @mfx/compiler's
// dispatcher (compiler/src/mfx.ts) from the TypeScript sources, with no build.
// The published command is @mfx/compiler's compiled `dist/bin.js`.
import { useSources } from '../scripts/sources.mjs';

useSources();
const { run } = await import('../compiler/src/mfx.ts');
// tsx is registered already, so an `--app FILE.ts` needs nothing more.
process.exitCode = await run(process.argv.slice(2), { loadTypeScript() {} });
