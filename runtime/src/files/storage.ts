import type { Readable } from 'node:stream';

/**
 * Where file fields and the standalone `/files` routes keep their bytes.
 * Keys are made by the server (see `newFileKey`), never taken from a client's
 * file name; an implementation may still refuse a key it could not store
 * safely, by throwing.
 *
 * Two implementations ship: `diskStorage({ dir })` in the runtime and
 * `s3Storage({...})` in `@mfx/storage-s3`. Anything with these four methods
 * plugs in: `createServer({ files: { storage } })`.
 */
export interface FileStorage {
  /**
   * Streams `body` to `key` and resolves once every byte is durably stored,
   * with the number of bytes written. On a failure or a `body` that errors
   * (a client that aborted), nothing is left under `key` or anywhere else.
   */
  put(key: string, body: Readable, meta: StoredFileMeta): Promise<{ size: number }>;
  /**
   * Opens `key` for reading, the whole object or the inclusive byte `range`,
   * or resolves `null` when there is no such key. `size` is always the full
   * object's size; the stream carries only the requested range.
   */
  get(key: string, range?: ByteRange): Promise<StoredFile | null>;
  /** Removes `key`; removing a key that does not exist is not an error. */
  delete(key: string): Promise<void>;
  /** Whether `key` is stored. */
  exists(key: string): Promise<boolean>;
}

/** What is kept beside the bytes, and given back by `get`. */
export interface StoredFileMeta {
  /** The content type the server decided on (declared and sniffed). */
  contentType: string;
  /** The client's file name, for Content-Disposition only (untrusted text). */
  filename?: string;
}

/** An inclusive byte range, as HTTP Range counts it. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredFile extends StoredFileMeta {
  body: Readable;
  /** The whole object's size in bytes. */
  size: number;
}
