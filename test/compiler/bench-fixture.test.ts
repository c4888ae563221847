// The benchmark's generated model set must compile cleanly, or the benchmark
// would time a failing build.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateFixture } from '../../bench/compiler-fixture.mjs';
import { compile } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'mfx-bench-fixture-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('benchmark fixture', () => {
  it('a 40-model slice compiles without a diagnostic and uses every relation kind', () => {
    const entries = generateFixture(dir, { count: 40, files: 4 });
    const result = compile(entries, { project: join(dir, 'tsconfig.json') });
    assert.deepEqual(result.diagnostics, []);
    assert.equal(result.models.length, 40);
    const kinds = new Set(result.models.flatMap((m) => m.relations.map((r) => r.kind)));
    assert.deepEqual([...kinds].sort(), ['belongsTo', 'hasMany', 'manyToMany']);
    const types = new Set(result.models.flatMap((m) => m.fields.map((f) => f.type)));
    assert.deepEqual([...types].sort(), ['bigint', 'boolean', 'integer', 'json_array', 'json_object', 'localized', 'number', 'string', 'timestamp']);
  });
});
