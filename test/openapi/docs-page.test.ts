// The documentation page at {prefix}/docs: HTML that loads only this
// server's files, the viewer's assets with their types, ETags and cache
// headers, and 404 whenever the document is not public.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { it } from 'node:test';
import { DOCS_CSP } from '../../runtime/src/openapi/docs-page.js';
import { eachBackend, useServer } from '../support/suite.js';

const viewer = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Every src= and href= of the page, and the document URL it hands to the viewer. */
function references(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href|data-openapi-url)="([^"]*)"/g)].map((m) => m[1]);
}

eachBackend('the documentation page', (backend) => {
  const server = useServer(backend);

  it('GET /docs is an HTML page that loads only files under /api/docs/assets and the document of this server', async () => {
    const res = await server.request('GET', '/docs');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('content-security-policy'), DOCS_CSP);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(references(res.text), [
      '/api/docs/assets/favicon-32x32.png',
      '/api/docs/assets/swagger-ui.css',
      '/api/openapi.json',
      '/api/docs/assets/swagger-ui-bundle.js',
      '/api/docs/assets/mfx-docs.js',
    ]);
    assert.doesNotMatch(res.text, /https?:|\/\/|<script>|<style|style=/, 'no other origin, no inline script or style');
    assert.match(res.text, /<title>mfx API<\/title>/);
  });

  it('HEAD /docs answers the headers only; other methods are 405 with Allow', async () => {
    const head = await server.request('HEAD', '/docs');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(Number(head.headers.get('content-length')), Buffer.byteLength((await server.request('GET', '/docs')).text));
    const post = await server.request('POST', '/docs', { body: {} });
    assert.equal(post.status, 405);
    assert.deepEqual(post.body, { error: { code: 'METHOD_NOT_ALLOWED', message: 'POST is not allowed here; allowed: GET, HEAD' } });
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });

  it("serves each asset with its content type, the installed viewer's bytes, an ETag and Cache-Control", async () => {
    const expected: [string, string, Buffer][] = [
      ['swagger-ui.css', 'text/css; charset=utf-8', readFileSync(join(viewer, 'swagger-ui.css'))],
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8', readFileSync(join(viewer, 'swagger-ui-bundle.js'))],
      ['favicon-32x32.png', 'image/png', readFileSync(join(viewer, 'favicon-32x32.png'))],
    ];
    for (const [name, type, bytes] of expected) {
      const checked = await server.request('GET', `/docs/assets/${name}`);
      assert.equal(checked.status, 200, name);
      assert.equal(checked.headers.get('content-type'), type, name);
      assert.equal(checked.headers.get('cache-control'), 'public, max-age=86400', name);
      assert.match(checked.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{27}"$/, name);
      // The bytes themselves (the checked request decodes them as text).
      const raw = Buffer.from(await (await fetch(`${server.url}/docs/assets/${name}`)).arrayBuffer());
      assert.ok(raw.equals(bytes), `${name} is the installed file`);
      assert.equal(Number(checked.headers.get('content-length')), bytes.length, name);
    }
    const head = await server.request('HEAD', '/docs/assets/swagger-ui-bundle.js');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(Number(head.headers.get('content-length')), expected[1][2].length);
    assert.equal(head.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const starter = await server.request('GET', '/docs/assets/mfx-docs.js');
    assert.equal(starter.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.match(starter.text, /SwaggerUIBundle\(/);
    assert.match(starter.text, /validatorUrl: null/, 'the document is never sent to an online validator');
  });

  it('answers 304 to If-None-Match with the current ETag, and the file to any other tag', async () => {
    const first = await server.request('GET', '/docs/assets/swagger-ui.css');
    const etag = first.headers.get('etag')!;
    const again = await server.request('GET', '/docs/assets/swagger-ui.css', { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers.get('etag'), etag);
    assert.equal((await server.request('GET', '/docs/assets/swagger-ui.css', { headers: { 'if-none-match': `W/${etag}, "other"` } })).status, 304);
    const stale = await server.request('GET', '/docs/assets/swagger-ui.css', { headers: { 'if-none-match': '"other"' } });
    assert.equal(stale.status, 200);
    assert.equal(stale.text, first.text);
  });

  it('answers 404 for a file that is not an asset, also one that climbs out of the directory', async () => {
    for (const [path, name] of [
      ['/docs/assets/index.html', 'index.html'],
      ['/docs/assets/..%2Fpackage.json', '../package.json'],
      ['/docs/assets/swagger-ui.css.map', 'swagger-ui.css.map'],
    ]) {
      const res = await server.request('GET', path);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.body, { error: { code: 'NOT_FOUND', message: `no documentation asset ${JSON.stringify(name)}` } });
    }
  });

  it('is in the OpenAPI document, with the content types it answers', async () => {
    const doc = (await server.request('GET', '/openapi.json')).body;
    assert.deepEqual(Object.keys(doc.paths['/docs']), ['get', 'head']);
    assert.deepEqual(Object.keys(doc.paths['/docs/assets/{file}'].get.responses['200'].content), ['text/css', 'text/javascript', 'image/png']);
    assert.deepEqual(doc.paths['/docs/assets/{file}'].get.parameters[0].schema.enum, ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'mfx-docs.js']);
  });
});

const notFound = (path: string) => ({ error: { code: 'NOT_FOUND', message: `no route for GET /api${path}` } });

eachBackend('the documentation page when the document is not public', (backend) => {
  const guarded = useServer(backend, {
    config: {
      documentation: {
        auth: [
          async (ctx, next) => {
            if (ctx.req.headers['x-docs-key'] !== 'let-me-in') throw new Error('refused');
            await next();
          },
        ],
      },
    },
  });
  const unset = useServer(backend, { config: { documentation: undefined } });
  const pageOff = useServer(backend, { config: { documentation: { public: true, page: false } } });

  it('is 404 when the document is guarded by auth hooks, while the document itself is served to callers the hooks let in', async () => {
    for (const path of ['/docs', '/docs/assets/swagger-ui.css']) {
      const res = await guarded.request('GET', path, { unchecked: true });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, notFound(path));
    }
    assert.equal((await guarded.request('GET', '/openapi.json', { headers: { 'x-docs-key': 'let-me-in' }, unchecked: true })).status, 200);
  });

  it('is 404 when documentation is not configured', async () => {
    for (const path of ['/docs', '/docs/assets/swagger-ui-bundle.js', '/openapi.json']) {
      const res = await unset.request('GET', path);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, notFound(path));
    }
  });

  it('is 404 with documentation.page: false, and the public document leaves it out', async () => {
    for (const path of ['/docs', '/docs/assets/mfx-docs.js']) {
      const res = await pageOff.request('GET', path);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, notFound(path));
    }
    const doc = (await pageOff.request('GET', '/openapi.json')).body;
    assert.equal(doc.paths['/docs'], undefined);
    assert.equal(doc.paths['/docs/assets/{file}'], undefined);
  });
});

eachBackend('the documentation page beside a route of the app at /docs', (backend) => {
  const server = useServer(backend, {
    setup(app) {
      app.action({ method: 'GET', path: '/docs', public: true, handler: async () => ({ mine: true }) });
    },
  });

  it("leaves the app's route in place and says why the page is not mounted", async () => {
    const res = await server.request('GET', '/docs', { unchecked: true });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: { mine: true } });
    const line = await server.logLine((entry) => entry.message?.startsWith('documentation page not mounted') ?? false);
    assert.equal(line.level, 'warn');
    assert.equal(line.fields.route, 'GET /api/docs');
    assert.equal((await server.request('GET', '/docs/assets/swagger-ui.css')).status, 404);
  });
});
