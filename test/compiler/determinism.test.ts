// Building twice gives identical bytes: no timestamps, stable key order,
// models and sources sorted whatever order the entries come in.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { compile, fixture, tempProject } from './support.js';

const out = tempProject({});
after(() => out.remove());

describe('determinism', () => {
  it('two builds write identical manifest.json and validators.js', () => {
    const entries = [fixture('kitchen-sink', 'models.ts'), fixture('compiler', 'relations', 'models.ts')];
    const read = () => ['manifest.json', 'validators.js'].map((file) => readFileSync(out.path(`.mfx/${file}`)));
    compile(entries, { outDir: out.path('.mfx'), write: true });
    const first = read();
    compile([...entries].reverse(), { outDir: out.path('.mfx'), write: true });
    const second = read();
    assert.ok(first[0].length > 1000 && first[1].length > 1000);
    assert.deepEqual(second, first);
  });

  it('the manifest holds no build time', () => {
    const result = compile([fixture('blog', 'models.ts')]);
    const year = String(new Date().getFullYear());
    assert.ok(!result.files!['manifest.json'].includes(`"${year}-`), 'no timestamp of today');
  });
});
