// Model option overrides at registration: only options that leave the schema and the compiled checks alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createServer, type ModelOverrides } from '@mfx/runtime';
import { loadFixture } from '../support/fixtures.js';
import { memoryLogger } from '../support/server.js';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('accepted overrides', (backend) => {
  const server = useServer(backend, { overrides: { Tag: { headless: true }, Post: { queryLimits: { maxFilters: 1 } } } });

  it('headless: the model is migrated but has no routes', async () => {
    const res = await server.request('GET', '/tags');
    assert.equal(res.status, 404, res.text);
    assert.deepEqual(res.body.error, { code: 'NOT_FOUND', message: 'no route for GET /api/tags' });
    assert.ok((await server.app.db.introspect()).has('tags'));
  });

  it('queryLimits: the model takes the overridden cap', async () => {
    const res = await server.request('GET', '/posts?filter=status:eq:draft&filter=views:gt:1');
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.error, { code: 'INVALID_QUERY', message: 'too many filter clauses: at most 1 (query_limits:maxFilters)' });
    const one = await server.request('GET', '/posts?filter=status:eq:draft');
    assert.equal(one.status, 200, one.text);
  });
});

describe('refused overrides', () => {
  const refused: [string, unknown, string][] = [
    ['table', 'articles', 'table:NAME'],
    ['softDelete', null, 'soft_delete'],
    ['versioned', { diffOnly: false, required: false }, 'versioned (versioned_required)'],
    ['singleton', true, 'singleton'],
    ['indices', [{ name: 'idx_posts_slug', columns: ['slug'], unique: true }], 'index: / unique_index:'],
    ['cursorField', 'title', 'cursor_field:FIELD'],
    ['defaultLocale', 'fr', 'default_locale:LOCALE'],
    ['localeMode', 'resolve', 'locale_mode:MODE'],
  ];
  for (const [option, value, directive] of refused) {
    it(`${option}: refused naming the option and the directive, and nothing is registered`, async () => {
      const app = createServer({ handleSignals: false, logger: memoryLogger() });
      const overrides = { Post: { [option]: value } } as Record<string, ModelOverrides>;
      const loaded = await loadFixture('blog');
      assert.throws(() => app.register(loaded, overrides), {
        name: 'ConfigError',
        message: `mfx: overrides for model Post set ${option}, which changes the database schema or what mfx build checked; declare it on the model with the directive ${directive} and rebuild (mfx build)`,
      });
      assert.deepEqual(app.registry.modelNames(), []);
    });
  }

  it('an option that is not overridable is refused with the list of those that are', async () => {
    const app = createServer({ handleSignals: false, logger: memoryLogger() });
    const loaded = await loadFixture('blog');
    assert.throws(() => app.register(loaded, { Post: { maxExportRow: 5 } as ModelOverrides }), {
      name: 'ConfigError',
      message: 'mfx: overrides for model Post set maxExportRow, which is not a model option that can be overridden; overridable: headless, aggregate, export, maxExportRows, optimisticLock, adapter, queryLimits',
    });
    assert.deepEqual(app.registry.modelNames(), []);
  });
});
