/**
 * Where encryption keys come from: a key provider answers a 32-byte key by
 * key id. Ready-made: envKeyProvider (environment variables) and
 * staticKeyProvider (tests, or keys a program already holds). A KMS plugs
 * in by implementing KeyProvider; keys are asked for once per id and kept.
 */
import { ConfigError } from '../../errors/api-error.js';

/** AES-256 and HMAC-SHA256 keys are 32 bytes. */
export const KEY_BYTES = 32;

/** The key id fields without `key:NAME` are encrypted with. */
export const DEFAULT_KEY_ID = 'default';

/** The key id of the blind index (`encrypted,unique`) unless the provider names another. */
export const DEFAULT_INDEX_KEY_ID = 'index';

/**
 * A source of keys by id.
 *
 * @example
 * const kms: KeyProvider = {
 *   indexKeyId: 'index',
 *   async key(id) { return Buffer.from(await fetchKeyFromKms(id), 'base64'); }, // undefined when unknown
 * };
 * createServer({ keyProvider: kms });
 */
export interface KeyProvider {
  /** The 32-byte key with this id, or undefined when the provider has none. Asked once per id; the answer is kept. */
  key(id: string): Uint8Array | undefined | Promise<Uint8Array | undefined>;
  /** The key id of the blind index of `encrypted,unique` fields (never rotated); default `index`. */
  readonly indexKeyId?: string;
  /** Key ids this provider knows, when it can list them (startup checks and rotation use it). */
  keyIds?(): readonly string[];
}

/** The variable a key id is read from: prefix, `_`, the id upper-cased with hyphens as underscores (`pay-2026` → `MFX_KEY_PAY_2026`). */
export function keyVariable(prefix: string, id: string): string {
  return `${prefix}_${id.toUpperCase().replace(/-/g, '_')}`;
}

/** Decodes a base64 key of exactly 32 bytes, or throws a ConfigError naming where it came from (never the value). */
export function decodeKey(base64: string, source: string): Buffer {
  const text = base64.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
    throw new ConfigError(`${source} is not base64: give a 32-byte key encoded in base64 (openssl rand -base64 32)`);
  }
  return exactKey(Buffer.from(text, 'base64'), source);
}

/** The key when it is exactly 32 bytes, else a ConfigError naming where it came from (never the value). */
export function exactKey<K extends Uint8Array>(key: K, source: string): K {
  if (key.length !== KEY_BYTES) throw new ConfigError(`${source} holds ${key.length} bytes; an encryption key is exactly ${KEY_BYTES} bytes (openssl rand -base64 32)`);
  return key;
}

/**
 * Keys from environment variables: key id `default` from `MFX_KEY_DEFAULT`,
 * `pay-2026` from `MFX_KEY_PAY_2026` (base64 of 32 bytes). Every variable
 * with the prefix is read and checked at once, so a wrong key is a startup
 * error naming the variable.
 *
 * @example
 * createServer({ keyProvider: envKeyProvider({ prefix: 'MFX_KEY', indexKeyId: 'index' }) });
 */
export function envKeyProvider(options: { prefix?: string; indexKeyId?: string; env?: NodeJS.ProcessEnv } = {}): KeyProvider {
  const prefix = options.prefix ?? 'MFX_KEY';
  const env = options.env ?? process.env;
  // By variable name: ids `pay-2026` and `pay_2026` both read MFX_KEY_PAY_2026.
  const byVariable = new Map<string, Buffer>();
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(`${prefix}_`) || name.length === prefix.length + 1 || value === undefined) continue;
    byVariable.set(name, decodeKey(value, `environment variable ${name}`));
  }
  return {
    indexKeyId: options.indexKeyId ?? DEFAULT_INDEX_KEY_ID,
    key: (id) => byVariable.get(keyVariable(prefix, id)),
    keyIds: () => [...byVariable.keys()].map((name) => name.slice(prefix.length + 1).toLowerCase().replace(/_/g, '-')),
  };
}

/** Whether the environment holds a key variable (`mfx serve` then uses envKeyProvider()). */
export const hasKeyVariables = (env: NodeJS.ProcessEnv, prefix = 'MFX_KEY'): boolean => Object.keys(env).some((name) => name.startsWith(`${prefix}_`) && name.length > prefix.length + 1);

/**
 * Keys given in code, as base64 strings or bytes (tests, or keys a program
 * loaded itself).
 *
 * @example
 * staticKeyProvider({ keys: { default: 'base64...', index: 'base64...' } });
 */
export function staticKeyProvider(options: { keys: Record<string, string | Uint8Array>; indexKeyId?: string }): KeyProvider {
  const keys = new Map<string, Buffer>();
  for (const [id, value] of Object.entries(options.keys)) {
    const source = `staticKeyProvider key "${id}"`;
    keys.set(id, typeof value === 'string' ? decodeKey(value, source) : exactKey(Buffer.from(value), source));
  }
  return { indexKeyId: options.indexKeyId ?? DEFAULT_INDEX_KEY_ID, key: (id) => keys.get(id), keyIds: () => [...keys.keys()] };
}
