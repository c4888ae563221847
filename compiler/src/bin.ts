#!/usr/bin/env node
// The `mfx` executable of @mfx/compiler (compiled to dist/bin.js).
import { run } from './mfx.js';

process.exitCode = await run(process.argv.slice(2));
