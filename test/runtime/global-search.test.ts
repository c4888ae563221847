// GET {prefix}/search: ranked hits across the models with global_search, a fair share per model,
// soft-deleted rows out, each model's list hooks and scope applied, and every refusal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, allowAnonymous, bearer, createServer, describeHook, offlineAdapter } from '@mfx/runtime';
import { loadFixture } from '../support/fixtures.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

interface Hit {
  model: string;
  id: string;
  snippet: string;
  score: number;
}

eachBackend('global search', (backend) => {
  const server = useServer(backend, {
    fixture: 'analytics',
    setup: (app) => {
      // Recipe's list refuses callers with x-no-recipes; x-tenant scopes Story like a tenancy hook.
      app.use(
        'auth',
        describeHook(
          async (ctx, next) => {
            if (ctx.req.headers['x-no-recipes']) throw new ApiError('FORBIDDEN', 'no recipes');
            await next();
          },
          { role: 'gate', label: 'recipes' },
        ),
        { models: ['Recipe'], ops: ['list'] },
      );
      app.use(
        'db',
        describeHook(
          async (ctx, next) => {
            if (ctx.req.headers['x-tenant']) ctx.scope.push({ field: 'tenant', value: String(ctx.req.headers['x-tenant']) });
            await next();
          },
          { role: 'scope', label: 'tenant' },
        ),
        { models: ['Story', 'Recipe'], ops: ['list'] },
      );
    },
  });

  const ids: Record<string, string> = {};
  it('seeds', async () => {
    const stories = [
      ['s-best', 'Tomato tomato tomato harvest', 'tomato season is here: tomato soup, tomato salad', 'a'],
      ['s-good', 'Garden news', 'a tomato in the garden', 'a'],
      ['s-other', 'Budget meeting', 'nothing about vegetables', 'a'],
      ['s-b', 'Tomato for tenant b', null, 'b'],
      ['s-gone', 'Tomato deleted', 'tomato tomato tomato tomato', 'a'],
    ];
    for (const [key, headline, body, tenant] of stories) {
      const res = await server.request('POST', '/stories', { body: { headline, body, tenant } });
      assert.equal(res.status, 201, res.text);
      ids[key!] = res.body.data.id;
    }
    assert.equal((await server.request('DELETE', `/stories/${ids['s-gone']}`)).status, 204);
    for (let i = 0; i < 6; i++) {
      const res = await server.request('POST', '/recipes', { body: { name: `Tomato recipe ${i}${' tomato'.repeat(i % 3)}`, tenant: 'a' } });
      ids[`r${i}`] = res.body.data.id;
    }
    await server.request('POST', '/memos', { body: { text: 'tomato memo, not in the global search' } });
  });

  const search = async (query: string, headers: Record<string, string> = {}) => {
    const res = await server.request('GET', `/search?${query}`, { headers });
    assert.equal(res.status, 200, res.text);
    return res.body.data as Hit[];
  };

  it('ranks across the opted-in models, best first, with a snippet and a score in (0, 1)', async () => {
    const hits = await search('q=tomato&models=Story');
    assert.deepEqual(new Set(hits.map((h) => h.id)), new Set([ids['s-best'], ids['s-good'], ids['s-b']]));
    assert.equal(hits[0].id, ids['s-best'], 'the row with the most matches ranks first');
    for (const hit of hits) {
      assert.equal(hit.model, 'Story');
      assert.ok(hit.score > 0 && hit.score < 1, `score ${hit.score}`);
      assert.match(hit.snippet.toLowerCase(), /tomato/);
    }
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
    const all = await search('q=tomato');
    assert.deepEqual(new Set(all.map((h) => h.model)), new Set(['Story', 'Recipe']));
    assert.ok(!all.some((h) => h.id === ids['s-gone']), 'soft-deleted rows are left out');
    assert.ok(!all.some((h) => h.model === 'Memo'), 'a model without global_search is not searched');
  });

  it('gives every model a fair share of the limit before merging by score', async () => {
    // Recipe has six matches, Story three: a limit of 4 takes two of each.
    const four = await search('q=tomato&limit=4');
    assert.equal(four.length, 4);
    assert.equal(four.filter((h) => h.model === 'Story').length, 2);
    assert.equal(four.filter((h) => h.model === 'Recipe').length, 2);
    for (let i = 1; i < four.length; i++) assert.ok(four[i - 1].score >= four[i].score);
    // What one model cannot fill goes to the other: 3 stories, the rest recipes.
    const eight = await search('q=tomato&limit=8');
    assert.equal(eight.filter((h) => h.model === 'Story').length, 3);
    assert.equal(eight.filter((h) => h.model === 'Recipe').length, 5);
  });

  it('limit defaults to 20 and is clamped to 100', async () => {
    assert.equal((await search('q=tomato')).length, 9);
    assert.equal((await search('q=tomato&limit=1000')).length, 9);
    assert.equal((await search('q=tomato&limit=1')).length, 1);
  });

  it("applies each model's list Auth hooks (a refused model contributes nothing) and scope hooks", async () => {
    const refused = await search('q=tomato', { 'x-no-recipes': '1' });
    assert.ok(refused.length > 0);
    assert.ok(refused.every((h) => h.model === 'Story'));
    const tenantB = await search('q=tomato', { 'x-tenant': 'b' });
    assert.deepEqual(tenantB.map((h) => h.id), [ids['s-b']]);
  });

  it('every word must match; text without words finds nothing', async () => {
    assert.deepEqual((await search('q=garden%20tomato')).map((h) => h.id), [ids['s-good']]);
    assert.deepEqual(await search('q=%21%21%21'), []);
    // Search syntax is plain text: quotes and parentheses separate words.
    assert.equal((await search(`q=${encodeURIComponent('"tomato*(')}&models=Recipe`)).length, 6);
  });

  it('refuses a blank q, a bad limit and an unknown or not opted-in model with 400', async () => {
    const cases: [string, string][] = [
      ['', 'q is required: the words to search for, e.g. ?q=budget'],
      ['q=%20%20', 'q is required: the words to search for, e.g. ?q=budget'],
      ['q=tomato&limit=0', 'limit must be a whole number of at least 1, got "0"'],
      ['q=tomato&limit=ten', 'limit must be a whole number of at least 1, got "ten"'],
      ['q=tomato&models=Nope', 'models names "Nope", which is not a model in the global search; searchable models: Recipe, Story'],
      ['q=tomato&models=Story,Memo', 'models names "Memo", which is not a model in the global search; searchable models: Recipe, Story'],
      ['q=tomato&models=,', 'models must name at least one model; searchable models: Recipe, Story'],
    ];
    for (const [query, message] of cases) {
      const res = await server.request('GET', `/search?${query}`);
      assert.equal(res.status, 400, query);
      assert.deepEqual(res.body, { error: { code: 'INVALID_QUERY', message } }, query);
    }
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    const operation = doc.paths['/search'].get;
    assert.equal(operation.operationId, 'globalSearch');
    assert.deepEqual(operation.parameters.map((p: { name: string }) => p.name), ['q', 'limit', 'models']);
    assert.deepEqual(operation.responses['200'].content['application/json'].schema.properties.data.items.properties.model.enum, ['Recipe', 'Story']);
  });
});

