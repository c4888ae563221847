#!/usr/bin/env node
// Compiler benchmark: `node bench/compiler.mjs [--models 200] [--runs 5]`.
//
// Generates a model set in a temp dir, then times `mfx build` and
// `tsc --noEmit` on the same files with the same tsconfig, each run in a
// fresh process (what a user or CI pays). Prints the medians and the ratio;
// the goal is mfx build <= 1.5 x tsc --noEmit.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateFixture } from './compiler-fixture.mjs';

const root = resolve(import.meta.dirname, '..');
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const count = option('models', 200);
const runs = option('runs', 5);
const goal = 1.5;

const dir = mkdtempSync(join(tmpdir(), 'mfx-bench-compiler-'));
const entries = generateFixture(dir, { count });

/** tsc also checks the runtime's own sources; their errors (a colleague's work in progress) do not concern the fixture. */
const fixtureErrors = (output) => output.split('\n').filter((line) => line.startsWith('models/'));

function time(label, args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const tscDiagnosticsElsewhere = label.startsWith('tsc') && result.status === 2 && fixtureErrors(result.stdout).length === 0;
  if (result.status !== 0 && !tscDiagnosticsElsewhere) {
    console.error(`${label} failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
    process.exit(1);
  }
  return ms;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const commands = {
  'mfx build': [join(root, 'bin/mfx.mjs'), 'build', ...entries, '--project', 'tsconfig.json', '--out', '.mfx'],
  'tsc --noEmit': [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.json'],
};

console.log(`compiler benchmark: ${count} models in ${entries.length} files, ${runs} runs each (after one warm-up, interleaved)`);
for (const [label, args] of Object.entries(commands)) time(label, args); // warm-up: file cache, tsx transform cache
// Interleaved, so a change in machine load hits both commands alike.
const samples = Object.fromEntries(Object.keys(commands).map((label) => [label, []]));
for (let run = 0; run < runs; run++) {
  for (const [label, args] of Object.entries(commands)) samples[label].push(time(label, args));
}
const medians = {};
for (const label of Object.keys(commands)) {
  medians[label] = median(samples[label]);
  console.log(`  ${label.padEnd(13)} median ${medians[label].toFixed(0).padStart(6)} ms   runs: ${samples[label].map((s) => s.toFixed(0)).join(', ')}`);
}
const ratio = medians['mfx build'] / medians['tsc --noEmit'];
console.log(`  ratio mfx build / tsc --noEmit = ${ratio.toFixed(2)} (goal <= ${goal})${ratio <= goal ? '' : '  ** over the goal **'}`);
rmSync(dir, { recursive: true, force: true });
