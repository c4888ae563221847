import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { ApiError } from '../errors/api-error.js';
import { lingerAfterAnswer } from '../http/linger.js';
import type { UploadedFile } from '../http/multipart.js';
import { newFileKey } from './keys.js';
import { decideType, mediaType, SNIFF_BYTES } from './sniff.js';
import type { FileStorage } from './storage.js';

/** What a file part must satisfy (a file field's `max_size` and `accept`). */
export interface FileRules {
  maxSize?: number;
  accept?: readonly string[];
}

export interface UploadOptions {
  storage: FileStorage;
  /** The whole body may not exceed this many bytes (413 BODY_TOO_LARGE). */
  maxBytes: number;
  /** The file parts taken, by part name, with their rules; other file parts are read and dropped. */
  files: ReadonlyMap<string, FileRules>;
  /** Told when the storage itself fails a write (the request then answers 500). */
  onStorageError?: (error: unknown) => void;
}

/** A multipart body once read: the form values (text), those declared `application/json` (parsed), and the file parts, each already in storage. */
export interface ReadUpload {
  fields: Record<string, string>;
  json: Record<string, unknown>;
  files: StoredUpload[];
}

/** A file part streamed to storage under `key`. */
export interface StoredUpload extends UploadedFile {
  key: string;
}

/** The largest form value (text, not a file part). */
export const MAX_FORM_VALUE_BYTES = 1024 * 1024;
/** At most this many parts (values and files) per body. */
const MAX_PARTS = 1000;

/**
 * Reads a `multipart/form-data` request and streams each file part straight
 * into `storage` under a new key (nothing is held in memory beyond a chunk,
 * nothing goes through another temporary file): its size is counted against
 * its `maxSize` and the body's `maxBytes`, its declared type and leading
 * bytes checked against `accept`. Resolves once every part is stored.
 *
 * On any failure (a refused file, a broken body, a client that left) it
 * waits for every write under way to end, deletes what was stored, and
 * rejects with the ApiError: 413 BODY_TOO_LARGE or FILE_TOO_LARGE, 415
 * FILE_TYPE_NOT_ALLOWED, 400 MULTIPART_ERROR or BODY_READ_ERROR. A refusal
 * before the body's end closes the connection once the rest has been
 * discarded (as for JSON bodies over the limit).
 *
 * @example
 * const { fields, files } = await readUpload(req, { storage, maxBytes: 32 << 20, files: new Map([['avatar', { accept: ['image/*'] }]]) });
 */
export function readUpload(req: IncomingMessage, options: UploadOptions): Promise<ReadUpload> {
  const declared = Number(req.headers['content-length']);
  if (declared > options.maxBytes) return Promise.reject(midBody(req, tooLarge(options.maxBytes)));
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fieldSize: MAX_FORM_VALUE_BYTES, parts: MAX_PARTS } });
  } catch (error) {
    return Promise.reject(new ApiError('MULTIPART_ERROR', `the multipart body cannot be read: ${(error as Error).message}; send Content-Type: multipart/form-data; boundary=...`));
  }
  return new Promise<ReadUpload>((resolve, reject) => {
    const fields: Record<string, string> = {};
    const json: Record<string, unknown> = {};
    const files: StoredUpload[] = [];
    const writes: Promise<unknown>[] = [];
    const open = new Set<Inspector>();
    const seen = new Set<string>();
    let failure: ApiError | null = null;
    let received = 0;
    let parsed = false;

    const stop = () => {
      req.off('data', onData);
      req.off('close', onClose);
      req.unpipe(parser);
    };
    const finish = async () => {
      await Promise.allSettled(writes);
      if (!failure) return resolve({ fields, json, files });
      // Whatever did reach storage before the failure goes again.
      await Promise.allSettled(files.map((file) => options.storage.delete(file.key)));
      reject(failure);
    };
    const fail = (error: ApiError, bodyLeft: boolean) => {
      if (failure) return;
      failure = bodyLeft && !req.complete ? midBody(req, error) : error;
      stop();
      parser.removeAllListeners('file');
      parser.removeAllListeners('field');
      parser.on('error', () => {});
      parser.destroy();
      for (const inspector of open) inspector.destroy(failure);
      void finish();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > options.maxBytes) fail(tooLarge(options.maxBytes), true);
    };
    const onClose = () => {
      if (!req.complete) fail(new ApiError('BODY_READ_ERROR', 'the request body ended before the multipart body was complete'), false);
    };

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new ApiError('BODY_TOO_LARGE', `the form value ${quote(name)} is larger than ${MAX_FORM_VALUE_BYTES} bytes; send large content as a file part`), true);
      if (name in fields || seen.has(name)) return fail(sentTwice(name), true);
      // A value declared application/json is its JSON (null included), which text cannot say; browsers never declare one.
      if (mediaType(info.mimeType) === 'application/json') {
        seen.add(name);
        try {
          json[name] = JSON.parse(value);
        } catch {
          return fail(new ApiError('INVALID_JSON', `the form value ${quote(name)} is declared as application/json and is not JSON`), true);
        }
        return;
      }
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      // A part cut off by a failure errors ("Unexpected end of file"): it is the failure's, already answered.
      stream.on('error', () => {});
      const rules = options.files.get(name);
      if (!rules) {
        stream.resume();
        return;
      }
      if (name in fields || seen.has(name)) {
        stream.resume();
        return fail(sentTwice(name), true);
      }
      seen.add(name);
      const key = newFileKey();
      const filename = info.filename ?? '';
      const inspector = new Inspector(stream, name, filename, mediaType(info.mimeType), rules);
      open.add(inspector);
      stream.on('error', (error) => {
        inspector.broken = true;
        inspector.destroy(error);
      });
      const write = inspector.decided
        .then((contentType) => options.storage.put(key, inspector, { contentType, filename }).then(({ size }) => ({ contentType, size })))
        .then(
          ({ contentType, size }) => {
            files.push(storedUpload(options.storage, { field: name, key, filename, contentType, size }));
          },
          (error: unknown) => {
            // Drain the part so the body can go on being parsed up to the failure's own handling.
            stream.resume();
            if (error instanceof ApiError) return fail(error, true);
            if (failure) return;
            if (inspector.broken) return fail(new ApiError('BODY_READ_ERROR', 'the request body could not be read to the end'), false);
            options.onStorageError?.(error);
            fail(new ApiError('INTERNAL'), true);
          },
        )
        .finally(() => open.delete(inspector));
      writes.push(write);
    });
    parser.on('partsLimit', () => fail(new ApiError('MULTIPART_ERROR', `the multipart body has more than ${MAX_PARTS} parts`), true));
    parser.on('error', (error: Error) => fail(new ApiError('MULTIPART_ERROR', `the multipart body is malformed: ${error.message}`), true));
    parser.on('close', () => {
      if (failure || parsed) return;
      parsed = true;
      stop();
      void finish();
    });
    // A declared Content-Length (at most maxBytes, checked above) is all node's parser reads as the body: only a chunked body is counted.
    if (!(declared >= 0)) req.on('data', onData);
    req.on('close', onClose);
    req.pipe(parser);
  });
}

