// s3rver (the S3 REST API over a directory) on 127.0.0.1, a free port, in a
// process of its own: `node test/support/s3rver.mjs DIR BUCKET` prints
// {"port":N} once it listens and stops when its standard input closes.
// Started by startS3Server (s3-server.ts), so that the test process's memory
// is the storage client's alone.
//
// Two gaps of s3rver 3.7 are filled here: it answers AbortMultipartUpload with
// 405 (`abortMultipartUploads` removes the upload's parts: 204, or 404
// NoSuchUpload), and it reads `Range: bytes=0-0` as the whole object
// (`end || Infinity`; `firstByteRange` corrects it).
import { createReadStream, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const S3rver = createRequire(import.meta.url)('s3rver');
const [dir, bucket] = process.argv.slice(2);

const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
server.middleware.unshift(abortMultipartUploads(server.store));
firstByteRange(server.store);
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.stdin.resume();
process.stdin.on('end', () => server.close().then(() => process.exit(0)));

function abortMultipartUploads(store) {
  return async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    if (ctx.method !== 'DELETE' || typeof uploadId !== 'string') return next();
    const uploads = store.getResourcePath(ctx.path.split('/')[1] ?? '', undefined, 'uploads');
    const upload = join(uploads, uploadId);
    if (!/^[0-9a-f-]+$/i.test(uploadId) || !hasFiles(upload)) {
      ctx.status = 404;
      ctx.type = 'application/xml';
      ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>';
      return;
    }
    rmSync(upload, { recursive: true, force: true });
    ctx.status = 204;
  };
}

function firstByteRange(store) {
  const getObject = store.getObject.bind(store);
  store.getObject = async (bucketName, key, options) => {
    const object = await getObject(bucketName, key, options);
    if (object?.content && options?.end === 0) {
      object.content.destroy();
      object.content = createReadStream(store.getResourcePath(bucketName, key, 'object'), { start: 0, end: 0 });
      object.range = { start: 0, end: 0 };
    }
    return object;
  };
}

function hasFiles(path) {
  try {
    return readdirSync(path).length > 0;
  } catch {
    return false;
  }
}
