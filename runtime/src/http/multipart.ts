import type { Readable } from 'node:stream';
import { ApiError } from '../errors/api-error.js';
import type { Context } from '../pipeline/context.js';
import { bodyLimitOf } from './body.js';

/** The spec's default upload limit (FilesConfig.MaxUploadBytes). */
export const DEFAULT_MULTIPART_LIMIT = 32 * 1024 * 1024;

/** A file part of a multipart body, as the registered parser kept it. */
export interface UploadedFile {
  /** The form field the part was sent under. */
  field: string;
  /** The client's file name (untrusted). */
  filename: string;
  /** The part's declared Content-Type (untrusted). */
  contentType: string;
  /** Bytes received. */
  size: number;
  /** The storage key the part was stored under, when file storage read the body (`createServer({ files })`). */
  key?: string;
  /** Opens the received bytes for reading; each call is a new reader. */
  open(): Readable;
}

/** What a parser hands back: the form fields (they become `ctx.body`) and the file parts (`ctx.files`). */
export interface MultipartBody {
  fields: Record<string, unknown>;
  files: UploadedFile[];
}

export interface MultipartLimits {
  /** The whole body may not exceed this many bytes (413 BODY_TOO_LARGE). */
  maxBytes: number;
}

/**
 * Reads a `multipart/form-data` request: consumes `ctx.req` within `limits`,
 * and registers with `ctx.afterResponse` whatever must be undone once the
 * response is written (open readers, a temporary directory). Throws an
 * ApiError for bad input (400 MULTIPART_ERROR, 413 BODY_TOO_LARGE, ...).
 */
export type MultipartParser = (ctx: Context, limits: MultipartLimits) => Promise<MultipartBody>;

/** A registered parser with its limits. */
export interface MultipartHandoff {
  parse: MultipartParser;
  limits: MultipartLimits;
}

/**
 * The Deserialize step's multipart branch: hands the body to the registered
 * parser (within its limits, lowered for this request by a bodyLimit() hook)
 * and puts what it returns on the context. Without a parser, 501
 * NO_STORAGE. A parser's ApiError answers as is; anything else it throws is
 * taken as a body it could not read: 400 MULTIPART_ERROR with the generic
 * text (a parser's own message may name paths), the original logged.
 *
 * @example
 * if (isMultipart(ctx.req)) await readMultipart(ctx, options.multipart);
 */
export async function readMultipart(ctx: Context, handoff: MultipartHandoff | null): Promise<void> {
  if (!handoff) throw new ApiError('NO_STORAGE', 'multipart bodies need file storage; configure FileStorage or send JSON');
  let parsed: MultipartBody;
  try {
    const maxBytes = bodyLimitOf(ctx, handoff.limits.maxBytes);
    parsed = await handoff.parse(ctx, maxBytes === handoff.limits.maxBytes ? handoff.limits : { ...handoff.limits, maxBytes });
  } catch (error) {
    if (error instanceof ApiError) throw error;
    ctx.log.warn({ requestId: ctx.requestId, model: ctx.model?.name, op: ctx.op, err: String((error as Error)?.stack ?? error) }, 'multipart parser failed');
    throw new ApiError('MULTIPART_ERROR');
  }
  ctx.body = parsed.fields;
  ctx.files = parsed.files;
}
