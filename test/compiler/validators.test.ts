// validators.js: ajv standalone code with <Model>__create / <Model>__update
// exports. The default (CommonJS) is evaluated the way @mfx/runtime's
// loadManifest does it; the ESM variant is imported.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { validatorExportName } from '@mfx/runtime/manifest';
import { compile, fixture, root, tempProject } from './support.js';

interface Validator {
  (body: unknown): boolean;
  errors?: { instancePath: string; keyword: string; params: Record<string, unknown> }[] | null;
}

const project = tempProject({});
const entries = [fixture('blog', 'models.ts'), fixture('kitchen-sink', 'models.ts')];
let cjs: Record<string, Validator>;
let esm: Record<string, Validator>;
let models: string[];

before(async () => {
  const built = compile(entries, { outDir: project.path('cjs'), write: true });
  models = built.manifest!.models.map((m) => m.name);
  const module = { exports: {} as Record<string, Validator> };
  new Function('require', 'module', 'exports', readFileSync(project.path('cjs/validators.js'), 'utf8'))(
    createRequire(`${root}/runtime/package.json`),
    module,
    module.exports,
  );
  cjs = module.exports;
  compile(entries, { outDir: project.path('esm'), write: true, validatorsModule: 'esm' });
  esm = await import(pathToFileURL(project.path('esm/validators.js')).href);
});
after(() => project.remove());

/** [instancePath, keyword] of every error, sorted. */
function failures(validator: Validator, body: unknown): [string, string][] {
  assert.equal(validator(body), false, 'the body is refused');
  return (validator.errors ?? []).map((e) => [e.instancePath, e.keyword] as [string, string]).sort();
}

for (const [format, load] of [['CommonJS', () => cjs], ['ES module', () => esm]] as const) {
  describe(`validators.js (${format})`, () => {
    it('exports a create and an update validator per model, named by validatorExportName', () => {
      const names = Object.keys(load()).filter((name) => typeof load()[name] === 'function').sort();
      const expected = models.flatMap((m) => [validatorExportName(m, 'create'), validatorExportName(m, 'update')]).sort();
      assert.deepEqual(names, expected);
    });

    it('accepts valid bodies, and unknown keys', () => {
      const create = load().Post__create;
      assert.equal(create({ title: 'Hello', userId: 'u1', views: 3, rating: null, publishedAt: '2024-05-01T10:00:00Z', keywords: ['a'], extra: 1 }), true);
      assert.equal(load().Post__update({}), true);
    });

    it('reports every failing rule with its instancePath and keyword', () => {
      const create = load().Post__create;
      assert.deepEqual(failures(create, { views: -1, rating: 7, status: 'gone', publishedAt: 'yesterday', keywords: ['a', 2], title: '', userId: 'u1' }), [
        ['/keywords/1', 'type'],
        ['/publishedAt', 'format'],
        ['/rating', 'maximum'],
        ['/status', 'enum'],
        ['/title', 'minLength'],
        ['/views', 'minimum'],
      ]);
      assert.deepEqual(failures(create, {}), [['', 'required'], ['', 'required']]);
      assert.deepEqual(create.errors?.map((e) => e.params.missingProperty), ['title', 'userId']);
    });

    it('null is refused for non-nullable fields and accepted for nullable ones', () => {
      const update = load().Post__update;
      assert.deepEqual(failures(update, { title: null }), [['/title', 'type']]);
      assert.equal(update({ rating: null, slug: null }), true);
    });

    it('integers keep to their range; enums to their cast values; localized takes a string or a map', () => {
      const create = load().Product__create;
      const base = { name: 'Widget', sku: 'w-1', makerId: 'm', taxNumber: 't', adminPin: '12345678' };
      assert.equal(create({ ...base, tier: 2, weightGrams: 10, title: 'Hi', greeting: { en: 'Hello' } }), true);
      assert.deepEqual(failures(create, { ...base, tier: 4, weightGrams: 2 ** 31, title: { en: 1 }, score: 1.5 }), [
        ['/score', 'type'],
        ['/tier', 'enum'],
        ['/title', 'anyOf'],
        ['/title', 'type'],
        ['/title/en', 'type'],
        ['/weightGrams', 'maximum'],
      ]);
    });
  });
}
