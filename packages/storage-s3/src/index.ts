/**
 * @mfx/storage-s3: file storage for @mfx/runtime on Amazon S3 or any service
 * that speaks the S3 protocol (MinIO, Cloudflare R2, Backblaze B2, Ceph...).
 * A package of its own so that apps without S3 never install the AWS SDK.
 */
import { pipeline, Readable, Transform } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  type S3ClientConfig,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { type ByteRange, ConfigError, type FileStorage, type StoredFile, type StoredFileMeta } from '@mfx/runtime';

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface S3StorageOptions {
  /** The bucket the files go to; it must exist. */
  bucket: string;
  /**
   * The service's URL, for S3-compatible services (`http://127.0.0.1:9000`
   * for MinIO); leave it out for Amazon S3.
   */
  endpoint?: string;
  /**
   * The bucket's region. Default: the AWS SDK's (`AWS_REGION`, the shared
   * config file), or `us-east-1` when an `endpoint` is given.
   */
  region?: string;
  /**
   * Access keys. Default: the AWS SDK's provider chain (environment
   * variables, shared credentials file, container and instance roles).
   */
  credentials?: S3Credentials;
  /** Address the bucket in the path (`endpoint/bucket/key`) rather than the host name: most S3-compatible services want it. */
  forcePathStyle?: boolean;
  /** Prepended to every key, e.g. `uploads/`; lets several apps share a bucket. */
  prefix?: string;
  /**
   * An S3Client you own (you destroy it). When given, `endpoint`, `region`,
   * `credentials` and `forcePathStyle` are not used.
   */
  client?: S3Client;
  /**
   * Bytes buffered per upload part (default and minimum 5 MiB). A body that
   * fits in one part is stored with one PutObject; a larger one with a
   * multipart upload that is aborted if the body or a part fails.
   */
  partSize?: number;
  /**
   * Parts of one upload sent at once (default 1: the next part is read while
   * none is being sent only when this is 2 or more). Memory held by one
   * upload is about `partSize × (queueSize + 2)` at most, whatever the file's
   * size; 2 uploads large files faster over a slow link, for 5 MiB more each.
   */
  queueSize?: number;
}

/** A failed storage call: names the operation, bucket and key, and S3's error code. */
export class S3StorageError extends Error {
  readonly bucket: string;
  readonly key: string;
  /** S3's error code (`NoSuchBucket`, `AccessDenied`, ...) when S3 answered one. */
  readonly code: string | undefined;
  constructor(operation: string, bucket: string, key: string, cause: unknown) {
    const code = cause instanceof S3ServiceException ? cause.name : undefined;
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`s3Storage: ${operation} of "${key}" in bucket "${bucket}" failed: ${code ? `${code}: ` : ''}${reason}${hint(code)}`, { cause });
    this.name = 'S3StorageError';
    this.bucket = bucket;
    this.key = key;
    this.code = code;
  }
}

function hint(code: string | undefined): string {
  switch (code) {
    case 'NoSuchBucket':
      return ' (create the bucket, or fix `bucket` in s3Storage())';
    case 'AccessDenied':
    case 'InvalidAccessKeyId':
    case 'SignatureDoesNotMatch':
      return ' (check the credentials and that they may read, write and delete objects in this bucket)';
    default:
      return '';
  }
}

const MiB = 1024 * 1024;
const MIN_PART_SIZE = 5 * MiB;
/** S3 keeps at most 2 KB of user metadata per object; the file name gets at most this much of it. */
const MAX_FILENAME_METADATA = 1024;
/** S3's limit on an object key, in UTF-8 bytes. */
const MAX_OBJECT_KEY = 1024;

/**
 * File storage on S3: file fields and the `/files` routes stream their bytes
 * to `bucket` (under `prefix`), keeping the content type as the object's
 * Content-Type and the client's file name as URI-encoded user metadata.
 * Uploads stream in parts (memory stays bounded, see `partSize`); a body
 * that fails or is aborted leaves no object and no multipart upload behind.
 *
 * @example
 * import { createServer } from '@mfx/runtime';
 * import { s3Storage } from '@mfx/storage-s3';
 * const storage = s3Storage({ bucket: 'my-app-files', region: 'eu-west-1', prefix: 'uploads/' });
 * const app = createServer({ manifest, db, files: { storage } });
 */
