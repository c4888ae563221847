// Issue 14, defect 11: the document against real traffic. Responses with
// `select`, a create without the foreign key the server needs, a clamped
// `limit`, and tags and descriptions for documentation viewers.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ResponseValidator } from '../support/response-validator.js';
import { eachBackend, useServer } from '../support/suite.js';

eachBackend('the OpenAPI document against real traffic', (backend) => {
  const server = useServer(backend);
  let doc: any;
  let userId: string;
  let postId: string;
  before(async () => {
    doc = (await server.request('GET', '/openapi.json')).body;
    userId = (await server.request('POST', '/users', { body: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' } })).body.data.id;
    postId = (await server.request('POST', '/posts', { body: { title: 'Engines', userId } })).body.data.id;
  });

  it('documents select responses: a validating client accepts them, and still refuses keys the record does not have', async () => {
    // server.request checks every answer against the document, strictly (required keys included).
    const listed = await server.request('GET', '/posts?select=title');
    assert.deepEqual(listed.body.data, [{ title: 'Engines' }]);
    const read = await server.request('GET', `/posts/${postId}?select=title,views&include=author`);
    assert.deepEqual(Object.keys(read.body.data).sort(), ['author', 'title', 'views']);

    const validator = new ResponseValidator(doc);
    assert.equal(validator.check('GET', '/posts?select=title', 200, listed.text, 'application/json'), null);
    assert.equal(validator.check('GET', `/posts/${postId}`, 200, read.text, 'application/json'), null);
    const leaked = JSON.stringify({ data: { title: 'Engines', loginCount: 3 } });
    assert.match(validator.check('GET', `/posts/${postId}`, 200, leaked, 'application/json') ?? '', /does not match the document/);
    const missing = JSON.stringify({ data: { id: postId } });
    assert.match(validator.check('POST', '/posts', 201, missing, 'application/json') ?? '', /does not match the document/, 'create answers the full record');

    const { PostSelection, PostPage, PostReadEnvelope, PostEnvelope } = doc.components.schemas;
    assert.equal(PostSelection.required, undefined);
    assert.equal(PostSelection.additionalProperties, false);
    assert.deepEqual(PostPage.properties.data.items.anyOf, [{ $ref: '#/components/schemas/Post' }, { $ref: '#/components/schemas/PostSelection' }]);
    assert.deepEqual(PostReadEnvelope.properties.data, PostPage.properties.data.items);
    assert.deepEqual(PostEnvelope.properties.data, { $ref: '#/components/schemas/Post' });
    assert.deepEqual(doc.paths['/posts/{id}'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/PostReadEnvelope' });
  });

  it('requires a NOT NULL foreign key on create: 422 naming the field, nothing written, and the document says so', async () => {
    const before = (await server.request('GET', '/posts')).body.meta.total;
    const res = await server.request('POST', '/posts', { body: { title: 'Orphan' } });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.error, {
      code: 'VALIDATION_ERROR',
      message: 'the Post is not valid; see details',
      details: [{ field: 'userId', message: 'is required: the id of its author (the foreign key is NOT NULL; declare the property `| null` to make it optional)' }],
    });
    assert.equal((await server.request('GET', '/posts')).body.meta.total, before);
    assert.deepEqual(doc.components.schemas.PostCreate.required, ['title', 'userId']);
    // A nullable foreign key stays optional.
    assert.equal(doc.components.schemas.CommentCreate.required.includes('userId'), false);
    assert.equal((await server.request('POST', '/comments', { body: { body: 'nice', postId } })).status, 201);
  });

  it('documents the limit clamp instead of a maximum a validating client would enforce', async () => {
    const limit = doc.components.parameters.limit;
    const validate = new Ajv2020({ strict: false }).compile(limit.schema);
    assert.equal(validate(500), true, 'a client checking its request against the document may send 500');
    assert.equal(validate(0), false);
    assert.match(limit.description, /clamped to 200/);
    const res = await server.request('GET', '/posts?limit=500');
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.limit, 200);
  });

  it('tags every operation and describes the tags and the operations for documentation viewers', () => {
    const tags = new Map<string, string | undefined>(doc.tags.map((t: { name: string; description?: string }) => [t.name, t.description]));
    for (const model of ['Company', 'User', 'Post', 'Comment', 'Tag', 'PostTag']) assert.ok(tags.has(model), model);
    assert.equal(tags.get('Post'), 'A blog post.');
    assert.equal(tags.get('PostTag'), 'Junction between posts and tags.');
    assert.ok(tags.get('probes'));
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters') continue;
        assert.equal(operation.tags?.length, 1, `${method} ${path} has one tag`);
        assert.ok(tags.has(operation.tags[0]), `${method} ${path}: tag ${operation.tags[0]} is described`);
        if (!path.startsWith('/posts')) continue;
        assert.ok(typeof operation.description === 'string' && operation.description.length > 20, `${method} ${path} has a description`);
      }
    }
    assert.match(doc.paths['/posts'].get.description, /at most 32 clauses/);
  });
});