/** A stored part as hooks see it in `ctx.files`: `open()` reads it back from storage. */
function storedUpload(storage: FileStorage, file: Omit<StoredUpload, 'open'>): StoredUpload {
  return {
    ...file,
    open: () =>
      Readable.from(
        (async function* () {
          const stored = await storage.get(file.key);
          if (!stored) throw new Error(`mfx: the uploaded file ${file.key} is no longer stored`);
          yield* stored.body;
        })(),
      ),
  };
}

/**
 * Passes a file part through on its way to storage: holds its first bytes
 * until its type is decided (`decided`), counts its size against the
 * field's `max_size`, and errors (so storage drops the write) when either
 * refuses it. It reads the part's chunks as they come and pauses the part
 * while storage is behind: a Readable, not a Transform, so a chunk costs one
 * push rather than a write, a transform and a push.
 */
class Inspector extends Readable {
  readonly decided: Promise<string>;
  private decide!: (type: string) => void;
  private refuse!: (error: ApiError) => void;
  private head: Buffer[] | null = [];
  private headBytes = 0;
  private size = 0;
  /** The part's own stream failed (the client's body broke off), rather than the storage. */
  broken = false;

  constructor(
    private readonly part: Readable,
    private readonly field: string,
    private readonly filename: string,
    private readonly declared: string,
    private readonly rules: FileRules,
  ) {
    super();
    this.decided = new Promise<string>((resolve, reject) => {
      this.decide = resolve;
      this.refuse = reject;
    });
    // The put never starts on a refused file: its rejection is handled there.
    this.decided.catch(() => {});
    this.on('error', (error) => this.refuse(error instanceof ApiError ? error : new ApiError('BODY_READ_ERROR')));
    part.on('data', this.onData);
    part.on('end', this.onEnd);
  }

  private readonly onData = (chunk: Buffer): void => {
    if (this.destroyed) return;
    this.size += chunk.length;
    const max = this.rules.maxSize;
    if (max !== undefined && this.size > max) {
      this.destroy(new ApiError('FILE_TOO_LARGE', `the file ${quote(this.field)} is larger than its max_size of ${max} bytes`));
      return;
    }
    if (this.head) {
      this.head.push(chunk);
      this.headBytes += chunk.length;
      if (this.headBytes >= SNIFF_BYTES) this.release();
      return;
    }
    if (!this.push(chunk)) this.part.pause();
  };

  private readonly onEnd = (): void => {
    if (this.destroyed) return;
    if (this.head && !this.release()) return;
    this.push(null);
  };

  override _read(): void {
    this.part.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.part.off('data', this.onData);
    this.part.off('end', this.onEnd);
    callback(error);
  }

  /** Decides the type from the bytes held, then lets them through (or refuses the file); false when refused. */
  private release(): boolean {
    // Almost always one chunk: it is passed on as it is, not copied.
    const held = this.head!.length === 1 ? this.head![0]! : Buffer.concat(this.head!);
    this.head = null;
    const decision = decideType(this.declared, held, this.rules.accept);
    if (!decision.ok) {
      const named = this.filename ? ` (${quote(this.filename.slice(0, 200))})` : '';
      this.destroy(new ApiError('FILE_TYPE_NOT_ALLOWED', `the file ${quote(this.field)}${named} ${decision.reason}`));
      return false;
    }
    this.decide(decision.contentType);
    if (!this.push(held)) this.part.pause();
    return true;
  }
}

const quote = (text: string) => JSON.stringify(text);

const tooLarge = (limit: number) => new ApiError('BODY_TOO_LARGE', `request body is larger than ${limit} bytes`);

const sentTwice = (name: string) => new ApiError('MULTIPART_ERROR', `the multipart body sends ${quote(name)} more than once; send each field once`);

/** A refusal before the body's end: the rest is discarded after the answer, then the connection closes. */
function midBody(req: IncomingMessage, error: ApiError): ApiError {
  lingerAfterAnswer(req);
  // Unpiped from the parser, the request may be paused: the discard must read on.
  req.resume();
  return new ApiError(error.code, error.message, error.details, { ...error.headers, Connection: 'close' });
}
