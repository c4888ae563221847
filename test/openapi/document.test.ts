// GET /openapi.json: an OpenAPI 3.1 document of exactly what is served,
// rebuilt from the registry on every request, checked by a third-party validator.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { apiKey, bearer, createServer, openSqlite, requireRole } from '@mfx/runtime';
import { bearerHeader, SECRET, token } from '../support/auth.js';
import { loadFixture } from '../support/fixtures.js';
import { startServer } from '../support/server.js';
import { eachBackend, sqlite, useServer } from '../support/suite.js';

async function assertValidOpenApi(doc: unknown) {
  const result = await new Validator().validate(doc as Record<string, unknown>);
  assert.equal(result.valid, true, `not a valid OpenAPI document: ${JSON.stringify(result.errors)?.slice(0, 2000)}`);
}

eachBackend('OpenAPI document', (backend) => {
  let doc: any;
  let builds = 0;
  const server = useServer(backend, {
    setup(app) {
      app.use('auth', bearer({ secret: SECRET }), { models: ['Post'], ops: ['create', 'update', 'delete'] });
      app.use('auth', requireRole('editor'), { models: ['Post'], ops: ['delete'] });
      app.openapi.contribute({
        name: 'test contribution',
        contribute(builder) {
          builds++;
          builder.schema('BuildCounter', { type: 'integer', const: builds });
          // Not served by anything: must not reach the document.
          builder.operation('get', '/nowhere', { responses: { '200': { description: 'never' } } });
        },
      });
    },
  });
  before(async () => {
    const res = await server.request('GET', '/openapi.json');
    assert.equal(res.status, 200);
    doc = res.body;
  });

  it('is OpenAPI 3.1.0 and valid by a third-party validator', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.info, { title: 'mfx API', version: '1.0.0' });
    assert.deepEqual(doc.servers, [{ url: '/api' }]);
    await assertValidOpenApi(doc);
  });

  it('is rebuilt from the registry on every request', async () => {
    const first = (await server.request('GET', '/openapi.json')).body.components.schemas.BuildCounter.const;
    const second = (await server.request('GET', '/openapi.json')).body.components.schemas.BuildCounter.const;
    assert.equal(second, first + 1);
    const res = await server.request('GET', '/openapi.json');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.ok(res.headers.get('x-request-id'));
    const head = await server.request('HEAD', '/openapi.json');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
  });

  it('documents every mounted route and nothing else', async () => {
    const routes = server.app.document().paths as Record<string, Record<string, unknown>>;
    const documented = Object.entries(routes).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((k) => k !== 'parameters')
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    const tables = ['companies', 'users', 'posts', 'comments', 'tags', 'post_tags'];
    const expected = [
      ...tables.flatMap((t) => ['GET', 'HEAD', 'POST', 'OPTIONS'].map((m) => `${m} /${t}`)),
      ...tables.flatMap((t) => ['GET', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => `${m} /${t}/{id}`)),
      ...['live', 'ready', 'health', 'openapi.json', 'docs', 'docs/assets/{file}', 'users/{id}/history'].flatMap((p) => [`GET /${p}`, `HEAD /${p}`]),
    ];
    assert.deepEqual(documented.sort(), expected.sort());
    assert.equal(doc.paths['/nowhere'], undefined);
    // Versioned User: its history route and schemas.
    assert.ok(doc.components.schemas.UserHistory);
    assert.deepEqual(doc.paths['/users/{id}/history'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/UserHistoryPage' });
    const line = server.logs.find((l) => l.message === 'openapi: documented route is not served; left out of the document' && l.fields.path === '/nowhere');
    assert.ok(line, 'the left-out route is logged');
  });

  it('describes the response record: visible fields, formats, nullability, enums, readOnly, JSON columns, relation keys', () => {
    const post = doc.components.schemas.Post;
    assert.equal(post.additionalProperties, false);
    assert.deepEqual(post.properties.id, { type: 'string', format: 'uuid', readOnly: true });
    assert.deepEqual(post.properties.created_at, { type: 'string', format: 'date-time', readOnly: true });
    assert.deepEqual(post.properties.deleted_at, { type: ['string', 'null'], format: 'date-time', readOnly: true });
    assert.deepEqual(post.properties.status, { type: 'string', enum: ['draft', 'published', 'archived'] });
    assert.deepEqual(post.properties.views, { type: 'integer', format: 'int32' });
    assert.deepEqual(post.properties.rating, { type: ['number', 'null'], format: 'double' });
    assert.deepEqual(post.properties.keywords, { type: 'array', items: { type: 'string' } });
    assert.deepEqual(post.properties.metadata, { type: ['object', 'null'] });
    assert.deepEqual(post.properties.author.anyOf, [{ $ref: '#/components/schemas/User' }, { type: 'null' }]);
    assert.deepEqual(post.properties.comments.items, { $ref: '#/components/schemas/Comment' });
    assert.deepEqual(post.properties.tags.items, { $ref: '#/components/schemas/Tag' });
    assert.ok(post.required.includes('title') && !post.required.includes('author'), 'fields are always there, relations only with include');
    const user = doc.components.schemas.User;
    assert.equal(user.properties.name.description, 'Display name.');
    assert.equal(user.properties.password, undefined, 'writeonly fields never appear in responses');
  });

  it('keeps hidden fields out of the whole document and writeonly fields in request schemas only', () => {
    const text = JSON.stringify(doc);
    assert.equal(text.includes('loginCount'), false);
    const { UserCreate, UserUpdate } = doc.components.schemas;
    assert.deepEqual(UserCreate.properties.password, { type: 'string', minLength: 8, writeOnly: true });
    assert.deepEqual(UserUpdate.properties.password, { type: 'string', minLength: 8, writeOnly: true });
  });

  it('describes the create and update bodies with the validators\' rules', () => {
    const { PostCreate, PostUpdate, UserCreate } = doc.components.schemas;
    // Issue 14: a NOT NULL foreign key the server needs is required, as the validator says.
    assert.deepEqual(PostCreate.required, ['title', 'userId']);
    assert.deepEqual(PostCreate.properties.title, { type: 'string', minLength: 1, maxLength: 200 });
    assert.deepEqual(PostCreate.properties.views, { type: 'integer', minimum: 0, maximum: 2147483647, default: 0 });
    assert.deepEqual(PostCreate.properties.rating, { type: ['number', 'null'], minimum: 0, maximum: 5 });
    assert.deepEqual(PostCreate.properties.status, { type: 'string', enum: ['draft', 'published', 'archived'], default: 'draft' });
    assert.deepEqual(PostCreate.properties.publishedAt, { type: ['string', 'null'], format: 'date-time' });
    assert.equal(PostCreate.properties.slug.description, 'Set on create only; updates ignore it.');
    assert.equal(PostUpdate.properties.slug, undefined, 'immutable fields are not in the update body');
    assert.equal(PostUpdate.required, undefined);
    for (const body of [PostCreate, PostUpdate]) {
      for (const key of ['id', 'created_at', 'updated_at', 'deleted_at', 'author', 'comments']) assert.equal(body.properties[key], undefined, key);
    }
    // email is unique: its index bounds it to 255 characters by default (issue 14, defect 5).
    assert.deepEqual(UserCreate.properties.email, { type: 'string', maxLength: 255, description: 'Unique.' });
    assert.deepEqual(UserCreate.required, ['name', 'email']);
  });

  it('lists the list parameters of each model from the registry', () => {
    const params = Object.fromEntries(doc.paths['/posts'].get.parameters.map((p: any) => [p.name ?? p.$ref, p]));
    assert.match(params.filter.description, /Filterable fields: .*title \(string\).*status \(string: draft\|published\|archived\).*created_at \(timestamp\)/);
    assert.match(params.filter.description, /author\.\{[^}]*role[^}]*\}/);
    for (const op of ['eq', 'neq', 'between', 'has', 'not_has', 'is_null', 'not_null', 'starts_with']) assert.match(params.filter.description, new RegExp(`\\b${op}\\b`));
    assert.equal(params.filter.schema.type, 'array');
    assert.equal(params['filter[N]']['x-mfx-name-pattern'], '^filter\\[\\d+\\]$');
    const sorts = params.sort.schema.items.enum;
    for (const value of ['title:asc', 'views:desc', 'created_at:asc', 'author.name:desc']) assert.ok(sorts.includes(value), value);
    assert.equal(sorts.includes('body:asc'), false, 'body is not sortable');
    assert.deepEqual(params.include.schema.items.enum, ['author', 'author.company', 'author.posts', 'author.comments', 'comments', 'comments.post', 'comments.user', 'tags', 'tags.posts']);
    assert.ok(params['#/components/parameters/page'] && params['#/components/parameters/limit']);
    // Issue 14: larger values are clamped, not refused, so the schema has no maximum and the description says so.
    assert.deepEqual(doc.components.parameters.limit.schema, { type: 'integer', minimum: 1, default: 20 });
    assert.match(doc.components.parameters.limit.description, /clamped to 200/);
    assert.match(params.q.description, /title, body/);
    assert.match(params.cursor.description, /created_at/);
    assert.ok(params.select.schema.items.enum.includes('title'));
    assert.equal(params.select.schema.items.enum.includes('password'), false);

    const company = Object.fromEntries(doc.paths['/companies'].get.parameters.map((p: any) => [p.name ?? p.$ref, p]));
    assert.equal(company.q, undefined, 'no searchable field, no q');
    assert.equal(company.cursor, undefined, 'no cursor_field, no cursor');
    // include, select and locale (every read and list route takes locale).
    assert.deepEqual(Object.keys(doc.paths['/posts/{id}'].get.parameters.map((p: any) => p.name)).length, 3);
    assert.ok(company['#/components/parameters/locale']);
  });

  it('lists every status each operation can answer', () => {
    const statuses = (method: string, path: string) => Object.keys(doc.paths[path][method].responses).sort();
    assert.deepEqual(statuses('get', '/companies'), ['200', '400', '500', '504']);
    assert.deepEqual(statuses('post', '/companies'), ['201', '400', '409', '413', '422', '500', '501', '504']);
    assert.deepEqual(statuses('get', '/companies/{id}'), ['200', '400', '404', '500', '504']);
    assert.deepEqual(statuses('patch', '/companies/{id}'), ['200', '400', '404', '409', '413', '422', '500', '501', '504']);
    assert.deepEqual(statuses('delete', '/companies/{id}'), ['204', '404', '409', '500', '504']);
    // Optimistic locking adds If-Match and 412; the authenticator adds 401, the gate 403.
    assert.deepEqual(statuses('patch', '/posts/{id}'), ['200', '400', '401', '404', '409', '412', '413', '422', '500', '501', '504']);
    assert.deepEqual(statuses('delete', '/posts/{id}'), ['204', '401', '403', '404', '409', '412', '500', '504']);
    assert.deepEqual(doc.paths['/posts/{id}'].patch.parameters, [{ $ref: '#/components/parameters/ifMatch' }]);
    assert.equal(doc.paths['/companies/{id}'].patch.parameters.length, 0);
    assert.deepEqual(doc.components.responses.NotFound, { description: 'NOT_FOUND: no such record (or not visible to the caller)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
    assert.ok(doc.components.schemas.Error.properties.error.properties.code.enum.includes('VALIDATION_ERROR'));
  });

  it('derives security from the documented auth hooks scoped onto each operation', async () => {
    assert.deepEqual(doc.components.securitySchemes, { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } });
    assert.deepEqual(doc.paths['/posts'].post.security, [{ bearerAuth: [] }]);
    assert.deepEqual(doc.paths['/posts/{id}'].delete.security, [{ bearerAuth: [] }]);
    assert.equal(doc.paths['/posts'].get.security, undefined, 'list is not scoped: public');
    assert.equal(doc.paths['/companies'].post.security, undefined);

    // The documented statuses are the ones answered (the harness validates each response).
    const refused = await server.request('POST', '/posts', { body: { title: 'x' } });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'UNAUTHORIZED');
    const user = await server.request('POST', '/users', { body: { name: 'Ada', email: 'ada@example.com' } });
    const created = await server.request('POST', '/posts', { body: { title: 'x', userId: user.body.data.id }, headers: bearerHeader(token({ roles: ['member'] })) });
    assert.equal(created.status, 201);
    const forbidden = await server.request('DELETE', `/posts/${created.body.data.id}`, { headers: bearerHeader(token({ roles: ['member'] })) });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.code, 'FORBIDDEN');
    assert.equal((await server.request('GET', `/posts/${created.body.data.id}`)).status, 200);
  });

  it('documents the probes and the document route itself', () => {
    assert.deepEqual(doc.paths['/live'].get.responses['200'].content['application/json'].schema.properties.status, { type: 'string', enum: ['ok'] });
    assert.deepEqual(Object.keys(doc.paths['/ready'].get.responses), ['200', '503']);
    assert.deepEqual(Object.keys(doc.paths['/openapi.json'].get.responses), ['200', '500']);
    assert.equal(doc.paths['/openapi.json'].get.security, undefined);
  });
});

