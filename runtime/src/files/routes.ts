/**
 * The standalone file routes: `POST {prefix}/files` (the two-step upload),
 * `GET`/`HEAD {prefix}/files/<key>` (the bytes, with byte ranges) and
 * `DELETE {prefix}/files/<key>`. They run the Auth-step hooks scoped to the
 * `file` operation, then their own work; without storage they answer 501
 * NO_STORAGE.
 */
import { createHash } from 'node:crypto';
import { ApiError, ConfigError } from '../errors/api-error.js';
import { bodyLimitOf, isMultipart } from '../http/body.js';
import type { RouteHandler, RouteTable } from '../http/route-table.js';
import type { Context } from '../pipeline/context.js';
import { type StepDefaults, straight } from '../pipeline/pipeline.js';
import { isFileKey } from './keys.js';
import type { ByteRange, FileStorage, StoredFile } from './storage.js';
import { type FileRules, readUpload } from './upload.js';

/** The part `POST /files` reads the file from. */
export const FILE_PART = 'file';

/** What POST /files takes: the one part, without max_size or accept (the body's limit still holds). */
const FILE_ROUTE_PARTS: ReadonlyMap<string, FileRules> = new Map([[FILE_PART, {}]]);

/** The three routes, each as step defaults (the work at the DB step). */
export interface FileRouteDefaults {
  upload: StepDefaults;
  download: StepDefaults;
  remove: StepDefaults;
}

const none: StepDefaults = { auth: null, deserialize: null, validate: null, service: null, db: null, response: null };

/**
 * The work of the standalone routes over `storage` (null: every route
 * answers 501 NO_STORAGE), uploads capped at `maxUploadBytes`.
 *
 * @example
 * const { upload } = fileRouteDefaults(diskStorage({ dir }), 32 << 20);
 */
export function fileRouteDefaults(storage: FileStorage | null, maxUploadBytes: number): FileRouteDefaults {
  const need = (): FileStorage => {
    if (!storage) throw new ApiError('NO_STORAGE', 'file routes need file storage; configure files: { storage } (or mfx serve --files DIR)');
    return storage;
  };
  const failed = (ctx: Context, doing: string) => (error: unknown) => {
    if (error instanceof ApiError) throw error;
    ctx.log.error({ requestId: ctx.requestId, err: String((error as Error)?.stack ?? error) }, `file storage failed ${doing}`);
    throw new ApiError('INTERNAL');
  };
  return {
    upload: {
      ...none,
      db: straight(async (ctx) => {
        const files = need();
        if (!isMultipart(ctx.req)) {
          throw new ApiError('MULTIPART_ERROR', `POST /files takes a multipart/form-data body with the file in a part named "${FILE_PART}"`);
        }
        const read = await readUpload(ctx.req, {
          storage: files,
          maxBytes: bodyLimitOf(ctx, maxUploadBytes),
          files: FILE_ROUTE_PARTS,
          onStorageError: (error) => ctx.log.error({ requestId: ctx.requestId, err: String((error as Error)?.stack ?? error) }, 'file storage failed storing an upload'),
        });
        const file = read.files[0];
        if (!file) {
          throw new ApiError('VALIDATION_ERROR', 'the upload has no file; see details', [{ field: FILE_PART, message: `is required: send the file as a multipart part named "${FILE_PART}"` }]);
        }
        ctx.respond(201, { data: { key: file.key, size: file.size, contentType: file.contentType, filename: file.filename } });
      }),
    },
    download: {
      ...none,
      db: straight(async (ctx) => {
        const files = need();
        const key = keyOf(ctx);
        const found = await files.get(key).catch(failed(ctx, 'reading a file'));
        if (!found) throw unknownKey(key);
        const etag = etagOf(key, found.size);
        const headers: Record<string, string> = {
          ETag: etag,
          'Accept-Ranges': 'bytes',
          'Content-Disposition': contentDisposition(found),
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'; sandbox",
          'Cache-Control': 'private, max-age=0, must-revalidate',
        };
        if (etagMatches(ctx.req.headers['if-none-match'], etag)) {
          found.body.destroy();
          ctx.respond(304, undefined, headers);
          return;
        }
        const range = rangeOf(ctx.req.headers.range, found.size, ctx.req.headers['if-range'] as string | undefined, etag);
        if (range === 'unsatisfiable') {
          found.body.destroy();
          throw new ApiError('RANGE_NOT_SATISFIABLE', `the range ${String(ctx.req.headers.range).slice(0, 100)} is outside the file's ${found.size} bytes`, undefined, {
            'Content-Range': `bytes */${found.size}`,
          });
        }
        if (!range) {
          ctx.respondStream(200, { source: found.body, contentType: found.contentType, length: found.size, headers });
          return;
        }
        found.body.destroy();
        const part = await files.get(key, range).catch(failed(ctx, 'reading a file'));
        if (!part) throw unknownKey(key);
        headers['Content-Range'] = `bytes ${range.start}-${range.end}/${part.size}`;
        ctx.respondStream(206, { source: part.body, contentType: part.contentType, length: range.end - range.start + 1, headers });
      }),
    },
    remove: {
      ...none,
      db: straight(async (ctx) => {
        const files = need();
        const key = keyOf(ctx);
        if (!(await files.exists(key).catch(failed(ctx, 'looking up a file')))) throw unknownKey(key);
        await files.delete(key).catch(failed(ctx, 'deleting a file'));
        ctx.respond(204);
      }),
    },
  };
}

