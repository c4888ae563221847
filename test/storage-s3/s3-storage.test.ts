// @mfx/storage-s3 against a real S3-protocol server (s3rver on a loopback
// port, test/support/s3-server.ts): the FileStorage contract, then what is
// S3's own: the prefix, the object metadata, refused keys and the errors.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { S3StorageError, s3Storage } from '@mfx/storage-s3';
import { type S3Server, s3StorageFactory, startS3Server } from '../support/s3-server.js';
import { chunked, generated, readAll, storageConformance } from '../support/storage-conformance.js';

const storageOn = (s3: S3Server, options: Partial<Parameters<typeof s3Storage>[0]> = {}) =>
  s3Storage({ bucket: s3.bucket, endpoint: s3.endpoint, credentials: s3.credentials, forcePathStyle: true, ...options });

storageConformance(s3StorageFactory);

describe('s3Storage on s3rver: objects, keys and errors', () => {
  let s3: S3Server;
  before(async () => {
    s3 = await startS3Server();
  });
  after(() => s3?.close());

  it('stores under the prefix, with the content type as Content-Type and the file name URI-encoded in the metadata', async () => {
    const storage = storageOn(s3, { prefix: 'tenant-a/files/' });
    const key = `2026/${randomUUID()}`;
    await storage.put(key, chunked(Buffer.from('%PDF-1.7'), 4), { contentType: 'application/pdf', filename: 'Ünïcode "quoted"\r\n.pdf' });
    const listed = await storage.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'tenant-a/' }));
    assert.deepEqual(
      listed.Contents?.map((object) => object.Key),
      [`tenant-a/files/${key}`],
    );
    const head = await storage.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `tenant-a/files/${key}` }));
    assert.equal(head.ContentType, 'application/pdf');
    assert.equal(head.ContentLength, 8);
    assert.deepEqual(head.Metadata, { filename: '%C3%9Cn%C3%AFcode%20%22quoted%22.pdf' }, 'ASCII only; the CR LF dropped');
    assert.equal((await storage.get(key))?.filename, 'Ünïcode "quoted".pdf');
    assert.equal(await storageOn(s3).exists(key), false, 'another prefix does not see it');
    storage.close();
  });

  it('a file name too long for S3 metadata is cut to fit (whole characters); a lone surrogate becomes U+FFFD', async () => {
    const storage = storageOn(s3);
    const key = `long/${randomUUID()}`;
    await storage.put(key, chunked(Buffer.from('x'), 1), { contentType: 'text/plain', filename: `${'é'.repeat(3000)}.txt` });
    const name = (await storage.get(key))?.filename ?? '';
    assert.equal(name, 'é'.repeat(170));
    const odd = `odd/${randomUUID()}`;
    await storage.put(odd, chunked(Buffer.from('x'), 1), { contentType: 'text/plain', filename: 'a\uD800b.txt' });
    assert.equal((await storage.get(odd))?.filename, 'a\uFFFDb.txt');
    storage.close();
  });

  it('refuses keys that a proxy or S3 could read as something else, storing nothing', async () => {
    const storage = storageOn(s3, { prefix: 'refused/' });
    for (const key of ['', '../outside', 'a/../b', 'a//b', '/abs', 'a/./b', 'a\\b', 'nul\u0000', 'line\nbreak', 'k'.repeat(1020)]) {
      await assert.rejects(storage.put(key, Readable.from([Buffer.from('x')]), { contentType: 'text/plain' }), {
        message: `s3Storage: refusing the key ${JSON.stringify(key)}: keys are non-empty "/"-separated segments without ".", "..", backslashes or control characters, at most 1024 bytes with the prefix`,
      });
      await assert.rejects(storage.get(key), /s3Storage: refusing the key/);
    }
    const listed = await storage.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'refused/' }));
    assert.equal(listed.KeyCount, 0);
    storage.close();
  });

  it('a missing bucket: put, get and delete fail naming the operation, bucket, key and S3 code, leaving nothing', async () => {
    const storage = storageOn(s3, { bucket: 'no-such-bucket', prefix: 'p/' });
    const before = s3.files();
    const failure = (operation: string) => ({
      name: 'S3StorageError',
      bucket: 'no-such-bucket',
      key: 'p/k1',
      code: 'NoSuchBucket',
      message: `s3Storage: ${operation} of "p/k1" in bucket "no-such-bucket" failed: NoSuchBucket: The specified bucket does not exist (create the bucket, or fix \`bucket\` in s3Storage())`,
    });
    await assert.rejects(storage.put('k1', chunked(Buffer.alloc(1000), 100), { contentType: 'text/plain' }), failure('put'));
    await assert.rejects(storage.get('k1'), failure('get'));
    await assert.rejects(storage.delete('k1'), failure('delete'));
    assert.deepEqual(s3.files(), before);
    storage.close();
  });

  // s3rver checks the access key id, not SigV4 signatures: an unknown key id stands for wrong credentials.
  it('S3 refusing an upload midway (a large body to a missing bucket) stops the body and names the bucket', async () => {
    const storage = storageOn(s3, { bucket: 'no-such-bucket' });
    const body = generated(12 * 1024 * 1024).stream;
    await assert.rejects(storage.put('large', body, { contentType: 'application/octet-stream' }), {
      name: 'S3StorageError',
      code: 'NoSuchBucket',
      message: /^s3Storage: put of "large" in bucket "no-such-bucket" failed: NoSuchBucket: /,
    });
    assert.equal(body.destroyed, true, 'the body is not left paused');
    storage.close();
  });

  it('wrong credentials: the error names the bucket and key and never the keys', async () => {
    const secretAccessKey = `secret-${randomUUID()}`;
    const storage = storageOn(s3, { credentials: { accessKeyId: 'AKIDUNKNOWN12345', secretAccessKey } });
    const error = await storage.put('denied', chunked(Buffer.from('x'), 1), { contentType: 'text/plain' }).then(
      () => assert.fail('stored with a wrong secret'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof S3StorageError);
    assert.equal(error.code, 'InvalidAccessKeyId');
    assert.match(error.message, /^s3Storage: put of "denied" in bucket "mfx-test" failed: InvalidAccessKeyId: .* \(check the credentials and that they may read, write and delete objects in this bucket\)$/);
    assert.ok(!error.message.includes(secretAccessKey) && !error.message.includes('AKIDUNKNOWN12345'), error.message);
    assert.equal(await storageOn(s3).exists('denied'), false);
    storage.close();
  });

  it('a client of your own is used as it is and not destroyed by close()', async () => {
    const owner = storageOn(s3);
    const storage = s3Storage({ bucket: s3.bucket, client: owner.client, prefix: 'shared/' });
    const key = randomUUID();
    await storage.put(key, chunked(Buffer.from('shared'), 6), { contentType: 'text/plain' });
    storage.close();
    const file = await storage.get(key);
    assert.equal((await readAll(file!.body)).toString(), 'shared');
    owner.close();
  });

  it('refuses a configuration it cannot use, saying what to change', () => {
    const refusals: [unknown, string][] = [
      [{}, 'mfx: s3Storage() needs { bucket }: the name of an existing bucket'],
      [{ bucket: 'b', prefix: '/root/' }, 'mfx: s3Storage(): prefix "/root/" must be text without a leading "/", a backslash or control characters, e.g. "uploads/"'],
      [{ bucket: 'b', partSize: 1024 }, 'mfx: s3Storage(): partSize must be a whole number of bytes, at least 5 MiB (5242880); got 1024'],
      [{ bucket: 'b', queueSize: 0 }, 'mfx: s3Storage(): queueSize must be a whole number, at least 1; got 0'],
    ];
    for (const [options, message] of refusals) {
      assert.throws(() => s3Storage(options as Parameters<typeof s3Storage>[0]), { name: 'ConfigError', message });
    }
  });
});
