#!/usr/bin/env node
// `npm create mfx@latest my-app` runs this bin (npm maps `create mfx` to the package create-mfx).
import { main } from '../lib/cli.js';

process.exitCode = await main(process.argv.slice(2), { cwd: process.cwd(), out: process.stdout, err: process.stderr });