describe('OpenAPI document of the kitchen-sink fixture (every directive)', () => {
  // Product's adapter:catalogue is served from the test's one database here (test/runtime/adapters.test.ts serves two).
  const server = useServer(sqlite, { fixture: 'kitchen-sink', overrides: { Product: { adapter: null } }, config: { probes: { health: { disabled: true } } } });
  let doc: any;
  before(async () => {
    doc = (await server.request('GET', '/openapi.json')).body;
  });

  it('is valid by a third-party validator', async () => {
    await assertValidOpenApi(doc);
  });

  it('gives singletons GET and PATCH on the table path only', () => {
    assert.deepEqual(Object.keys(doc.paths['/shop_configs']).sort(), ['get', 'head', 'options', 'patch']);
    assert.equal(doc.paths['/shop_configs/{id}'], undefined);
    assert.equal(doc.components.schemas.ShopConfigCreate, undefined);
    assert.deepEqual(doc.components.schemas.ShopConfig.properties.id, { type: 'string', readOnly: true });
  });

  it('gives headless models a schema and no paths; leaves out routes that are not mounted and disabled probes', () => {
    assert.ok(doc.components.schemas.Maker);
    assert.equal(Object.keys(doc.paths).some((p) => p.startsWith('/makers')), false);
    assert.ok(doc.paths['/catalogue_items/aggregate'].get.parameters[0].content['application/json'].schema);
    assert.equal(doc.paths['/catalogue_items/export'].get.operationId, 'exportProduct');
    assert.equal(doc.paths['/health'], undefined);
    assert.ok(doc.components.schemas.ProductHistory.properties.diff);
    assert.equal(doc.components.schemas.ProductHistory.properties.snapshot, undefined, 'diff-only history has no snapshot');
  });

  it('reflects the directives of every field', () => {
    const { Product, ProductCreate, ProductUpdate, Part } = doc.components.schemas;
    assert.equal(Product.properties.updated_at, undefined, 'base:updated_at=hidden');
    assert.equal(Product.properties.internalRank, undefined, 'hidden');
    assert.equal(Product.properties.cache, undefined, 'excluded with -');
    assert.equal(Product.properties.adminPin, undefined, 'writeonly');
    assert.equal(ProductCreate.properties.adminPin.writeOnly, true);
    assert.deepEqual(Product.properties.tier, { type: 'integer', format: 'int32', enum: [1, 2, 3] });
    assert.deepEqual(Product.properties.currency, { type: ['string', 'null'], enum: ['EUR', 'USD', null] });
    assert.deepEqual(Product.properties.views, { type: 'integer', format: 'int64' });
    assert.deepEqual(Product.properties.importedFrom, { type: ['string', 'null'], readOnly: true });
    assert.equal(ProductCreate.properties.importedFrom, undefined, 'readonly fields are not writable');
    assert.deepEqual(ProductCreate.properties.price, { type: 'number', minimum: 0.5, maximum: 10000, default: 9.99 });
    assert.deepEqual(ProductCreate.properties.name, { type: 'string', minLength: 1, maxLength: 120 });
    assert.deepEqual(ProductCreate.required, ['name', 'makerId']);
    assert.equal(ProductUpdate.properties.sku, undefined, 'immutable');
    assert.ok(Product.properties.title_i18n, 'split localized field carries its locale map');
    assert.equal(Product.properties.tagline_i18n, undefined, 'resolve mode has no companion');
    assert.deepEqual(Part.properties.is_deleted, { type: 'boolean', readOnly: true });
    const params = doc.paths['/catalogue_items'].get.parameters.map((p: any) => p.name ?? p.$ref);
    assert.ok(params.includes('#/components/parameters/locale'));
    assert.ok(params.includes('cursor'));
  });

  it('sort takes <field>.<locale> of a sortable localized field by pattern when every locale code is accepted', () => {
    const sort = doc.paths['/catalogue_items'].get.parameters.find((p: any) => p.name === 'sort');
    const [listed, localized] = sort.schema.items.anyOf;
    assert.ok(listed.enum.includes('title:asc') && listed.enum.includes('name:desc'));
    const pattern = new RegExp(localized.pattern);
    for (const value of ['title.de:asc', 'title.pt-BR:desc', 'title.fr']) assert.match(value, pattern);
    for (const value of ['name.de:asc', 'title.d_e:asc', 'title.de:up', 'xtitle.de:asc']) assert.doesNotMatch(value, pattern);
  });
});

