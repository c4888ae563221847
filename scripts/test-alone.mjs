#!/usr/bin/env node
// Runs every test of the given files on its own (`--test-name-pattern=^name$`,
// a fresh process each), to find tests that only pass after an earlier test
// left them something. `node scripts/test-alone.mjs test/runtime/crud.test.ts`;
// without arguments, every test file. TEST_ALONE_CONCURRENCY (default 2) runs
// that many at once. Slow (a process and a server per test): run it when a
// suite changes, not on every commit.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SOURCE_FLAGS } from './sources.mjs';

const root = new URL('..', import.meta.url).pathname;
const reporter = join(root, 'scripts/test-names-reporter.mjs');

function collect(path, out) {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) if (entry !== 'node_modules' && !entry.startsWith('.')) collect(join(path, entry), out);
  } else if (path.endsWith('.test.ts')) out.push(relative(root, path));
  return out;
}

const roots = process.argv.slice(2);
const files = (roots.length ? roots : ['test']).flatMap((r) => collect(join(root, r), []));

// One full run lists the tests; a name that occurs on both backends is one run (the pattern selects both).
const listing = spawnSync(process.execPath, [...SOURCE_FLAGS, '--test', `--test-reporter=${reporter}`, ...files], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
const runs = new Map();
for (const line of listing.stdout.split('\n').filter(Boolean)) {
  const { file, name, skipped } = JSON.parse(line);
  if (!skipped || !runs.has(`${file}\0${name}`)) runs.set(`${file}\0${name}`, { file, name });
}
console.log(`${runs.size} tests to run alone`);

const pattern = (name) => `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
const failures = [];
const queue = [...runs.values()];
async function worker() {
  for (let job = queue.shift(); job; job = queue.shift()) {
    const args = [...SOURCE_FLAGS, '--test', '--test-reporter=spec', `--test-name-pattern=${pattern(job.name)}`, job.file];
    const { code, output } = await new Promise((resolve) => {
      const child = spawn(process.execPath, args, { cwd: root });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('close', (code) => resolve({ code, output }));
    });
    const label = `${relative(root, job.file)}: ${job.name}`;
    if (code === 0) process.stdout.write('.');
    else {
      failures.push({ label, output });
      process.stdout.write(`\nFAILS ALONE ${label}\n`);
    }
  }
}
await Promise.all(Array.from({ length: Number(process.env.TEST_ALONE_CONCURRENCY ?? 2) }, worker));
console.log(`\n${failures.length} of ${runs.size} tests fail when run alone`);
for (const { label, output } of failures) console.log(`\n=== ${label}\n${output}`);
process.exit(failures.length ? 1 : 0);
