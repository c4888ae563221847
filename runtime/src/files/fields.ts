/**
 * File fields on the generated create and update routes: multipart bodies
 * read into storage, form values typed like JSON, keys from the two-step
 * upload checked, and stored files removed when a write does not keep them
 * (a failed or rolled-back write) or no longer needs them (a replaced or
 * cleared field, a hard delete).
 */
import { ApiError, type ValidationDetail } from '../errors/api-error.js';
import type { MultipartBody, MultipartLimits } from '../http/multipart.js';
import type { Logger } from '../log/logger.js';
import type { FieldManifest } from '../manifest/types.js';
import type { Context } from '../pipeline/context.js';
import type { WriteChange, WriteObserver } from '../pipeline/write-observers.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { jsonOrText } from '../util/json-text.js';
import { isFileKey } from './keys.js';
import type { FileStorage } from './storage.js';
import { type FileRules, readUpload } from './upload.js';

/** The spec's default upload limit (FilesConfig.MaxUploadBytes): 32 MB. */
export { DEFAULT_MULTIPART_LIMIT as DEFAULT_MAX_UPLOAD_BYTES } from '../http/multipart.js';

/** `createServer({ files })`: where files are stored and how large a multipart body may be. */
export interface FilesConfig {
  storage: FileStorage;
  /** The largest multipart body, in bytes (default 32 MB): 413 BODY_TOO_LARGE over it. */
  maxUploadBytes?: number;
}

/** A model's file fields, by JSON name (empty for most models). */
export function fileFieldsOf(model: ModelMeta): readonly FieldManifest[] {
  let fields = fileFields.get(model);
  if (!fields) fileFields.set(model, (fields = model.fields.filter((f) => f.file)));
  return fields;
}
const fileFields = new WeakMap<ModelMeta, readonly FieldManifest[]>();

/** The keys a request stored and whether its write kept them. */
interface Uploads {
  keys: string[];
  kept: boolean;
}

/**
 * The file fields of every model for one app and its storage: the multipart
 * parser the Deserialize step hands bodies to, the Validate step's key
 * check, the keeping of a request's uploads, and the cleanup observer.
 */
export class FileFields {
  private readonly uploads = new WeakMap<Context, Uploads>();
  private readonly rules = new WeakMap<ModelMeta, { create: ReadonlyMap<string, FileRules>; update: ReadonlyMap<string, FileRules> }>();

  constructor(
    readonly storage: FileStorage,
    private readonly log: Logger,
  ) {}

  /**
   * The multipart parser of create and update: file parts named after a file
   * field of the request's model go to storage and the field gets the key;
   * form values are typed like JSON values (`formValues`), and those declared
   * `application/json` are their JSON.
   */
  readonly parse = async (ctx: Context, limits: MultipartLimits): Promise<MultipartBody> => {
    const model = ctx.model!;
    const read = await readUpload(ctx.req, {
      storage: this.storage,
      maxBytes: limits.maxBytes,
      files: this.rulesOf(model)[ctx.op === 'update' ? 'update' : 'create'],
      onStorageError: (error) => this.storageFailed(ctx, 'storing an upload', error),
    });
    if (read.files.length > 0) this.uploads.set(ctx, { keys: read.files.map((f) => f.key), kept: false });
    const fields = { ...formValues(model, read.fields), ...read.json };
    for (const file of read.files) fields[file.field] = file.key;
    return { fields, files: read.files };
  };

  /** The DB step wrote the row: its uploads stay once the write commits (at once without a transaction). */
  keepUploads(ctx: Context): void {
    const uploads = this.uploads.get(ctx);
    if (uploads) ctx.afterCommit(() => void (uploads.kept = true));
  }

  /**
   * Once the chain has ended, before the response is written: deletes what
   * the request stored unless its write committed (a refused body, a 422, a
   * failed or rolled-back write leave no file behind).
   */
  async settleUploads(ctx: Context): Promise<void> {
    const uploads = this.uploads.get(ctx);
    if (!uploads || uploads.kept) return;
    this.uploads.delete(ctx);
    await this.remove(ctx.log, uploads.keys, ctx.requestId);
  }

  /**
   * Validate step: a file field's string value must be a key the storage
   * holds (the two-step upload's `POST /files`); one it does not is a 422
   * naming the field. Keys the request uploaded itself are not looked up.
   */
  async keyProblems(ctx: Context, model: ModelMeta, body: Record<string, unknown>, writable: ReadonlyMap<string, FieldManifest>): Promise<ValidationDetail[]> {
    const problems: ValidationDetail[] = [];
    const uploaded = this.uploads.get(ctx)?.keys ?? [];
    for (const field of fileFieldsOf(model)) {
      if (!writable.has(field.name)) continue;
      const value = body[field.name];
      if (typeof value !== 'string' || uploaded.includes(value)) continue;
      if (!isFileKey(value) || !(await this.exists(ctx, value))) {
        problems.push({ field: field.name, message: 'names no stored file: send the file itself (multipart), or a key POST /files returned' });
      }
    }
    return problems;
  }

