// `npm run docs`: rewrites the generated parts of docs/*.md from the
// catalogues they document (scripts/docs/generate.ts). `--check` writes
// nothing and exits 1 when a file is out of date.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedFiles, root } from './docs/generate.js';

const check = process.argv.includes('--check');
let stale = 0;
for (const { file, committed, expected } of generatedFiles()) {
  if (committed === expected) continue;
  stale++;
  if (check) process.stderr.write(`${file} is out of date: run npm run docs\n`);
  else {
    writeFileSync(join(root, file), expected);
    process.stdout.write(`wrote ${file}\n`);
  }
}
if (stale === 0) process.stdout.write('docs are up to date\n');
process.exit(check && stale > 0 ? 1 : 0);
