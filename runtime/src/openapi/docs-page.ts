/**
 * GET {prefix}/docs: a page that renders the OpenAPI document with Swagger
 * UI, and GET {prefix}/docs/assets/:file, the viewer's files. The viewer
 * comes from the npm package swagger-ui-dist, read from disk (it is never
 * imported), and is served by the runtime itself: the page loads nothing
 * from another origin, and its Content-Security-Policy allows only this one.
 *
 * Mounted only when the document is public (`documentation.public`), the
 * same switch as /openapi.json's; `documentation.page: false` leaves it out.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ResolvedConfig } from '../config/config.js';
import { ConfigError, ApiError } from '../errors/api-error.js';
import { type DispatchDeps, routeHandler } from '../http/dispatch.js';
import type { RouteTable } from '../http/route-table.js';
import type { Logger } from '../log/logger.js';
import type { Context } from '../pipeline/context.js';
import type { Chain } from '../pipeline/pipeline.js';
import { headOf, type PathContribution } from './builder.js';
import { DOCUMENT_PATH } from './route.js';

export const DOCS_PATH = '/docs';
export const ASSETS_PATH = `${DOCS_PATH}/assets`;

/** Starts the viewer on the element that names the document's URL; kept out of the page so no inline script is needed. */
const STARTER = `'use strict';
(function () {
  var root = document.getElementById('mfx-docs');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    domNode: root,
    deepLinking: true,
    // Swagger UI would otherwise send the document to an online validator.
    validatorUrl: null,
    displayRequestDuration: true,
  });
})();
`;

/** Where an asset's bytes come from: a file of swagger-ui-dist, or text of our own. */
type AssetSource = { file: string } | { text: string };

/** Every file the page loads, by the name it is served under, with its content type. */
export const DOCS_ASSETS: Readonly<Record<string, { contentType: string; source: AssetSource }>> = {
  'swagger-ui.css': { contentType: 'text/css; charset=utf-8', source: { file: 'swagger-ui.css' } },
  'swagger-ui-bundle.js': { contentType: 'text/javascript; charset=utf-8', source: { file: 'swagger-ui-bundle.js' } },
  'favicon-32x32.png': { contentType: 'image/png', source: { file: 'favicon-32x32.png' } },
  'mfx-docs.js': { contentType: 'text/javascript; charset=utf-8', source: { text: STARTER } },
};

/** The page's policy: everything from this origin only, no inline script or style; Swagger UI's icons are data: URLs. */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Browsers may keep an asset for a day; a changed file gets a new ETag, checked once that day has passed. */
const ASSET_CACHE = 'public, max-age=86400';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The page's HTML: the viewer's stylesheet and scripts, all under
 * `{prefix}/docs/assets/`, and the document's URL in a data attribute.
 *
 * @example
 * docsPageHtml('/api', 'Blog API'); // '<!doctype html>…<script src="/api/docs/assets/swagger-ui-bundle.js">…'
 */
