#!/usr/bin/env node
// Runs every test/**/*.test.ts with node:test through tsx, from the
// TypeScript sources (`--conditions=mfx-source`: see scripts/sources.mjs).
// `npm test -- test/compiler` narrows to the files under the given paths.
// Tests that read the built packages (test/packaging/, and test/docs/, whose
// examples type-check against the published declarations): when the run
// includes one, the packages are built first (`tsc -b`, incremental), once,
// before the files run in parallel.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SOURCE_FLAGS } from './sources.mjs';

const root = new URL('..', import.meta.url).pathname;

function collect(path, out) {
  const stat = statSync(path);
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path).sort()) {
      if (entry === 'node_modules' || entry.startsWith('.')) continue;
      collect(join(path, entry), out);
    }
  } else if (path.endsWith('.test.ts')) {
    out.push(relative(root, path));
  }
  return out;
}

const roots = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = (roots.length ? roots : ['test']).flatMap((r) => collect(join(root, r), []));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const NEEDS_BUILD = [join('test', 'packaging'), join('test', 'docs')];
if (files.some((file) => NEEDS_BUILD.some((dir) => file.startsWith(dir)))) {
  const built = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
// A test that hangs (a wait nothing will answer) fails after 10 minutes instead of stalling the run; `--test-timeout=N` overrides.
const timeout = flags.some((f) => f.startsWith('--test-timeout')) ? [] : ['--test-timeout=600000'];
const result = spawnSync(
  process.execPath,
  [...SOURCE_FLAGS, '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...timeout, ...flags, ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
