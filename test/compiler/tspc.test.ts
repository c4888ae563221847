// The ts-patch plugin: `tspc` writes the same manifest as `mfx build` and
// reports model errors as TypeScript diagnostics.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runMfx } from '../support/cli.js';
import { fixture, locate, root, sourceOptions, tempProject } from './support.js';

const tsconfig = (files: string[]) =>
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      ...sourceOptions,
      plugins: [{ transform: '@mfx/compiler/transform', transformProgram: true, outDir: '.mfx' }],
    },
    files,
  });

const base = `import type { Model } from '@mfx/runtime';

/** Shared by the models of models.ts. @mfx abstract */
export interface Titled extends Model {
  /** @mfx required, filterable */
  title: string;
}
`;
const bad = `import type { Model } from '@mfx/runtime';

export interface Thing extends Model {
  /** @mfx min:3, filterabel */
  title: string;
}
`;

const project = tempProject({
  'models.ts': readFileSync(fixture('blog', 'models.ts'), 'utf8').replace(
    "import type { Int, Model, SoftDelete } from '@mfx/runtime';",
    "import type { Int, Model, SoftDelete } from '@mfx/runtime';\nimport type { Titled } from './base.js';\n\nexport interface Page extends Titled {\n  body: string;\n}",
  ),
  'base.ts': base,
  'tsconfig.json': tsconfig(['models.ts', 'base.ts']),
  'bad/models.ts': bad,
  'bad/tsconfig.json': tsconfig(['models.ts']),
});
after(() => project.remove());

/** `tspc ...args`; the plugin (and through it the compiler) runs from the sources too. */
function tspc(args: string[], cwd = project.dir) {
  const result = spawnSync(process.execPath, ['--conditions=mfx-source', join(root, 'node_modules/ts-patch/bin/tspc.js'), ...args], { cwd, encoding: 'utf8' });
  return { code: result.status, output: result.stdout + result.stderr };
}

/** tsc also checks @mfx/runtime's own sources; only lines about the project's files concern these tests. */
const aboutProject = (output: string) => output.split('\n').filter((line) => /^(models|base)\.ts/.test(line) || line.includes('TS9901'));

describe('tspc with @mfx/compiler/transform', () => {
  it('writes the same manifest.json and validators.js as mfx build, byte for byte', async () => {
    const built = tspc(['-p', 'tsconfig.json']);
    assert.deepEqual(aboutProject(built.output), [], built.output);
    const cli = await runMfx(['build', 'models.ts', '--project', 'tsconfig.json', '--out', '.mfx-cli'], { cwd: project.dir });
    assert.equal(cli.code, 0, cli.stdout + cli.stderr);
    for (const file of ['manifest.json', 'validators.js']) {
      const fromTspc = readFileSync(project.path(`.mfx/${file}`), 'utf8');
      assert.equal(fromTspc, readFileSync(project.path(`.mfx-cli/${file}`), 'utf8'), file);
    }
    const manifest = JSON.parse(readFileSync(project.path('.mfx/manifest.json'), 'utf8'));
    assert.deepEqual(manifest.models.map((m: { name: string }) => m.name), ['Comment', 'Company', 'Page', 'Post', 'PostTag', 'Tag', 'User']);
    assert.deepEqual(manifest.sources.map((s: { file: string }) => s.file), ['../base.ts', '../models.ts']);
  });

  it('reports model errors as TypeScript diagnostics that fail the build; warnings go to stderr', () => {
    const built = tspc(['-p', 'tsconfig.json'], project.path('bad'));
    const at = locate(project.path('bad/models.ts'), 'title:');
    assert.notEqual(built.code, 0);
    assert.ok(
      built.output.includes(`models.ts(${at.line},${at.col}): error TS9901: Thing.title: 'min' does not apply to a string field. Use 'minlen:N' / 'maxlen:N' to bound a string's length`),
      built.output,
    );
    assert.ok(built.output.includes(`models.ts(${at.line},${at.col}): warning mfx: Thing.title: unknown directive 'filterabel' is ignored. Did you mean 'filterable'?`), built.output);
  });
});