describe('Documentation configuration', () => {
  it('mounts no spec route unless documentation is configured', async () => {
    const server = await startServer(sqlite, { config: { documentation: undefined } });
    try {
      const res = await server.request('GET', '/openapi.json');
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    } finally {
      await server.close();
    }
  });

  it('refuses a documentation that is neither public nor guarded', async () => {
    const app = createServer({ port: 0, documentation: { title: 'Blog' }, handleSignals: false });
    app.register(await loadFixture('blog'));
    app.setDB(openSqlite(':memory:', app.registry));
    assert.throws(() => app.handler(), {
      name: 'ConfigError',
      message: 'mfx: documentation is configured without public: true and without auth hooks; set documentation.public or give documentation.auth hooks that guard /openapi.json',
    });
    await app.db.close();
  });

  it('runs the OpenAPI auth hooks before generating a non-public document', async () => {
    const seen: unknown[] = [];
    const docsKey = apiKey({ header: 'X-Docs-Key', keys: { 'letmein-letmein-letmein': { userId: 'docs-reader' } } });
    const spy = async (ctx: { model: unknown }, next: () => Promise<void>) => {
      seen.push(ctx.model);
      await next();
    };
    const server = await startServer(sqlite, { config: { documentation: { auth: [spy, docsKey], title: 'Blog API', version: '2.1.0', description: 'The blog' } } });
    try {
      const refused = await server.request('GET', '/openapi.json');
      assert.equal(refused.status, 401);
      assert.equal(refused.body.error.code, 'UNAUTHORIZED');
      const res = await server.request('GET', '/openapi.json', { headers: { 'x-docs-key': 'letmein-letmein-letmein' } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.info, { title: 'Blog API', version: '2.1.0', description: 'The blog' });
      assert.deepEqual(res.body.paths['/openapi.json'].get.security, [{ apiKeyAuth_X_Docs_Key: [] }]);
      assert.deepEqual(res.body.components.securitySchemes.apiKeyAuth_X_Docs_Key, { type: 'apiKey', in: 'header', name: 'X-Docs-Key' });
      assert.deepEqual(seen, [null, null]);
      await assertValidOpenApi(res.body);
    } finally {
      await server.close();
    }
  });

  it('takes contributions only before start, and refuses a schema name that is taken', async () => {
    const server = await startServer(sqlite);
    try {
      assert.throws(() => server.app.openapi.contribute({ name: 'late', contribute() {} }), {
        name: 'RegistrationClosedError',
        message: /^mfx: cannot register the OpenAPI contribution late: registration is closed/,
      });
    } finally {
      await server.close();
    }
    const app = createServer({ port: 0, documentation: { public: true }, handleSignals: false });
    app.register(await loadFixture('blog'));
    app.openapi.contribute({ name: 'clashing', contribute: (doc) => void doc.schema('Post', { type: 'object' }) });
    app.setDB(openSqlite(':memory:', app.registry));
    assert.throws(() => app.handler(), {
      name: 'ConfigError',
      message: 'mfx: the OpenAPI document cannot be built: mfx openapi: clashing adds schema Post, which another model or contribution already uses; rename the model or the schema',
    });
    await app.db.close();
  });

  it('follows the path prefix and the service name', async () => {
    const server = await startServer(sqlite, { config: { pathPrefix: '/v1', serviceName: 'blog' } });
    try {
      const doc = (await server.request('GET', '/openapi.json')).body;
      assert.deepEqual(doc.servers, [{ url: '/v1' }]);
      assert.equal(doc.info.title, 'blog');
    } finally {
      await server.close();
    }
  });
});

describe('OpenAPI document of the blog application (auth hooks and the login action)', () => {
  it('documents security from the ready-made hooks and the action from its declaration', async () => {
    const { default: setup } = await import('../../fixtures/blog/app.js');
    const server = await startServer(sqlite, { setup });
    try {
      const doc = (await server.request('GET', '/openapi.json')).body;
      await assertValidOpenApi(doc);
      assert.deepEqual(doc.components.securitySchemes, { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } });
      assert.deepEqual(doc.paths['/posts'].post.security, [{ bearerAuth: [] }]);
      assert.deepEqual(doc.paths['/users'].post.security, [{ bearerAuth: [] }, {}], 'sign-up: anonymous callers allowed');
      assert.equal(doc.paths['/posts'].get.security, undefined, 'reads are public');
      const login = doc.paths['/auth/login'].post;
      assert.equal(login.operationId, 'login');
      assert.deepEqual(login.requestBody.content['application/json'].schema.required, ['email', 'password']);
      assert.ok(login.responses['200'].content['application/json'].schema.properties.data.properties.token);

      // Every answer below is checked against that document by the harness.
      const signUp = await server.request('POST', '/users', { body: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' } });
      assert.equal(signUp.status, 201);
      const wrong = await server.request('POST', '/auth/login', { body: { email: 'ada@example.com', password: 'wrong horse' } });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.error.code, 'INVALID_CREDENTIALS');
      const ok = await server.request('POST', '/auth/login', { body: { email: 'ada@example.com', password: 'correct horse' } });
      assert.equal(ok.status, 200);
      const anonymousWrite = await server.request('POST', '/tags', { body: { name: 'x' } });
      assert.equal(anonymousWrite.status, 401);
      const tag = await server.request('POST', '/tags', { body: { name: 'x' }, headers: { authorization: `Bearer ${ok.body.data.token}` } });
      assert.equal(tag.status, 201);
    } finally {
      await server.close();
    }
  });
});
