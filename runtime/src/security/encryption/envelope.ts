/**
 * The stored form of an encrypted value: `enc:` + base64 of a versioned
 * envelope [version 1][key id length][key id][12-byte nonce][16-byte tag]
 * [AES-256-GCM ciphertext]. The version and key id are authenticated too
 * (as associated data), so an envelope cannot be relabelled to another key.
 * A fresh random nonce per value: equal plaintexts are stored differently.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export const ENVELOPE_PREFIX = 'enc:';
const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Why an envelope could not be opened (logged with model, id and field; never the value). */
export class EnvelopeError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'EnvelopeError';
  }
}

/** Whether a stored value is an envelope (a value written before the field was encrypted is not). */
export const isEnvelope = (stored: string): boolean => stored.startsWith(ENVELOPE_PREFIX);

/**
 * Encrypts `plaintext` with `key` (32 bytes) under `keyId`.
 *
 * @example
 * seal('4111 1111 1111 1111', 'default', key); // 'enc:AQdkZWZhdWx0...'
 */
export function seal(plaintext: string, keyId: string, key: Uint8Array): string {
  const id = Buffer.from(keyId, 'utf8');
  if (id.length === 0 || id.length > 255) throw new Error(`key id "${keyId}" must be 1 to 255 bytes`);
  const header = Buffer.concat([Buffer.of(VERSION, id.length), id]);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(header);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ENVELOPE_PREFIX + Buffer.concat([header, nonce, cipher.getAuthTag(), body]).toString('base64');
}

/** The parts of an envelope, without decrypting it. */
export interface Envelope {
  keyId: string;
  header: Buffer;
  nonce: Buffer;
  tag: Buffer;
  body: Buffer;
}

/** Reads an envelope's layout; an EnvelopeError when it is not one this version wrote. */
export function parseEnvelope(stored: string): Envelope {
  if (!isEnvelope(stored)) throw new EnvelopeError('the stored value is not an encrypted envelope (no enc: prefix)');
  const bytes = Buffer.from(stored.slice(ENVELOPE_PREFIX.length), 'base64');
  if (bytes.length < 2) throw new EnvelopeError('the envelope is truncated');
  if (bytes[0] !== VERSION) throw new EnvelopeError(`unknown envelope version ${bytes[0]}`);
  const idEnd = 2 + bytes[1];
  if (bytes.length < idEnd + NONCE_BYTES + TAG_BYTES) throw new EnvelopeError('the envelope is truncated');
  return {
    keyId: bytes.subarray(2, idEnd).toString('utf8'),
    header: bytes.subarray(0, idEnd),
    nonce: bytes.subarray(idEnd, idEnd + NONCE_BYTES),
    tag: bytes.subarray(idEnd + NONCE_BYTES, idEnd + NONCE_BYTES + TAG_BYTES),
    body: bytes.subarray(idEnd + NONCE_BYTES + TAG_BYTES),
  };
}

/**
 * Decrypts an envelope with `keyFor(keyId)`; an EnvelopeError when the key
 * is unknown or the envelope fails authentication (tampered, wrong key).
 *
 * @example
 * open(stored, (id) => keys.get(id)); // '4111 1111 1111 1111'
 */
export function open(stored: string, keyFor: (keyId: string) => Uint8Array | undefined): string {
  const envelope = parseEnvelope(stored);
  const key = keyFor(envelope.keyId);
  if (!key) throw new EnvelopeError(`no key with id "${envelope.keyId}"`);
  const decipher = createDecipheriv('aes-256-gcm', key, envelope.nonce);
  decipher.setAAD(envelope.header);
  decipher.setAuthTag(envelope.tag);
  try {
    const plaintext = decipher.update(envelope.body);
    // GCM's final() only checks the tag (it returns no bytes): no concatenation needed.
    decipher.final();
    return plaintext.toString('utf8');
  } catch {
    throw new EnvelopeError(`the envelope fails authentication with key "${envelope.keyId}" (tampered, or encrypted with another key of that id)`);
  }
}

/**
 * The blind index of a value for `encrypted,unique`: HMAC-SHA256 with the
 * index key, hex. Equal plaintexts give equal indexes, so a UNIQUE
 * constraint on it finds duplicates without decrypting anything.
 */
export function blindIndex(plaintext: string, indexKey: Uint8Array): string {
  return createHmac('sha256', indexKey).update(plaintext, 'utf8').digest('hex');
}
