// The contribution API and the route filter, on the generator alone: later
// features (history, actions, aggregate, export) document their routes
// through contributions, and the document keeps exactly the served ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowAnonymous, apiKey, block, buildDocument, etag, type Hook, idempotency, type PathContribution, rateLimit, Registry, requireRole } from '@mfx/runtime';
import { resolveConfig } from '../../runtime/src/config/config.js';
import { builtInContributions } from '../../runtime/src/openapi/contributions.js';
import { routeKey } from '../../runtime/src/openapi/document.js';
import { loadFixture } from '../support/fixtures.js';
import { ResponseValidator } from '../support/response-validator.js';

async function registryOf(fixture: string): Promise<Registry> {
  const registry = new Registry();
  registry.register(await loadFixture(fixture));
  return registry;
}

/** Every built-in route of the CRUD table for these tables, as the router mounts them. */
function crudRoutes(prefix: string, tables: string[]): string[] {
  return tables.flatMap((t) => [
    ...['GET', 'HEAD', 'POST', 'OPTIONS'].map((m) => `${m} ${prefix}/${t}`),
    ...['GET', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => `${m} ${prefix}/${t}/:id`),
  ]);
}

const login: PathContribution = {
  name: 'login action',
  contribute(doc) {
    doc.schema('LoginBody', { type: 'object', properties: { email: { type: 'string' }, password: { type: 'string', writeOnly: true } }, required: ['email', 'password'] });
    doc.operation('post', '/auth/login', {
      operationId: 'login',
      summary: 'Issue a token',
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/LoginBody' } } } },
      responses: {
        '200': { description: 'a token', content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'object', properties: { token: { type: 'string' } } } } } } } },
        ...doc.errors('401', '500'),
      },
    });
  },
};

