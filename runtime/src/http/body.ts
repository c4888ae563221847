import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors/api-error.js';
import type { Context } from '../pipeline/context.js';
import { lingerAfterAnswer } from './linger.js';

/** JSON request bodies are capped at 4 MB. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

const LOWERED = Symbol('mfx.bodyLimit');

/**
 * Lowers the body limit of one request (the bodyLimit() hook): the lowest
 * of every call stands, and it never raises the server's own limit.
 */
export function lowerBodyLimit(ctx: Context, bytes: number): void {
  const holder = ctx as unknown as Record<symbol, number | undefined>;
  const now = holder[LOWERED];
  if (now === undefined || bytes < now) holder[LOWERED] = bytes;
}

/**
 * The limit a request's body is read under: the server's `limit` (bodyLimit
 * for JSON, maxUploadBytes for multipart), or less when a hook lowered it.
 *
 * @example
 * const raw = await readBody(ctx.req, bodyLimitOf(ctx, DEFAULT_BODY_LIMIT));
 */
export function bodyLimitOf(ctx: Context, limit: number): number {
  const lowered = (ctx as unknown as Record<symbol, number | undefined>)[LOWERED];
  return lowered !== undefined && lowered < limit ? lowered : limit;
}

/**
 * Reads the whole body, refusing it with 413 as soon as it passes `limit`
 * (before reading anything when Content-Length already says so). A refused
 * body is not cut off: its connection closes (`Connection: close`) once the
 * client has sent the rest, which is read and thrown away (bounded, see
 * LINGER_LIMITS), so the client can read the 413 instead of a reset.
 *
 * @example
 * const raw = await readBody(ctx.req, DEFAULT_BODY_LIMIT);
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(refuse(req, limit));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFailure);
      req.off('close', onFailure);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      // Breaking off a read destroys the request and its socket: keep the body flowing into the discard instead.
      reject(refuse(req, limit));
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onFailure = () => {
      stop();
      reject(new ApiError('BODY_READ_ERROR', 'the request body could not be read to the end'));
    };
    // `on`, not `once`: the first of them removes all four (stop), and once would wrap each listener.
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFailure);
    req.on('close', onFailure);
  });
}

/** The 413 of a body over the limit; the rest of the body is discarded before the connection closes. */
function refuse(req: IncomingMessage, limit: number): ApiError {
  lingerAfterAnswer(req);
  return new ApiError('BODY_TOO_LARGE', `request body is larger than ${limit} bytes`, undefined, { Connection: 'close' });
}

/**
 * Parses a JSON object body: empty is EMPTY_BODY; bad JSON, a non-object,
 * bytes that are not UTF-8 or a string with an unpaired surrogate escape
 * (`"\ud800"`) is INVALID_JSON (such text would be stored as U+FFFD).
 *
 * @example
 * ctx.body = parseJsonObject(Buffer.from('{"name":"a"}'));
 */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  if (!isUtf8(raw)) {
    throw new ApiError('INVALID_JSON', `request body is not valid UTF-8 (byte ${invalidUtf8At(raw)} starts an invalid sequence); send JSON encoded as UTF-8`);
  }
  const text = raw.toString('utf8');
  if (text.trim() === '') throw new ApiError('EMPTY_BODY', 'request body is empty; send a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError('INVALID_JSON', `request body is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError('INVALID_JSON', `request body must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  }
  // UTF-8 cannot carry a surrogate, so only a \u escape makes one: look only when the text has one.
  if (text.includes('\\u')) {
    const where = unpairedSurrogateAt(value, '');
    if (where !== null) {
      throw new ApiError('INVALID_JSON', `request body has an unpaired UTF-16 surrogate escape in ${where}; escape a character outside the BMP as a pair (\\ud83d\\ude00) or send it as UTF-8`);
    }
  }
  return value as Record<string, unknown>;
}

export function isMultipart(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

/** With the `u` flag a character class matches a surrogate only when it is not half of a pair. */
const UNPAIRED_SURROGATE = /[\ud800-\udfff]/u;

/** Where in a parsed body a string or key holds an unpaired surrogate (`the value of "a.b[2]"`, `the key "x"`), or null. */
function unpairedSurrogateAt(value: unknown, path: string): string | null {
  if (typeof value === 'string') return UNPAIRED_SURROGATE.test(value) ? `the value of "${path}"` : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unpairedSurrogateAt(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (UNPAIRED_SURROGATE.test(key)) return `the key "${JSON.stringify(at).slice(1, -1)}"`;
    const found = unpairedSurrogateAt(item, at);
    if (found) return found;
  }
  return null;
}

/** The offset of the first byte that does not start a valid UTF-8 sequence (only called once isUtf8 said there is one). */
function invalidUtf8At(raw: Buffer): number {
  for (let i = 0; i < raw.length; ) {
    const lead = raw[i];
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length === 0 || !isUtf8(raw.subarray(i, i + length))) return i;
    i += length;
  }
  return raw.length;
}