describe('global search without opted-in models', () => {
  const server = useServer(sqlite, { fixture: 'blog' });
  it('has no route: 404, and nothing in the document', async () => {
    const res = await server.request('GET', '/search?q=x');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: { code: 'NOT_FOUND', message: 'no route for GET /api/search' } });
    const doc = (await server.request('GET', '/openapi.json')).body;
    assert.equal(doc.paths['/search'], undefined);
  });
});

describe('global search in production validation', () => {
  const build = async (setup: (app: ReturnType<typeof createServer>) => void) => {
    const app = createServer({ handleSignals: false, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    app.register(await loadFixture('analytics'));
    setup(app);
    app.setDB(offlineAdapter(app.registry));
    return app;
  };
  const searchRoute = (app: ReturnType<typeof createServer>) => app.describeSecurity().standalone.find((r) => r.kind === 'search');

  it('takes its access flag from the list operations of the searched models', async () => {
    const open = await build(() => {});
    assert.deepEqual(searchRoute(open), { kind: 'search', method: 'GET', path: '/api/search' });
    assert.throws(() => open.validateProduction(), /search route GET \/api\/search has no access flag/);

    const publicApp = await build((app) => app.use('auth', allowAnonymous(), { models: ['Story', 'Recipe'], ops: ['list'] }));
    assert.equal(searchRoute(publicApp)?.access, 'public');

    const secret = 'x'.repeat(32);
    const authed = await build((app) => app.use('auth', bearer({ secret }), { models: ['Story', 'Recipe'], ops: ['list'] }));
    assert.equal(searchRoute(authed)?.access, 'authenticated');
  });
});