describe('OpenAPI contributions', () => {
  it('keeps a contributed operation when its route is served, and drops it when not', async () => {
    const registry = await registryOf('blog');
    const config = resolveConfig({ documentation: { public: true } });
    const tables = registry.all().map((m) => m.table);
    const base = { registry, config, hooks: () => [], contributions: [...builtInContributions, login] };
    const left: string[] = [];
    const without = buildDocument({ ...base, served: new Set(crudRoutes('/api', tables)), onUnserved: (m, p) => left.push(`${m} ${p}`) });
    assert.equal(without.paths?.['/auth/login'], undefined);
    assert.ok(left.includes('post /auth/login'));
    assert.ok(left.includes('get /live') && left.includes('get /users/{id}/history'), 'probes and history are left out when not mounted');
    assert.ok((without.components?.schemas as Record<string, unknown>).LoginBody, 'schemas stay: actions on headless models use them');

    const served = new Set([...crudRoutes('/api', tables), routeKey('/api', 'post', '/auth/login'), routeKey('/api', 'get', '/users/{id}/history')]);
    const withLogin = buildDocument({ ...base, served }) as any;
    assert.equal(withLogin.paths['/auth/login'].post.operationId, 'login');
    assert.deepEqual(Object.keys(withLogin.paths['/auth/login'].post.responses), ['200', '401', '500']);
    assert.deepEqual(Object.keys(withLogin.paths['/users/{id}/history'].get.responses), ['200', '400', '404', '500', '504']);
    assert.deepEqual(withLogin.paths['/users/{id}/history'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/UserHistoryPage' });
  });

  it('documents aggregate and export routes once the server mounts them', async () => {
    const registry = await registryOf('kitchen-sink');
    const config = resolveConfig({ documentation: { public: true } });
    const served = new Set(['GET /api/catalogue_items/aggregate', 'GET /api/catalogue_items/export']);
    const doc = buildDocument({ registry, config, hooks: () => [], contributions: builtInContributions, served }) as any;
    assert.deepEqual(Object.keys(doc.paths), ['/catalogue_items/aggregate', '/catalogue_items/export']);
    const aggregate = doc.paths['/catalogue_items/aggregate'].get;
    assert.equal(aggregate.parameters[0].name, 'aggregate');
    assert.match(aggregate.parameters[0].description, /aggregatable fields: id, name, status, price, visible, labels, makerId, created_at, deleted_at; exposed expressions: none$/);
    const exported = doc.paths['/catalogue_items/export'].get;
    assert.deepEqual(exported.parameters[0].schema.enum, ['csv', 'xlsx']);
    assert.ok(exported.responses['200'].content['text/csv']);
    assert.ok(exported.responses['413']);
  });

  it('derives security, 401 and 403 from documented hooks, and lists {} when anonymous callers are let through', async () => {
    const registry = await registryOf('blog');
    const config = resolveConfig({ documentation: { public: true } });
    const passthrough: Hook = async (_ctx, next) => next();
    const keys = apiKey({ keys: { 'reports-key-0123456789': { userId: 'reports' } } });
    const hooks = (model: string | null, op: string): Hook[] => {
      if (model !== 'Tag') return [passthrough];
      return op === 'list' ? [allowAnonymous(), keys] : op === 'delete' ? [keys, requireRole('admin')] : op === 'update' ? [block('update')] : [];
    };
    const doc = buildDocument({ registry, config, hooks, contributions: builtInContributions, served: new Set(crudRoutes('/api', ['tags'])) }) as any;
    assert.deepEqual(doc.paths['/tags'].get.security, [{ apiKeyAuth: [] }, {}]);
    assert.ok(doc.paths['/tags'].get.responses['401'] && !doc.paths['/tags'].get.responses['403']);
    assert.deepEqual(doc.paths['/tags/{id}'].delete.security, [{ apiKeyAuth: [] }]);
    assert.ok(doc.paths['/tags/{id}'].delete.responses['403']);
    assert.equal(doc.paths['/tags/{id}'].patch.security, undefined, 'block() alone is no authenticator');
    assert.ok(doc.paths['/tags/{id}'].patch.responses['403']);
    assert.equal(doc.paths['/tags'].post.security, undefined);
    assert.deepEqual(doc.components.securitySchemes, { apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' } });
  });

  it('adds the statuses and request headers hooks declare: etag(), idempotency(), rateLimit()', async () => {
    const registry = await registryOf('blog');
    const cache = etag();
    const once = idempotency();
    const limited = rateLimit({ requestsPerMinute: 60 });
    const hooks = (model: string | null, op: string): Hook[] => (model !== 'Tag' ? [] : op === 'read' ? [cache, limited] : op === 'create' ? [once] : []);
    const doc = buildDocument({ registry, config: resolveConfig({}), hooks, contributions: builtInContributions, served: new Set(crudRoutes('/api', ['tags'])) }) as any;
    const read = doc.paths['/tags/{id}'].get;
    assert.deepEqual(Object.keys(read.responses).sort(), ['200', '304', '400', '404', '429', '500', '504']);
    assert.ok(read.parameters.some((p: any) => p.in === 'header' && p.name === 'If-None-Match'));
    const create = doc.paths['/tags'].post;
    assert.deepEqual(create.parameters.map((p: any) => `${p.in}:${p.name}`), ['header:Idempotency-Key']);
    assert.equal(doc.paths['/tags'].get.responses['429'], undefined, 'only where the hook runs');
  });

  it('names both sides when two contributions document one operation', async () => {
    const registry = await registryOf('blog');
    const twice: PathContribution = { name: 'second live', contribute: (doc) => doc.operation('get', '/live', { responses: {} }) };
    assert.throws(
      () => buildDocument({ registry, config: resolveConfig({}), hooks: () => [], contributions: [...builtInContributions, twice], served: new Set() }),
      { message: 'mfx openapi: second live documents GET /live, which is already documented' },
    );
  });
});

describe('the test harness response validator', () => {
  it('catches a response that drifts from the document', async () => {
    const registry = await registryOf('blog');
    const doc = buildDocument({
      registry,
      config: resolveConfig({ documentation: { public: true } }),
      hooks: () => [],
      contributions: builtInContributions,
      served: new Set(crudRoutes('/api', registry.all().map((m) => m.table))),
    });
    const validator = new ResponseValidator(doc as never);
    const company = { id: '6f1c0b52-3e1a-4b7c-9d55-1d2e3f4a5b6c', name: 'Acme', country: null, created_at: '2026-01-31T10:00:00.000Z', updated_at: '2026-01-31T10:00:00.000Z' };
    assert.equal(validator.check('GET', `/companies/${company.id}`, 200, JSON.stringify({ data: company })), null);
    assert.match(validator.check('GET', `/companies/${company.id}`, 200, JSON.stringify({ data: { ...company, secret: 1 } }))!, /must NOT have additional properties/);
    assert.match(validator.check('GET', `/companies/${company.id}`, 200, JSON.stringify({ data: { ...company, name: 7 } }))!, /\/data\/name must be string/);
    assert.match(validator.check('GET', `/companies/${company.id}`, 418, '{}')!, /answered 418, which the document does not list/);
    assert.match(validator.check('GET', '/nowhere', 200, '{}')!, /the document has no such operation/);
    assert.equal(validator.check('GET', '/nowhere', 404, JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no route' } })), null);
    assert.match(validator.check('DELETE', `/companies/${company.id}`, 204, 'x')!, /has a body but the document says it has none/);
    assert.equal(validator.check('GET', `/companies/${company.id}?select=name`, 200, JSON.stringify({ data: { name: 'Acme' } })), null, 'select returns only the chosen keys');
  });
});
