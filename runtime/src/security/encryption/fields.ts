/**
 * Encrypted fields of one model: sealing on every write the store does,
 * opening on every decode, the blind index of `encrypted,unique` fields and
 * the conflict its UNIQUE constraint raises. Decided at boot per model: a
 * model without encrypted fields has no ModelEncryption, and its reads and
 * writes do no work for them.
 */
import { ApiError, ConfigError } from '../../errors/api-error.js';
import type { Logger } from '../../log/logger.js';
import type { FieldManifest } from '../../manifest/types.js';
import type { ModelMeta } from '../../registry/model-meta.js';
import { absentValue, HMAC_SUFFIX } from '../../sql/columns.js';
import { duplicateKey } from '../../sql/dialects/shared.js';
import type { RecordData } from '../../store/codec.js';
import { blindIndex, EnvelopeError, isEnvelope, open, seal } from './envelope.js';
import type { Keyring } from './keyring.js';
import { DEFAULT_DECRYPTION_CACHE_BYTES, PlaintextCache } from './plaintext-cache.js';
import { keyVariable } from './keys.js';

/** One encrypted field and, for `encrypted,unique`, its blind-index column. */
export interface EncryptedField {
  readonly field: FieldManifest;
  readonly keyId: string;
  /** `<column>_hmac`, or null when the field is not unique. */
  readonly companion: string | null;
}

/**
 * The key a write carries a blind index under in the values the store
 * inserts: not a JSON field name (those are identifiers), so no field clashes.
 */
export const companionKey = (column: string): string => `#${column}`;

/** The encrypted fields of a model, in declaration order. */
export function encryptedFields(model: Pick<ModelMeta, 'fields'>): EncryptedField[] {
  return model.fields.flatMap((field) =>
    field.encrypted ? [{ field, keyId: field.encrypted.keyId, companion: field.encrypted.unique ? field.column + HMAC_SUFFIX : null }] : [],
  );
}

export class ModelEncryption {
  /** Fields whose stored value was written before they were encrypted, warned about once each. */
  private readonly warned = new Set<string>();
  private readonly byCompanion: Map<string, EncryptedField>;

  constructor(
    readonly model: ModelMeta,
    readonly fields: readonly EncryptedField[],
    /** Null: no key provider, so every use answers ENCRYPTION_NOT_CONFIGURED. */
    private readonly keyring: Keyring | null,
    private readonly log: Logger,
    /** Recently decrypted values by envelope text (plaintext-cache.ts), shared by the app's models; null when turned off. */
    private readonly cache: PlaintextCache | null = null,
  ) {
    this.byCompanion = new Map(fields.flatMap((f) => (f.companion ? [[f.companion, f] as const] : [])));
  }

  private get keys(): Keyring {
    if (!this.keyring) throw new ApiError('ENCRYPTION_NOT_CONFIGURED');
    return this.keyring;
  }

  /**
   * The plaintext of the stored value of `fields[index]` (the model's
   * decoder calls it for each string it reads): a value that fails
   * authentication or names an unknown key id is 500 DECRYPTION_ERROR,
   * logged with model, id and field (never the value).
   */
  openValue(stored: string, id: unknown, index: number): string {
    const cached = this.cache?.get(stored);
    if (cached !== undefined) return cached;
    const field = this.fields[index]!.field;
    if (!isEnvelope(stored)) {
      // Written before the field was encrypted (or by hand): answered as stored, warned once per field; mfx rotate-keys encrypts it.
      if (!this.warned.has(field.name)) {
        this.warned.add(field.name);
        this.log.warn({ model: this.model.name, id, field: field.name }, 'an encrypted field holds a value that is not encrypted (written before the field was encrypted?); it is answered as stored until mfx rotate-keys encrypts it');
      }
      return stored;
    }
    const keyring = this.keys;
    try {
      const plaintext = open(stored, (keyId) => keyring.key(keyId));
      this.cache?.set(stored, plaintext);
      return plaintext;
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error;
      this.log.error({ model: this.model.name, id, field: field.name, reason: error.reason }, 'an encrypted value cannot be decrypted');
      throw new ApiError('DECRYPTION_ERROR');
    }
  }

  /**
   * The values a create or update writes, encrypted: a copy (the caller's
   * values stay plaintext) with each encrypted field sealed under its key
   * id, and each blind index under `companionKey(column)`. A create seals
   * the absent value of a field the body leaves out, so nothing is stored in
   * clear. Without a key provider: ENCRYPTION_NOT_CONFIGURED, before any
   * statement.
   */
  sealValues(values: RecordData, op: 'create' | 'update'): RecordData {
    const keyring = this.keys;
    const sealed = { ...values };
    for (const { field, keyId, companion } of this.fields) {
      if (!(field.name in values)) {
        if (op === 'update') continue;
        sealed[field.name] = absentValue(field);
      }
      const plaintext = sealed[field.name];
      if (plaintext === null || plaintext === undefined) {
        if (companion) sealed[companionKey(companion)] = null;
        continue;
      }
      const text = String(plaintext);
      sealed[field.name] = seal(text, keyId, keyring.key(keyId)!);
      if (companion) sealed[companionKey(companion)] = blindIndex(text, keyring.indexKey!);
    }
    return sealed;
  }

