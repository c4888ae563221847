import { ApiError } from '../errors/api-error.js';

/** Request URIs above 8 KiB are refused (414) before routing. */
export const MAX_URI_BYTES = 8 * 1024;

/**
 * Request line plus headers the parser accepts (Node's `maxHeaderSize`).
 * Room for a long request line, so a URI over MAX_URI_BYTES still reaches
 * the router's check; a head past this is refused while it is parsed.
 */
export const MAX_HEAD_BYTES = 64 * 1024;

/**
 * The answer to a URI over MAX_URI_BYTES, wherever it is found.
 *
 * @example
 * if (Buffer.byteLength(req.url ?? '') > MAX_URI_BYTES) throw uriTooLong();
 */
export function uriTooLong(): ApiError {
  return new ApiError('URI_TOO_LONG', `request URI is longer than ${MAX_URI_BYTES} bytes; move long filters into fewer clauses`);
}

/**
 * The answer to a request head over MAX_HEAD_BYTES whose URI is not what
 * made it too long.
 *
 * @example
 * answer(headersTooLarge());
 */
export function headersTooLarge(): ApiError {
  return new ApiError('HEADERS_TOO_LARGE', `request line and headers are larger than ${MAX_HEAD_BYTES} bytes together; send fewer or shorter headers`);
}