  /**
   * Removes stored files rows no longer point at, once the write commits: the
   * old key of a file field an update replaced or cleared, every key of a
   * hard-deleted row (cascaded deletes included). Soft deletes and fields
   * with `auto_delete:false` keep theirs.
   */
  observer(): WriteObserver {
    return {
      name: 'file cleanup',
      ops: ['update', 'delete'],
      needsBefore: true,
      observe: async (_tx, change) => {
        const keys = orphanedKeys(change);
        if (keys.length === 0) return;
        let now: Promise<void> | undefined;
        // Without a transaction the write is already committed: the callback runs at once, and is waited for here.
        change.caller.afterCommit(() => (now = this.remove(change.caller.log, keys, change.caller.requestId)));
        await now;
      },
    };
  }

  /** The file fields whose cleanup the observer handles: the models it is registered for. */
  static observedModels(models: readonly ModelMeta[]): string[] {
    return models.filter((m) => fileFieldsOf(m).some((f) => f.file!.autoDelete)).map((m) => m.name);
  }

  /** The file parts a create or update takes: its writable file fields (a readonly or, on update, immutable one is dropped unread). */
  private rulesOf(model: ModelMeta): { create: ReadonlyMap<string, FileRules>; update: ReadonlyMap<string, FileRules> } {
    let rules = this.rules.get(model);
    if (!rules) {
      const of = (keys: ModelMeta['createKeys']) =>
        new Map(fileFieldsOf(model).filter((f) => keys.has(f.name)).map((f) => [f.name, { maxSize: f.file!.maxSize, accept: f.file!.accept }]));
      rules = { create: of(model.createKeys), update: of(model.updateKeys) };
      this.rules.set(model, rules);
    }
    return rules;
  }

  private async exists(ctx: Context, key: string): Promise<boolean> {
    try {
      return await this.storage.exists(key);
    } catch (error) {
      this.storageFailed(ctx, 'looking up a file key', error);
      throw new ApiError('INTERNAL');
    }
  }

  private async remove(log: Logger, keys: readonly string[], requestId: string): Promise<void> {
    for (const key of keys) {
      try {
        await this.storage.delete(key);
      } catch (error) {
        log.error({ requestId, key, err: String((error as Error)?.stack ?? error) }, 'deleting a stored file failed; it is left in storage');
      }
    }
  }

  private storageFailed(ctx: Context, doing: string, error: unknown): void {
    (ctx.log ?? this.log).error({ requestId: ctx.requestId, model: ctx.model?.name, err: String((error as Error)?.stack ?? error) }, `file storage failed ${doing}`);
  }
}

/** The keys a committed change leaves without a row, for the fields that delete their files. */
function orphanedKeys(change: WriteChange): string[] {
  const before = change.before;
  if (!before) return [];
  if (change.op === 'delete') {
    const soft = change.cascade ? change.cascade.action === 'softDelete' : change.model.options.softDelete !== null;
    if (soft) return [];
  }
  const keys: string[] = [];
  for (const field of fileFieldsOf(change.model)) {
    if (!field.file!.autoDelete) continue;
    const old = before[field.name];
    if (typeof old !== 'string' || old === '') continue;
    if (change.op === 'update' && change.after?.[field.name] === old) continue;
    keys.push(old);
  }
  return keys;
}

/** Field types whose form value is read as JSON text (`42`, `true`, `["a"]`); an empty value is null. */
const JSON_TYPES = new Set<FieldManifest['type']>(['number', 'integer', 'bigint', 'boolean', 'json_array', 'json_object']);

/**
 * Form values typed for the model's fields, so a multipart body validates
 * like the same JSON: numbers, booleans, arrays and objects are read as JSON
 * text (text that is not valid JSON stays a string, and fails the field's
 * type with the same 422 detail as in JSON); an empty value of such a field
 * or of a file field is null; a localized value that starts with `{` is read
 * as its JSON map; anything else stays text.
 *
 * @example
 * formValues(post, { title: 'Hi', views: '3', published: 'true' }); // { title: 'Hi', views: 3, published: true }
 */
export function formValues(model: ModelMeta, values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(values)) {
    const field = model.field(name);
    if (!field) out[name] = text;
    else if (JSON_TYPES.has(field.type)) out[name] = text === '' ? null : jsonOrText(text);
    else if (field.file) out[name] = text === '' ? null : text;
    else if (field.type === 'localized' && text.trimStart().startsWith('{')) out[name] = jsonOrText(text);
    else out[name] = text;
  }
  return out;
}
