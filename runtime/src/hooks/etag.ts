import { etagOfText, serialisedBody, serialisedTextOf, type WithSerialisedBody } from '../http/etag.js';
import type { JsonResponse } from '../pipeline/context.js';
import { describeHook } from '../pipeline/hook-meta.js';
import type { Hook } from '../pipeline/types.js';

/**
 * The cache hook: adds `ETag` (the quoted MD5 of the JSON body, the same tag
 * optimistic locking compares If-Match with) to successful reads and lists,
 * and answers 304 without a body when `If-None-Match` carries it. Runs after
 * the Response step built the body.
 *
 * @example
 * app.use('response', etag(), { position: 'after', ops: ['read', 'list'] });
 */
export function etag(): Hook {
  return describeHook(async function etag(ctx, next) {
    await next();
    const response = ctx.response;
    // Only JSON bodies are tagged: a stream is not read twice, HTML pages are not records.
    if (!response || (response.kind ?? 'json') !== 'json' || response.status !== 200 || response.body === undefined) return;
    if (ctx.op !== 'read' && ctx.op !== 'list' && ctx.op !== 'history') return;
    const given = response.headers?.ETag;
    // The body is serialised once: for its tag here, and as the text the response is written with.
    const text = given === undefined ? (serialisedTextOf(response) ?? JSON.stringify(response.body)) : undefined;
    const tag = given ?? etagOfText(text!);
    const headers = { ...response.headers, ETag: tag };
    const ifNoneMatch = ctx.req.headers['if-none-match'];
    const matches = typeof ifNoneMatch === 'string' && (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === tag));
    if (matches) ctx.response = { status: 304, headers };
    else {
      const tagged: JsonResponse & WithSerialisedBody = { ...response, headers };
      if (text !== undefined) tagged[serialisedBody] = { body: response.body, text };
      ctx.response = tagged;
    }
  }, {
    role: 'other',
    label: 'etag()',
    openapi: { statuses: ['304'], headers: [{ name: 'If-None-Match', description: 'an ETag read before; a match answers 304 without a body' }] },
  });
}
