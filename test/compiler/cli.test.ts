// `mfx build`: what it prints, what it writes, how it exits.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { runMfx } from '../support/cli.js';
import { locate, tempProject } from './support.js';

const models = `import type { Model } from '@mfx/runtime';

export interface Note extends Model {
  /** @mfx required, filterabel */
  text: string;
}
`;
const broken = `import type { Model } from '@mfx/runtime';

export interface Broken extends Model {
  /** @mfx min:1 */
  title: string;
  /** @mfx minlen:2 */
  count: number;
}
`;

const project = tempProject({ 'src/models.ts': models, 'src/broken.ts': broken });
after(() => project.remove());

const build = (...args: string[]) => runMfx(['build', ...args], { cwd: project.dir });

describe('mfx build', () => {
  it('writes the manifest directory, prints warnings with paths relative to cwd, exits 0', async () => {
    const run = await build('src/models.ts', '--out', 'out');
    const at = locate(project.path('src/models.ts'), 'text:');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, `src/models.ts:${at.line}:${at.col}: warning: Note.text: unknown directive 'filterabel' is ignored. Did you mean 'filterable'?\n`);
    assert.equal(run.stdout, 'mfx build: 1 model → out\n');
    const manifest = JSON.parse(readFileSync(project.path('out/manifest.json'), 'utf8'));
    assert.deepEqual(manifest.sources.map((s: { file: string }) => s.file), ['../src/models.ts']);
    assert.ok(existsSync(project.path('out/validators.js')));
  });

  it('defaults to .mfx', async () => {
    assert.equal((await build('src/models.ts')).code, 0);
    assert.ok(existsSync(project.path('.mfx/manifest.json')));
  });

  it('prints every error as file:line:col: error: message, writes nothing, exits 1', async () => {
    const run = await build('src/broken.ts', 'src/models.ts', '--out=failed');
    const title = locate(project.path('src/broken.ts'), 'title:');
    const count = locate(project.path('src/broken.ts'), 'count:');
    const text = locate(project.path('src/models.ts'), 'text:');
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.deepEqual(run.stderr.split('\n'), [
      `src/broken.ts:${title.line}:${title.col}: error: Broken.title: 'min' does not apply to a string field. Use 'minlen:N' / 'maxlen:N' to bound a string's length`,
      `src/broken.ts:${count.line}:${count.col}: error: Broken.count: 'minlen' does not apply to a number field. Use 'min:N' / 'max:N' to bound a number`,
      `src/models.ts:${text.line}:${text.col}: warning: Note.text: unknown directive 'filterabel' is ignored. Did you mean 'filterable'?`,
      'mfx build: 2 errors, nothing written',
      '',
    ]);
    assert.ok(!existsSync(project.path('failed')));
  });

  it('a missing entry or tsconfig is an error; bad arguments are a usage error (exit 2)', async () => {
    const missing = await build('src/nope.ts');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^mfx: error: cannot read entry file .*src\/nope\.ts\. Check the path\n/);
    const noProject = await build('src/models.ts', '--project', 'missing.json');
    assert.equal(noProject.code, 1);
    assert.match(noProject.stderr, /cannot read the TypeScript configuration: .*missing\.json does not exist/);
    assert.equal((await build()).code, 2);
    const unknown = await build('src/models.ts', '--wait');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^mfx build: unknown option --wait/);
  });

  it('--help prints the usage', async () => {
    const run = await build('--help');
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^usage: mfx build ENTRY\.ts\.\.\. \[--project tsconfig\.json\] \[--out DIR\]/);
  });
});