/** The key of a download or delete path: anything that is not a key's shape names no file (never reaches storage). */
function keyOf(ctx: Context): string {
  const key = ctx.params.key ?? '';
  if (!isFileKey(key)) throw unknownKey(key);
  return key;
}

const unknownKey = (key: string) => new ApiError('NOT_FOUND', `no stored file has the key ${JSON.stringify(key.slice(0, 100))}`);

/** Stored keys never change their bytes: the key and size name the content. */
function etagOf(key: string, size: number): string {
  return `"${createHash('sha256').update(key).digest('base64url').slice(0, 22)}-${size.toString(36)}"`;
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** Types a browser may show in place; anything else (HTML, SVG, scripts) is only ever downloaded. */
const INLINE = /^(image\/(png|jpeg|gif|webp|avif|bmp|x-icon)|application\/pdf|audio\/[\w.+-]+|video\/[\w.+-]+|text\/plain)$/;

/**
 * `inline` or `attachment`, with the client's file name quoted safely: an
 * ASCII `filename` (quotes, backslashes, control and non-ASCII characters
 * replaced) and the exact name as RFC 5987 `filename*`.
 *
 * @example
 * contentDisposition({ contentType: 'text/html', filename: 'a"b.html' }); // 'attachment; filename="a_b.html"; filename*=UTF-8\'\'a%22b.html'
 */
export function contentDisposition(file: Pick<StoredFile, 'contentType' | 'filename'>): string {
  const kind = INLINE.test(file.contentType) ? 'inline' : 'attachment';
  const name = (file.filename ?? '').replace(/[\\/]/g, '_').slice(0, 255);
  if (!name) return kind;
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/**
 * The single byte range a `Range` header asks for, clamped to the file;
 * null to send the whole file (no header, a syntax this server does not
 * serve such as several ranges, or an `If-Range` that no longer matches);
 * `unsatisfiable` when the range starts past the end.
 */
export function rangeOf(header: string | undefined, size: number, ifRange: string | undefined, etag: string): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  if (ifRange !== undefined && ifRange.trim() !== etag) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (match[2] !== '' && Number(match[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** The standalone routes as production validation and the OpenAPI document list them. */
export function fileRoutePaths(prefix: string): { method: string; path: string }[] {
  return [
    { method: 'POST', path: `${prefix}/files` },
    { method: 'GET', path: `${prefix}/files/{key}` },
    { method: 'DELETE', path: `${prefix}/files/{key}` },
  ];
}

/**
 * Mounts the standalone routes, each through its chain (Auth-step hooks of
 * the `file` operation, then the work). A model whose table is `files`
 * takes those paths: with storage that is a startup error, without it the
 * file routes are simply not mounted.
 */
export function mountFileRoutes(
  table: RouteTable,
  prefix: string,
  defaults: FileRouteDefaults,
  storageConfigured: boolean,
  handlerOf: (defaults: StepDefaults) => RouteHandler,
): void {
  const base = `${prefix}/files`;
  if (table.declared(base).length > 0 || table.declared(`${base}/:id`).length > 0) {
    if (!storageConfigured) return;
    throw new ConfigError(`the file routes ${base} collide with a model whose table is "files"; rename the table (@mfx table:...) or serve the app without file storage`);
  }
  table.add('POST', base, handlerOf(defaults.upload));
  const download = handlerOf(defaults.download);
  table.add('GET', `${base}/*key`, download);
  table.add('HEAD', `${base}/*key`, download);
  table.add('DELETE', `${base}/*key`, handlerOf(defaults.remove));
}
