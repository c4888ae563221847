#!/usr/bin/env node
// Runs benchmark suites: `npm run bench` (all) or `npm run bench -- runtime query`.
// Each suite measures mfx beside a hand-written baseline doing the same work and prints the ratio.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { useSources } from '../scripts/sources.mjs';

useSources();
// Keep the load generator off the server's CPU (see bench/lib/process.ts).
if (process.env.BENCH_NO_PIN !== '1' && existsSync('/usr/bin/taskset')) {
  spawnSync('/usr/bin/taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
}
const available = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace('.bench.ts', ''));
const wanted = process.argv.slice(2);
const suites = wanted.length ? wanted : available;
for (const suite of suites) {
  if (!available.includes(suite)) {
    console.error(`unknown suite "${suite}"; available: ${available.join(', ')}`);
    process.exit(2);
  }
  console.log(`\n=== ${suite} ===`);
  const { main } = await import(`./${suite}.bench.ts`);
  await main();
}
