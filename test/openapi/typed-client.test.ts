// The document drives third-party tooling: openapi-typescript generates types
// from the live document, and a client written with openapi-fetch against
// those types type-checks and works against the real server.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { eachBackend, useServer } from '../support/suite.js';
import { QUERY_LANGUAGE_MERGED, walkthrough } from './typed-client/blog-client.js';

// The backend matrix is resolved when suite.js is imported, before any test runs: the type check
// below blocks the event loop for seconds, longer than the PostgreSQL probe waits.
const dir = resolve(import.meta.dirname, 'typed-client');
const generatedFile = join(dir, 'blog.d.ts');

/** Types as a user generates them; request fields with a default stay optional (the server fills them in). */
async function generateTypes(doc: unknown): Promise<string> {
  return astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0], { defaultNonNullable: false }));
}

describe('typed client from the live document', () => {
  it('type-checks the generated types and the client on their own', () => {
    const program = ts.createProgram([join(dir, 'blog-client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    assert.deepEqual(diagnostics, []);
  });
});

eachBackend('typed client', (backend) => {
  const server = useServer(backend);

  it('generates exactly the committed types (UPDATE_GOLDEN=1 rewrites them)', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    const generated = await generateTypes(doc);
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(generatedFile, generated);
    assert.ok(
      generated === readFileSync(generatedFile, 'utf8'),
      'the document changed: run `UPDATE_GOLDEN=1 npm test -- test/openapi/typed-client.test.ts`, read the diff of blog.d.ts, and fix blog-client.ts if it no longer type-checks',
    );
  });

  it('creates, lists with filters, reads with include, updates and deletes', async () => {
    const result = await walkthrough(server.url);
    assert.equal(result.user.name, 'Ada Lovelace');
    assert.equal((result.user as Record<string, unknown>).password, undefined);
    assert.equal(result.published.status, 'published');
    assert.deepEqual(result.published.keywords, ['math']);
    assert.ok(result.listed.some((p) => p.id === result.published.id));
    assert.equal(result.readWithAuthor.id, result.published.id);
    assert.equal(result.updated.status, 'archived');
    assert.equal(result.updated.rating, 4.5);
    assert.equal(result.deleteStatus, 204);
    assert.deepEqual(result.afterDelete, { status: 404, code: 'NOT_FOUND' });
    if (QUERY_LANGUAGE_MERGED) {
      // Issue 4: the server applies filter and include.
      assert.deepEqual(result.listed.map((p) => p.title), ['Notes on the Engine']);
      assert.equal(result.listedTotal, 1);
      assert.equal(result.readWithAuthor.author?.name, 'Ada Lovelace');
    } else {
      // Until then, filter and include are accepted and ignored.
      assert.equal(result.listedTotal, 2);
      assert.equal(result.readWithAuthor.author, undefined);
    }
  });
});
