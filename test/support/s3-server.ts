// A real S3-protocol server for the tests: s3rver over a temporary directory,
// with one bucket, on a loopback port, in a child process (s3rver.mjs beside
// this file says what it adds to s3rver 3.7); and s3Storage over it as the
// file storage suites take a storage (file-storage.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3Storage } from '@mfx/storage-s3';
import type { StorageFactory } from './file-storage.js';

export interface S3Server {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  bucket: string;
  /** s3rver's default account (it checks the access key id, not SigV4 signatures). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The directory s3rver keeps buckets, objects and unfinished uploads in. */
  dir: string;
  /** Every file under `dir` (objects, their metadata, parts of unfinished uploads), relative to it. */
  files(): string[];
  close(): Promise<void>;
}

/**
 * Starts s3rver on 127.0.0.1 (a free port) over a new temporary directory,
 * with `bucket` created.
 *
 * @example
 * const s3 = await startS3Server();
 * const storage = s3Storage({ bucket: s3.bucket, endpoint: s3.endpoint, credentials: s3.credentials, forcePathStyle: true });
 * after(() => s3.close());
 */
export async function startS3Server(bucket = 'mfx-test'): Promise<S3Server> {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-s3-'));
  const child = spawn(process.execPath, [new URL('./s3rver.mjs', import.meta.url).pathname, dir, bucket], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before it listened`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    dir,
    files: () => listFiles(dir).map((path) => relative(dir, path)),
    async close() {
      child.stdin!.end();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function listFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/** Where s3StorageFactory's storage keeps its objects in the bucket. */
const PREFIX = 'app/';

/**
 * s3Storage (prefix `app/`) over a fresh s3rver, for the file storage
 * suites. Its unfinished writes are the parts of multipart uploads neither
 * completed nor aborted (s3rver keeps them under `._S3rver_uploads`).
 */
export const s3StorageFactory: StorageFactory = {
  name: 's3',
  // The part being sent, the one being filled and its chunks: 5 MiB each (partSize × (queueSize + 2)).
  maxHeldGrowth: 20 * 1024 * 1024,
  async open() {
    const s3 = await startS3Server();
    const storage = s3Storage({ bucket: s3.bucket, endpoint: s3.endpoint, credentials: s3.credentials, forcePathStyle: true, prefix: PREFIX });
    return {
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
      leftovers: async () => s3.files().filter((path) => path.includes('._S3rver_uploads')).sort(),
      contents: async () => s3.files().sort(),
      async close() {
        storage.close();
        await s3.close();
      },
    };
  },
};
