// The end-to-end suite of file fields, multipart writes and the /files routes
// (test/support/files-suite.ts) with s3Storage over s3rver in place of disk storage.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3Storage } from '@mfx/storage-s3';
import type { StorageFactory } from '../support/file-storage.js';
import { filesSuite } from '../support/files-suite.js';
import { startS3Server } from '../support/s3-server.js';

const PREFIX = 'app/';

const s3Harness: StorageFactory = async () => {
  const s3 = await startS3Server();
  const storage = s3Storage({ bucket: s3.bucket, endpoint: s3.endpoint, credentials: s3.credentials, forcePathStyle: true, prefix: PREFIX });
  return {
    name: 's3',
    storage,
    async keys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await storage.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: PREFIX, ContinuationToken: token }));
        for (const object of page.Contents ?? []) keys.push(object.Key!.slice(PREFIX.length));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    // Parts of multipart uploads that were neither completed nor aborted (s3rver keeps them under `._S3rver_uploads`).
    leftovers: async () => s3.files().filter((path) => path.includes('._S3rver_uploads')).sort(),
    async close() {
      storage.close();
      await s3.close();
    },
  };
};

filesSuite(s3Harness, 'file fields and /files on s3 storage');
