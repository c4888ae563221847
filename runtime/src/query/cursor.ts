import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import type { KeysetPosition } from '../store/list-sql.js';

/**
 * Keyset pagination tokens: `<payload>.<mac>`, both base64url. The payload
 * holds the last row's cursor-field value and id; the MAC (HMAC-SHA256 with
 * the server's secret over the model, direction and payload) makes a token
 * unforgeable and tied to the list it came from. Clients treat it as opaque.
 */
export class CursorCodec {
  private readonly secret: Buffer;

  /** `secret` empty or absent: a random one per process (tokens do not survive a restart). */
  constructor(secret?: string) {
    this.secret = secret ? Buffer.from(secret) : randomBytes(32);
  }

  private mac(scope: string, payload: string): Buffer {
    return createHmac('sha256', this.secret).update(scope).update('\0').update(payload).digest();
  }

  /** @example codec.encode('Post:asc', { value: '2026-01-01T00:00:00.000Z', id }) */
  encode(scope: string, position: KeysetPosition): string {
    const payload = Buffer.from(JSON.stringify([position.value, position.id])).toString('base64url');
    return `${payload}.${this.mac(scope, payload).toString('base64url')}`;
  }

  /** The position in a token, or 400 INVALID_QUERY for anything forged, truncated or from another list. */
  decode(scope: string, token: string): KeysetPosition {
    const bad = () => new ApiError('INVALID_QUERY', 'cursor is not valid: pass meta.next_cursor of the previous page unchanged, or an empty cursor for the first page');
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 2048) throw bad();
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = this.mac(scope, payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
    try {
      const [value, id] = JSON.parse(Buffer.from(payload, 'base64url').toString()) as [unknown, unknown];
      if (typeof id !== 'string') throw bad();
      return { value, id };
    } catch {
      throw bad();
    }
  }
}
