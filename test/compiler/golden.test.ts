// The blog's manifest and validators are committed; a rebuild must match them
// byte for byte. `UPDATE_GOLDEN=1 npm test -- test/compiler` rewrites them.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compile, fixture } from './support.js';

const golden = join(import.meta.dirname, 'golden');
const update = process.env.UPDATE_GOLDEN === '1';

describe('golden files', () => {
  // The manifest directory of `npm run demo`: sources are `../models.ts`.
  const result = compile([fixture('blog', 'models.ts')], { outDir: fixture('blog', '.mfx') });

  const cases: [string, string][] = [
    ['manifest.json', 'blog.manifest.json'],
    ['validators.js', 'blog.validators.js'],
  ];
  for (const [output, file] of cases) {
    it(`the blog's ${output} matches test/compiler/golden/${file}`, () => {
      assert.deepEqual(result.diagnostics, []);
      const built = result.files?.[output];
      assert.ok(built, `${output} was built`);
      if (update) writeFileSync(join(golden, file), built);
      assert.equal(built, readFileSync(join(golden, file), 'utf8'), `${output} differs from the golden file; if the change is intended, run UPDATE_GOLDEN=1 npm test -- test/compiler`);
    });
  }
});
