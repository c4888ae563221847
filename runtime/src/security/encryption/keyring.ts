/**
 * The keys one app holds: asked of its KeyProvider once per key id and kept.
 * Built at boot (every key id the models name, the index key, and every id
 * the provider can list, so envelopes a rotation wrote under another id stay
 * readable); an id met later is asked for then, which works for providers
 * that answer synchronously (a KMS that answers asynchronously lists its ids
 * with `keyIds()` so they are loaded at boot).
 */
import { ConfigError } from '../../errors/api-error.js';
import { DEFAULT_INDEX_KEY_ID, KEY_BYTES, type KeyProvider } from './keys.js';

type MaybePromise<T> = T | Promise<T>;

/** A key as the provider answered it, checked: 32 bytes or a ConfigError naming the id (never the value). */
function checked(id: string, key: Uint8Array | undefined): Uint8Array | undefined {
  if (key === undefined || key === null) return undefined;
  if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES) {
    throw new ConfigError(`the key provider answered key id "${id}" with ${key instanceof Uint8Array ? `${key.length} bytes` : 'something that is not bytes'}; an encryption key is exactly ${KEY_BYTES} bytes`);
  }
  return key;
}

export class Keyring {
  private readonly keys = new Map<string, Uint8Array | undefined>();
  /** The id of the blind-index key of `encrypted,unique` fields (never rotated). */
  readonly indexKeyId: string;

  private constructor(readonly provider: KeyProvider) {
    this.indexKeyId = provider.indexKeyId ?? DEFAULT_INDEX_KEY_ID;
  }

  /**
   * Loads the keys of `ids`, the index key and every id the provider lists;
   * synchronous when the provider answers synchronously.
   *
   * @example
   * const keyring = await Keyring.load(envKeyProvider(), ['default', 'payments']);
   */
  static load(provider: KeyProvider, ids: Iterable<string>): MaybePromise<Keyring> {
    const ring = new Keyring(provider);
    const wanted = new Set([...ids, ring.indexKeyId, ...(provider.keyIds?.() ?? [])]);
    const pending: Promise<void>[] = [];
    for (const id of wanted) {
      const answer = provider.key(id);
      if (answer instanceof Promise) pending.push(answer.then((key) => void ring.keys.set(id, checked(id, key))));
      else ring.keys.set(id, checked(id, answer));
    }
    return pending.length === 0 ? ring : Promise.all(pending).then(() => ring);
  }

  /** The key with this id, or undefined; an id not loaded yet is asked for once (synchronous answers only). */
  key(id: string): Uint8Array | undefined {
    if (this.keys.has(id)) return this.keys.get(id);
    const answer = this.provider.key(id);
    if (answer instanceof Promise) {
      // Asynchronous providers list their ids (keyIds) so every key is loaded at boot; this one was not.
      answer.then((key) => this.keys.set(id, checked(id, key)), () => {});
      return undefined;
    }
    const key = checked(id, answer);
    this.keys.set(id, key);
    return key;
  }

  /** Asks for a key, waiting for an asynchronous provider (rotation, which may meet ids the server never loaded). */
  async ensure(id: string): Promise<Uint8Array | undefined> {
    if (!this.keys.has(id)) this.keys.set(id, checked(id, await this.provider.key(id)));
    return this.keys.get(id);
  }

  /** The blind-index key, or undefined when the provider has none. */
  get indexKey(): Uint8Array | undefined {
    return this.key(this.indexKeyId);
  }
}
