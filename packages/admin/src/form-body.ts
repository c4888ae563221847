import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import busboy from 'busboy';

/** A file part of a submitted form, held in memory until it is uploaded through POST /files. */
export interface FormFile {
  filename: string;
  contentType: string;
  bytes: Buffer;
}

/** A submitted form: its text fields (the last value of a name wins) and its non-empty file parts. */
export interface SubmittedForm {
  fields: Map<string, string>;
  files: Map<string, FormFile>;
}

/** A form the panel does not take: its status and the words of the error page. */
export class FormError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a panel form: `application/x-www-form-urlencoded` (at most
 * `textLimit` bytes), or `multipart/form-data` when the form has file
 * inputs (each file at most `fileLimit` bytes).
 *
 * @example
 * const { fields, files } = await readForm(req, 1 << 20, 32 << 20);
 */
export async function readForm(req: IncomingMessage, textLimit: number, fileLimit: number): Promise<SubmittedForm> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return { fields: new Map(new URLSearchParams((await readAll(req, textLimit)).toString('utf8'))), files: new Map() };
  if (type === 'multipart/form-data') return readMultipart(req, textLimit, fileLimit);
  throw new FormError(415, 'The panel accepts forms sent as application/x-www-form-urlencoded or multipart/form-data.');
}

async function readAll(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new FormError(413, `The form is larger than ${limit} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function readMultipart(req: IncomingMessage, textLimit: number, fileLimit: number): Promise<SubmittedForm> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fieldSize: textLimit, fileSize: fileLimit, parts: 1000 } });
    } catch (error) {
      reject(new FormError(400, `The form could not be read: ${(error as Error).message}`));
      return;
    }
    const form: SubmittedForm = { fields: new Map(), files: new Map() };
    let failed: FormError | null = null;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) failed ??= new FormError(413, `The form value of ${name} is larger than ${textLimit} bytes.`);
      form.fields.set(name, value);
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => (failed ??= new FormError(413, `The file ${info.filename} is larger than ${fileLimit} bytes.`)));
      stream.on('end', () => {
        const bytes = Buffer.concat(chunks);
        if (info.filename && bytes.length > 0) form.files.set(name, { filename: info.filename, contentType: info.mimeType, bytes });
      });
    });
    parser.on('partsLimit', () => (failed ??= new FormError(400, 'The form has too many parts.')));
    parser.on('error', (error: Error) => reject(new FormError(400, `The form could not be read: ${error.message}`)));
    parser.on('close', () => (failed ? reject(failed) : resolve(form)));
    req.pipe(parser);
  });
}

/**
 * A create or update body as multipart/form-data, the way the API takes a
 * write with files: each value a part declared `application/json` holding
 * its JSON (so null, numbers and text arrive exactly as in the JSON write
 * without files: one body, whichever way it travels) and each file a part
 * named after its field, so the API checks the field's `accept` and
 * `max_size` itself.
 *
 * @example
 * writeBody({ name: 'Ada', bio: null }, new Map([['avatar', file]]));
 */
export function writeBody(body: Record<string, unknown>, files: ReadonlyMap<string, FormFile>): { contentType: string; bytes: Buffer } {
  const boundary = `mfx-admin-${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  const quoted = (text: string) => text.replace(/["\r\n\\]/g, '_');
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue;
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(value)}\r\n`));
  }
  for (const [name, file] of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"; filename="${quoted(file.filename)}"\r\nContent-Type: ${file.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`));
    parts.push(file.bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.concat(parts) };
}
