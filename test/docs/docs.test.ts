// The user documentation stays true: the generated parts (directives,
// operators, settings) match their catalogues, every model example compiles,
// every ```ts check example type-checks, and every link to a file resolves.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { CATALOGUE } from '../../compiler/src/ir/directives/catalogue.js';
import { generatedFiles } from '../../scripts/docs/generate.js';
import { checkedBlocks, compileFiles, docFiles, EXAMPLE_IMPORTS, modelBlocks, root, typeCheck } from './examples.js';

/** The first line where two texts differ, to point at the stale part. */
function firstDifference(a: string, b: string): string {
  const left = a.split('\n');
  const right = b.split('\n');
  const at = left.findIndex((line, i) => line !== right[i]);
  const line = at === -1 ? left.length : at;
  return `line ${line + 1}: committed ${JSON.stringify(left[line] ?? '')}, generated ${JSON.stringify(right[line] ?? '')}`;
}

describe('generated documentation', () => {
  for (const { file, committed, expected } of generatedFiles()) {
    it(`${file} is what npm run docs writes`, () => {
      assert.ok(committed === expected, `${file} is out of date with its catalogue: run npm run docs and commit the result (${firstDifference(committed, expected)})`);
    });
  }

  it('documents every directive of the catalogue, each with an example', () => {
    const reference = readFileSync(join(root, 'docs/directives.md'), 'utf8');
    for (const row of CATALOGUE) assert.ok(reference.includes(`### \`${row.name}\``), `docs/directives.md has a section for ${row.name}`);
    assert.deepEqual(CATALOGUE.filter((row) => !row.docs?.example).map((row) => row.name), [], 'directives without an example in their catalogue row');
  });
});

describe('examples in the documentation', () => {
  it("every directive's example compiles without a diagnostic (one project, so model names are unique)", { timeout: 120_000 }, () => {
    const files: Record<string, string> = {};
    for (const row of CATALOGUE) {
      if (row.docs?.example) files[`directives/${row.name === '-' ? 'exclude' : row.name}.ts`] = `${EXAMPLE_IMPORTS}\n\n${row.docs.example}\n`;
    }
    const { result, problems } = compileFiles(files);
    assert.deepEqual(problems, []);
    assert.ok(result.ok);
  });

  for (const doc of docFiles()) {
    const blocks = modelBlocks(readFileSync(join(root, 'docs', doc), 'utf8'));
    if (blocks.length === 0) continue;
    it(`the \`\`\`ts models blocks of docs/${doc} compile without a diagnostic`, { timeout: 120_000 }, () => {
      const files = Object.fromEntries(blocks.map((block) => [`${doc.replace(/\.md$/, '')}-line-${block.line}.ts`, `${block.code}\n`]));
      const { result, problems } = compileFiles(files);
      assert.deepEqual(problems, []);
      assert.ok(result.ok);
      assert.ok(result.models.length > 0, 'the blocks declare models');
    });
  }

  it('the ```ts check blocks of docs/*.md type-check under strict TypeScript', { timeout: 120_000 }, () => {
    const files: Record<string, string> = {};
    for (const doc of docFiles()) {
      for (const block of checkedBlocks(readFileSync(join(root, 'docs', doc), 'utf8'))) {
        files[`${doc.replace(/\.md$/, '')}-line-${block.line}.ts`] = `${block.code}\n`;
      }
    }
    assert.ok(Object.keys(files).length > 0, 'the docs have checked examples');
    assert.deepEqual(typeCheck(files), []);
  });
});

describe('links in the documentation', () => {
  it('every relative link of README.md and docs/*.md names a file that exists', () => {
    const sources = ['README.md', ...docFiles().map((doc) => `docs/${doc}`)];
    const broken: string[] = [];
    for (const source of sources) {
      const text = readFileSync(join(root, source), 'utf8');
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1].split('#')[0];
        if (target === '' || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(root, dirname(source), target))) broken.push(`${source}: ${match[1]}`);
      }
    }
    assert.deepEqual(broken, []);
  });
});
