// Tokens and keys for the authentication tests.
import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';

export const SECRET = 'test-secret-0123456789abcdef0123456789abcdef';

/** An HS256 token with the given claims (sub defaults to `user-1`), valid for an hour. */
export function token(claims: Record<string, unknown> = {}, options: jwt.SignOptions = {}, secret: string = SECRET): string {
  return jwt.sign({ sub: 'user-1', ...claims }, secret, { algorithm: 'HS256', expiresIn: 3600, ...options });
}

export const bearerHeader = (value: string) => ({ authorization: `Bearer ${value}` });

export const rsa = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
export const ec = generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });

/** base64url of a JSON value, for hand-made tokens. */
export const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
