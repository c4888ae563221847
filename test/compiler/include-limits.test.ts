// The include caps of issue 14 (defect 6) are query limits like the others:
// the query_limits model directive takes them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compile, tempProject } from './support.js';

describe('the query_limits directive takes the include caps', () => {
  it('compiles maxIncludePerParent and maxIncludeRows into the model options', () => {
    const project = tempProject({
      'models.ts': "import type { Model } from '@mfx/runtime';\n\n/** @mfx query_limits:maxIncludePerParent=5|maxIncludeRows=50 */\nexport interface Shelf extends Model {\n  name: string;\n}\n",
    });
    try {
      const built = compile([project.path('models.ts')], { outDir: project.path('.mfx') });
      assert.deepEqual(built.diagnostics, []);
      assert.deepEqual(built.manifest?.models[0].options.queryLimits, { maxIncludePerParent: 5, maxIncludeRows: 50 });
    } finally {
      project.remove();
    }
  });
});