  /**
   * A whole text sealed (the idempotency hook's stored replay of a write
   * answer, which holds the plaintext): the same envelope as a field's value,
   * under the key id of the model's first encrypted field (`default` unless
   * it names `key:NAME`), a key the boot check proved is there. Without a
   * key provider: ENCRYPTION_NOT_CONFIGURED (the write itself already failed
   * with it, so no such answer exists to store).
   */
  sealText(text: string): string {
    const keyId = this.fields[0]!.keyId;
    return seal(text, keyId, this.keys.key(keyId)!);
  }

  /**
   * Opens what `sealText` sealed, under whichever key id it names (an old
   * key stays readable while the provider holds it); 500 DECRYPTION_ERROR,
   * logged with the model and `what` (never the value), when it cannot.
   */
  openText(stored: string, what: string): string {
    const keyring = this.keys;
    try {
      return open(stored, (keyId) => keyring.key(keyId));
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error;
      this.log.error({ model: this.model.name, what, reason: error.reason }, 'an encrypted value cannot be decrypted');
      throw new ApiError('DECRYPTION_ERROR');
    }
  }

  /** The blind index a value of an `encrypted,unique` field is stored under (validate.unique compares it); null for other fields. */
  blindIndexOf(field: FieldManifest, text: string): { column: string; value: string } | null {
    const encrypted = this.fields.find((f) => f.field.name === field.name);
    if (!encrypted?.companion) return null;
    return { column: encrypted.companion, value: blindIndex(text, this.keys.indexKey!) };
  }

  /** The blind-index columns an update of these fields sets, with their value keys. */
  companionsOf(fields: readonly FieldManifest[]): { column: string; key: string }[] {
    return this.fields.flatMap((f) => (f.companion && fields.includes(f.field) ? [{ column: f.companion, key: companionKey(f.companion) }] : []));
  }

  /**
   * A UNIQUE violation of a blind index as the API answers it: 409 CONFLICT
   * naming the encrypted field, without the index value the driver's detail
   * holds. Null for any other error.
   */
  conflictOf(mapped: ApiError): ApiError | null {
    if (mapped.code !== 'CONFLICT') return null;
    const details = (mapped.details ?? {}) as { table?: string | null; column?: string | null };
    const encrypted = details.column ? this.byCompanion.get(details.column) : undefined;
    if (!encrypted) return null;
    return duplicateKey(encrypted.field.column, { table: details.table ?? this.model.table, column: encrypted.field.column, detail: null });
  }
}

const installed = new WeakMap<ModelMeta, ModelEncryption>();

/** The encryption of a model, or undefined for a model without encrypted fields (nothing to do per request). */
export const encryptionOf = (model: ModelMeta): ModelEncryption | undefined => installed.get(model);

/** Every key id the models' encrypted fields name. */
export const fieldKeyIds = (models: readonly ModelMeta[]): Set<string> => new Set(models.flatMap((m) => encryptedFields(m).map((f) => f.keyId)));

/**
 * Checks that every encrypted field's key resolves (and the index key, for
 * `encrypted,unique`), then installs each model's encryption; run at boot,
 * before any store or codec of these models is built. `keyring` null: no
 * key provider, so the server starts and each use answers
 * ENCRYPTION_NOT_CONFIGURED. `cacheBytes` bounds the cache of decrypted
 * values every model shares (the decryptionCache setting; 0 turns it off).
 */
export function installEncryption(models: readonly ModelMeta[], keyring: Keyring | null, log: Logger, cacheBytes = DEFAULT_DECRYPTION_CACHE_BYTES): void {
  const cache = keyring && cacheBytes > 0 ? new PlaintextCache(cacheBytes) : null;
  for (const model of models) {
    const fields = encryptedFields(model);
    if (fields.length === 0) continue;
    if (keyring) {
      for (const { field, keyId, companion } of fields) {
        if (!keyring.key(keyId)) {
          throw new ConfigError(`${model.name}.${field.name} is encrypted with key id "${keyId}", which the key provider does not have (with envKeyProvider(), set ${keyVariable('MFX_KEY', keyId)})`);
        }
        if (companion && !keyring.indexKey) {
          throw new ConfigError(`${model.name}.${field.name} is encrypted,unique and needs the blind-index key "${keyring.indexKeyId}", which the key provider does not have`);
        }
      }
    }
    installed.set(model, new ModelEncryption(model, fields, keyring, log, cache));
  }
}