export function s3Storage(options: S3StorageOptions): S3Storage {
  const { bucket, prefix = '', partSize = MIN_PART_SIZE, queueSize = 1 } = checked(options);
  const owned = !options.client;
  const client = options.client ?? new S3Client(clientConfig(options));
  const objectKey = (key: string) => prefix + checkedKey(key, prefix);

  async function head(Key: string): Promise<Head | null> {
    try {
      const found = await client.send(new HeadObjectCommand({ Bucket: bucket, Key }));
      return { size: found.ContentLength ?? 0, contentType: found.ContentType, metadata: found.Metadata };
    } catch (error) {
      if (isMissing(error)) return null;
      throw new S3StorageError('head', bucket, Key, error);
    }
  }

  return {
    client,
    close() {
      if (owned) client.destroy();
    },

    async put(key, body, meta) {
      const Key = objectKey(key);
      let size = 0;
      // Counts the bytes on their way to the upload. A body that errors or ends early
      // fails the counter and so the upload, which then aborts its multipart upload.
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      // Which side failed first: the body (its error, or a close before its end), or the upload
      // (whose reader destroys the counter when S3 refuses). Listening before the pipeline does
      // puts these listeners first in line.
      let failed: { by: 'body' | 'upload'; error?: unknown } | undefined;
      body.once('error', (error) => (failed ??= { by: 'body', error }));
      body.once('close', () => {
        if (!body.readableEnded) failed ??= { by: 'body' };
      });
      counted.once('error', () => (failed ??= { by: 'upload' }));
      const piped = new Promise<unknown>((resolve) => pipeline(body, counted, resolve));
      const upload = new Upload({
        client,
        partSize,
        queueSize,
        leavePartsOnError: false,
        params: { Bucket: bucket, Key, Body: counted, ContentType: meta.contentType, Metadata: metadataOf(meta) },
      });
      try {
        await upload.done();
      } catch (error) {
        // The body's own failure (a client gone, a limit the caller's stream enforces) is the
        // caller's: given back as it is (a close before the end as the pipeline's premature close).
        if (failed?.by === 'body') throw failed.error ?? (await piped);
        // S3 failed: the body is stopped (destroyed by the pipeline), not left paused.
        counted.destroy();
        await piped;
        throw new S3StorageError('put', bucket, Key, error);
      }
      return { size };
    },

    async get(key, range) {
      const Key = objectKey(key);
      if (range) checkRange(range);
      let found;
      try {
        found = await client.send(new GetObjectCommand({ Bucket: bucket, Key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
      } catch (error) {
        if (isMissing(error)) return null;
        // A range that starts past the end: no bytes, and the full size (to answer 416 with).
        if (range && errorCode(error) === 'InvalidRange') {
          const stored = await head(Key);
          return stored && fileOf(Readable.from([]), stored.size, stored.contentType, stored.metadata);
        }
        throw new S3StorageError('get', bucket, Key, error);
      }
      const body = found.Body as Readable;
      const size = range ? totalOf(found.ContentRange) : found.ContentLength;
      if (size === undefined) {
        body.destroy();
        throw new S3StorageError('get', bucket, Key, new Error(`the answer has no ${range ? 'Content-Range' : 'Content-Length'}`));
      }
      return fileOf(body, size, found.ContentType, found.Metadata);
    },

    async delete(key) {
      const Key = objectKey(key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      } catch (error) {
        if (isMissing(error)) return;
        throw new S3StorageError('delete', bucket, Key, error);
      }
    },

    async exists(key) {
      return (await head(objectKey(key))) !== null;
    },
  };
}

/** What `s3Storage()` returns: a FileStorage, its client, and `close()` for a client it made. */
export interface S3Storage extends FileStorage {
  readonly client: S3Client;
  /** Destroys the S3Client that s3Storage() made (not one passed as `client`). */
  close(): void;
}

interface Head {
  size: number;
  contentType: string | undefined;
  metadata: Record<string, string> | undefined;
}

function checked(options: S3StorageOptions): S3StorageOptions {
  if (!options || typeof options.bucket !== 'string' || options.bucket === '') {
    throw new ConfigError('s3Storage() needs { bucket }: the name of an existing bucket');
  }
  if (options.prefix !== undefined && (typeof options.prefix !== 'string' || options.prefix.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(options.prefix))) {
    throw new ConfigError(`s3Storage(): prefix ${JSON.stringify(options.prefix)} must be text without a leading "/", a backslash or control characters, e.g. "uploads/"`);
  }
  if (options.partSize !== undefined && !(Number.isInteger(options.partSize) && options.partSize >= MIN_PART_SIZE)) {
    throw new ConfigError(`s3Storage(): partSize must be a whole number of bytes, at least 5 MiB (${MIN_PART_SIZE}); got ${options.partSize}`);
  }
  if (options.queueSize !== undefined && !(Number.isInteger(options.queueSize) && options.queueSize >= 1)) {
    throw new ConfigError(`s3Storage(): queueSize must be a whole number, at least 1; got ${options.queueSize}`);
  }
  return options;
}

function clientConfig(options: S3StorageOptions): S3ClientConfig {
  const config: S3ClientConfig = {};
  if (options.endpoint !== undefined) config.endpoint = options.endpoint;
  const region = options.region ?? (options.endpoint !== undefined ? 'us-east-1' : undefined);
  if (region !== undefined) config.region = region;
  if (options.credentials) config.credentials = options.credentials;
  if (options.forcePathStyle !== undefined) config.forcePathStyle = options.forcePathStyle;
  return config;
}

/**
 * The server makes keys (`newFileKey`), but a key is still refused here when S3
 * or a service in front of it could read it as something else: empty, `.` or
 * `..` segments (path-normalising proxies), backslashes, control characters.
 */
function checkedKey(key: string, prefix: string): string {
  if (
    typeof key !== 'string' ||
    key === '' ||
    /[\u0000-\u001f\u007f\\]/.test(key) ||
    key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..') ||
    Buffer.byteLength(prefix + key) > MAX_OBJECT_KEY
  ) {
    throw new Error(
      `s3Storage: refusing the key ${JSON.stringify(key)}: keys are non-empty "/"-separated segments without ".", "..", backslashes or control characters, at most ${MAX_OBJECT_KEY} bytes with the prefix`,
    );
  }
  return key;
}

function checkRange(range: ByteRange): void {
  if (!(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && range.start >= 0 && range.end >= range.start)) {
    throw new Error(`s3Storage: the byte range ${JSON.stringify(range)} is not start <= end, both whole numbers from 0`);
  }
}

/** The file name as user metadata: URI-encoded (S3 metadata is ASCII), cut to fit S3's 2 KB. */
function metadataOf(meta: StoredFileMeta): Record<string, string> {
  if (meta.filename === undefined) return {};
  let name = meta.filename.replace(/[\u0000-\u001f\u007f]/g, '');
  let encoded = encodeURIComponent(wellFormed(name));
  while (encoded.length > MAX_FILENAME_METADATA) {
    name = [...name].slice(0, -1).join('');
    encoded = encodeURIComponent(wellFormed(name));
  }
  return { filename: encoded };
}

/** Lone surrogates (which encodeURIComponent refuses) become U+FFFD. */
const wellFormed = (text: string) => Buffer.from(text, 'utf8').toString('utf8');

function filenameOf(metadata: Record<string, string> | undefined): string | undefined {
  const encoded = metadata?.filename;
  if (encoded === undefined) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

function fileOf(body: Readable, size: number, contentType: string | undefined, metadata: Record<string, string> | undefined): StoredFile {
  const filename = filenameOf(metadata);
  return { body, size, contentType: contentType ?? 'application/octet-stream', ...(filename !== undefined ? { filename } : {}) };
}

/** The full size from `Content-Range: bytes 0-9/1234`. */
function totalOf(contentRange: string | undefined): number | undefined {
  const total = contentRange?.match(/\/(\d+)$/)?.[1];
  return total === undefined ? undefined : Number(total);
}

function errorCode(error: unknown): string | undefined {
  return error instanceof S3ServiceException ? error.name : undefined;
}

function isMissing(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || (error.$metadata?.httpStatusCode === 404 && error.name !== 'NoSuchBucket');
}
