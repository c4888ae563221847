import { hash } from 'node:crypto';

/**
 * The ETag of a JSON response body: the quoted MD5 of its JSON text, exactly
 * as the response writes it.
 *
 * @example
 * etagOf({ data: record }); // '"5d41402abc4b2a76b9719d911017c592"'
 */
export function etagOf(body: unknown): string {
  return etagOfText(JSON.stringify(body));
}

/**
 * The ETag of JSON text already serialised. The one-shot `hash` gives the
 * same digest as createHash without a Hash object per response.
 */
export function etagOfText(text: string): string {
  return `"${hash('md5', text, 'hex')}"`;
}

/**
 * The JSON text of a response body a hook has already serialised (the
 * etag() hook, to hash it), kept on the response beside the body it is the
 * text of: the response is then written with that text, unless its body
 * was replaced since.
 */
export const serialisedBody = Symbol('mfx.serialisedBody');
export type WithSerialisedBody = { [serialisedBody]?: { body: unknown; text: string } };

/** The text kept for the response's body, when it is still that body's. */
export function serialisedTextOf(response: WithSerialisedBody & { body?: unknown }): string | undefined {
  const kept = response[serialisedBody];
  return kept !== undefined && kept.body === response.body ? kept.text : undefined;
}

/** An If-Match header: `*`, a list of tags, or null when absent or empty. */
export type IfMatch = { any: true } | { any: false; tags: string[] };

/** Parses If-Match (`*`, `"a"`, `"a", W/"b"`); weak tags compare by their opaque part. */
export function parseIfMatch(header: string | string[] | undefined): IfMatch | null {
  const raw = (Array.isArray(header) ? header.join(',') : header)?.trim();
  if (!raw) return null;
  if (raw === '*') return { any: true };
  const tags = raw
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .filter(Boolean);
  return { any: false, tags };
}

/** Whether a parsed If-Match accepts the current ETag. */
export function ifMatchAccepts(ifMatch: IfMatch, etag: string): boolean {
  return ifMatch.any || ifMatch.tags.includes(etag);
}
