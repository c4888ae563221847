import { randomBytes } from 'node:crypto';

/**
 * The shape of every key the server makes: `YYYY/MM/` and 22 random base64url
 * characters (128 bits). Only this shape is ever stored or looked up, so no
 * key can name a parent directory, an absolute path or a storage's own files.
 */
const KEY_SHAPE = /^\d{4}\/\d{2}\/[A-Za-z0-9_-]{22}$/;

/**
 * A new storage key: never derived from the client's file name.
 *
 * @example
 * newFileKey(); // '2026/11/q3Xv0c9mJ2t1hXr8ZkYp1w'
 */
export function newFileKey(now: Date = new Date()): string {
  const month = String(now.getUTCMonth() + 1).padStart(2, '0');
  return `${now.getUTCFullYear()}/${month}/${randomBytes(16).toString('base64url')}`;
}

/**
 * Whether `key` has the shape `newFileKey` makes; anything else names no
 * stored file (and is never handed to a storage).
 *
 * @example
 * isFileKey('../../etc/passwd'); // false
 */
export function isFileKey(key: unknown): key is string {
  return typeof key === 'string' && KEY_SHAPE.test(key);
}