export function docsPageHtml(prefix: string, title: string): string {
  const asset = (name: string) => escapeHtml(`${prefix}${ASSETS_PATH}/${name}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<div id="mfx-docs" data-openapi-url="${escapeHtml(`${prefix}${DOCUMENT_PATH}`)}"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('mfx-docs.js')}"></script>
</body>
</html>
`;
}

/** The directory of the installed swagger-ui-dist, or a ConfigError saying how to get it. */
function viewerDirectory(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch {
    throw new ConfigError(
      'the documentation page needs the package swagger-ui-dist (a dependency of @mfx/runtime), which is not installed; reinstall @mfx/runtime, or set documentation.page: false (mfx serve --no-docs) to serve no page',
    );
  }
}

interface LoadedAsset {
  bytes: Buffer;
  etag: string;
  contentType: string;
}

/** Reads each asset once, on its first request, and keeps it with its ETag. */
function assetLoader(directory: string): (name: string) => Promise<LoadedAsset> | undefined {
  const loaded = new Map<string, Promise<LoadedAsset>>();
  return (name) => {
    const asset = Object.hasOwn(DOCS_ASSETS, name) ? DOCS_ASSETS[name] : undefined;
    if (!asset) return undefined;
    let pending = loaded.get(name);
    if (!pending) {
      const source = asset.source;
      pending = ('text' in source ? Promise.resolve(Buffer.from(source.text)) : readFile(join(directory, source.file))).then((bytes) => ({
        bytes,
        etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
        contentType: asset.contentType,
      }));
      // A failed read is not kept: the next request tries again.
      pending.catch(() => loaded.delete(name));
      loaded.set(name, pending);
    }
    return pending;
  };
}

/** Whether If-None-Match names this ETag (or `*`). */
function notModified(ctx: Context, etag: string): boolean {
  const header = ctx.req.headers['if-none-match'];
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

const SHARED_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

function pageChain(html: string): Chain {
  return async (ctx) => {
    ctx.respondHtml(200, html, { ...SHARED_HEADERS, 'Cache-Control': 'no-cache', 'Content-Security-Policy': DOCS_CSP });
  };
}

function assetChain(load: (name: string) => Promise<LoadedAsset> | undefined): Chain {
  return async (ctx) => {
    const name = ctx.params.file ?? '';
    const pending = load(name);
    if (!pending) throw new ApiError('NOT_FOUND', `no documentation asset ${JSON.stringify(name.slice(0, 100))}`);
    const asset = await pending;
    const headers = { ...SHARED_HEADERS, 'Cache-Control': ASSET_CACHE, ETag: asset.etag };
    if (notModified(ctx, asset.etag)) return ctx.respond(304, undefined, headers);
    ctx.respondStream(200, {
      source: (async function* () {
        yield asset.bytes;
      })(),
      contentType: asset.contentType,
      length: asset.bytes.length,
      headers,
    });
  };
}

/** Whether the page is mounted with this configuration (the document's route contribution asks too). */
export function docsPageEnabled(config: Pick<ResolvedConfig, 'documentation'>): boolean {
  return config.documentation?.public === true && config.documentation.page !== false;
}

/**
 * Mounts the page and its assets when the document is public. A route that
 * already answers GET {prefix}/docs (a model whose table is `docs`, an
 * action) keeps it: the page is left out and a warning says so. Returns
 * whether the page was mounted.
 */
export function mountDocsPage(table: RouteTable, config: ResolvedConfig, deps: DispatchDeps, log: Logger, title: string): boolean {
  if (!docsPageEnabled(config)) return false;
  const page = `${config.pathPrefix}${DOCS_PATH}`;
  const assets = `${config.pathPrefix}${ASSETS_PATH}/:file`;
  const taken = [page, assets].find((pattern) => table.declared(pattern).length > 0 || table.has('GET', pattern.replace(':file', 'x')));
  if (taken) {
    log.warn({ route: `GET ${taken}` }, 'documentation page not mounted: another route answers its path; rename that route or set documentation.page: false');
    return false;
  }
  const load = assetLoader(viewerDirectory());
  const serve = (chain: Chain) => routeHandler(deps, null, 'read', chain);
  const pageHandler = serve(pageChain(docsPageHtml(config.pathPrefix, title)));
  const assetHandler = serve(assetChain(load));
  for (const method of ['GET', 'HEAD']) {
    table.add(method, page, pageHandler);
    table.add(method, assets, assetHandler);
  }
  return true;
}

/**
 * Documents the page and its assets while they are mounted (`mounted` is
 * asked on every build; a route of the app at /docs documents itself).
 */
export function docsPageContribution(mounted: () => boolean): PathContribution {
  return {
    name: 'documentation page',
    contribute(doc) {
      if (!mounted()) return;
      const page = {
        operationId: 'documentationPage',
        summary: 'A page that renders this document (Swagger UI, served from this server)',
        tags: ['documentation'],
        responses: {
          '200': { description: 'the page', content: { 'text/html': { schema: { type: 'string' } } } },
          ...doc.errors('500'),
        },
      };
      doc.operation('get', DOCS_PATH, page);
      doc.operation('head', DOCS_PATH, headOf(page));
      const types = [...new Set(Object.values(DOCS_ASSETS).map((asset) => asset.contentType.split(';')[0]))];
      const asset = {
        operationId: 'documentationAsset',
        summary: "A file of the documentation page's viewer",
        tags: ['documentation'],
        parameters: [{ name: 'file', in: 'path' as const, required: true, schema: { type: 'string', enum: Object.keys(DOCS_ASSETS) } }],
        responses: {
          '200': {
            description: 'the file, with ETag and Cache-Control',
            content: Object.fromEntries(types.map((type) => [type, { schema: { type: 'string' } }])),
          },
          '304': { description: 'not modified: If-None-Match names the current ETag' },
          ...doc.errors('404', '500'),
        },
      };
      doc.operation('get', `${ASSETS_PATH}/{file}`, asset);
      doc.operation('head', `${ASSETS_PATH}/{file}`, headOf(asset));
    },
  };
}
