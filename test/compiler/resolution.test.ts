// The analysis first reads packages only as far as their public types and
// loads no ambient @types; a type that this leaves unresolved makes it start
// over with what tsc reads, so the result never depends on the shortcut.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ModelFinder } from '../../compiler/src/analyze/models.js';
import { openProject, type ResolutionScope } from '../../compiler/src/analyze/project.js';
import { RuntimeTypes } from '../../compiler/src/analyze/runtime.js';
import { DiagnosticBag } from '../../compiler/src/ir/diagnostics.js';
import { compile, fixture, locate, seen, sourceOptions, tempProject } from './support.js';

/** Run only the given pass and say whether it met an unresolved type, and which files it read. */
function pass(entry: string, scope: ResolutionScope) {
  const bag = new DiagnosticBag();
  const opened = openProject({ entries: [entry] }, bag, scope)!;
  const finder = new ModelFinder(new RuntimeTypes(), opened.project.getProgram(), bag);
  finder.find(opened.scope);
  const files = opened.project.getProgram().compilerObject.getSourceFiles().map((f) => f.fileName);
  return { unresolved: finder.sawUnresolved(), files };
}

const tsconfig = JSON.stringify({
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: ['node'], ...sourceOptions },
});

const project = tempProject({
  'tsconfig.json': tsconfig,
  // BufferEncoding is a global string union from @types/node: ambient, never imported.
  'ambient.ts': `import type { Model } from '@mfx/runtime';

export interface Upload extends Model {
  encoding: BufferEncoding;
  size: number;
}
`,
  'unresolved.ts': `import type { Model } from '@mfx/runtime';

export interface Broken extends Model {
  // @ts-ignore: the type is deliberately unknown
  owner: Missing;
}
`,
});
after(() => project.remove());

describe('type resolution', () => {
  it('the surface pass skips package implementations and ambient types', () => {
    const surface = pass(fixture('blog', 'models.ts'), 'surface');
    const full = pass(fixture('blog', 'models.ts'), 'full');
    assert.equal(surface.unresolved, false);
    const read = (files: string[], pattern: RegExp) => files.some((f) => pattern.test(f));
    assert.ok(read(surface.files, /runtime\/src\/model\.ts$/), 'the marker types are read');
    assert.ok(!read(surface.files, /@types\/node\//), 'no @types/node in the surface pass');
    assert.ok(read(full.files, /@types\/node\//), 'the full pass reads what tsc reads');
  });

  it('an ambient type is unresolved in the surface pass, which triggers the full pass', () => {
    assert.equal(pass(project.path('ambient.ts'), 'surface').unresolved, true);
    assert.equal(pass(project.path('ambient.ts'), 'full').unresolved, false);
  });

  it('an ambient type from @types/node resolves (through the full pass)', () => {
    const result = compile([project.path('ambient.ts')]);
    assert.deepEqual(result.diagnostics, []);
    const encoding = result.models[0].fields.find((f) => f.name === 'encoding');
    assert.deepEqual([encoding?.type, encoding?.nullable], ['string', false]);
  });

  it('a type nobody can resolve is an error, not a silent JSON column', () => {
    const result = compile([project.path('unresolved.ts')]);
    assert.deepEqual(seen(result.diagnostics), [
      {
        severity: 'error',
        ...locate(project.path('unresolved.ts'), 'owner:'),
        text: "Broken.owner: type 'Missing' cannot be stored. TypeScript cannot resolve it; fix the TypeScript error (a missing import or a typo) first",
      },
    ]);
  });
});
