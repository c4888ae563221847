/**
 * The standalone file routes in the OpenAPI document (served only with file
 * storage): the upload, the download with byte ranges (and its HEAD), the
 * delete, each secured by the Auth-step hooks of the `file` operation.
 */
import { headOf, type PathContribution } from '../openapi/builder.js';
import type { Operation, Parameter, Schema } from '../openapi/types.js';
import { FILE_PART } from './routes.js';

const binary: Schema = { type: 'string', contentMediaType: 'application/octet-stream' };

const keyParameter: Parameter = {
  name: 'key',
  in: 'path',
  required: true,
  description: 'the key POST /files (or a multipart write) returned, slashes included: `YYYY/MM/<22 characters>`',
  schema: { type: 'string' },
};

const uploaded: Schema = {
  type: 'object',
  properties: {
    data: {
      type: 'object',
      properties: {
        key: { type: 'string', description: 'the storage key: send it as a file field\'s value, or GET /files/{key}' },
        size: { type: 'integer', minimum: 0, description: 'bytes stored' },
        contentType: { type: 'string', description: 'the type the server recorded: the content\'s own where its leading bytes show it, else the declared one' },
        filename: { type: 'string', description: "the client's file name (only used for Content-Disposition)" },
      },
      required: ['key', 'size', 'contentType', 'filename'],
    },
  },
  required: ['data'],
};

const header = (description: string) => ({ description, schema: { type: 'string' } });

const downloadHeaders = {
  'Content-Disposition': header('`inline` for images, PDF, audio, video and plain text, `attachment` otherwise, with the file name quoted (`filename` in ASCII, `filename*` exact)'),
  'Content-Length': header('bytes in this response'),
  ETag: header('names the stored bytes (a key never changes); send it as If-None-Match or If-Range'),
  'Accept-Ranges': header('`bytes`'),
};

/**
 * The contribution of the file routes.
 *
 * @example
 * app.openapi.contribute(filesContribution);
 */
export const filesContribution: PathContribution = {
  name: 'file routes',
  contribute(doc) {
    const upload: Operation = {
      operationId: 'uploadFile',
      summary: 'Upload a file',
      description: `Stores the file sent as the multipart part \`${FILE_PART}\` under a new key, to be sent as a file field's value in a JSON create or update (the two-step upload). The body may be up to ${doc.config.files?.maxUploadBytes ?? 0} bytes.`,
      tags: ['files'],
      requestBody: {
        required: true,
        content: { 'multipart/form-data': { schema: { type: 'object', properties: { [FILE_PART]: binary }, required: [FILE_PART] } } },
      },
      responses: {
        '201': { description: 'the stored file', content: { 'application/json': { schema: uploaded } } },
        ...doc.errors('400', '413', '422', '500', '501'),
      },
    };
    const download: Operation = {
      operationId: 'downloadFile',
      summary: 'Download a file',
      description: 'The stored bytes with their content type. A single byte range (`Range: bytes=a-b`, `bytes=a-`, `bytes=-n`) answers 206; several ranges, or an If-Range that no longer matches, the whole file.',
      tags: ['files'],
      parameters: [
        { name: 'Range', in: 'header', description: 'one byte range', schema: { type: 'string' } },
        { name: 'If-None-Match', in: 'header', description: 'an ETag: 304 when it matches', schema: { type: 'string' } },
      ],
      responses: {
        '200': { description: 'the file', headers: downloadHeaders, content: { '*/*': { schema: binary } } },
        '206': { description: 'the requested byte range', headers: { ...downloadHeaders, 'Content-Range': header('`bytes a-b/size`') }, content: { '*/*': { schema: binary } } },
        '304': { description: 'Not Modified: If-None-Match matched the ETag; no body' },
        ...doc.errors('404', '416', '500', '501'),
      },
    };
    const remove: Operation = {
      operationId: 'deleteFile',
      summary: 'Delete a file',
      description: 'Removes the stored file. Records that still name its key keep the key.',
      tags: ['files'],
      responses: { '204': { description: 'deleted' }, ...doc.errors('404', '500', '501') },
    };
    doc.operation('post', '/files', doc.secured(null, 'file', upload));
    const get = doc.secured(null, 'file', download);
    doc.operation('get', '/files/{key}', get, [keyParameter]);
    doc.operation('head', '/files/{key}', headOf(get));
    doc.operation('delete', '/files/{key}', doc.secured(null, 'file', remove));
  },
};
