// The FileStorage contract (runtime/src/files/storage.ts) as a suite that
// runs against any implementation: byte-exact round trips, a large body
// streamed with memory staying flat, byte ranges, missing keys, idempotent
// deletes, bodies that fail midway leaving nothing behind, concurrent puts.
// It takes a storage as every file storage suite does (file-storage.ts):
//
//   storageConformance(diskStorageFactory);
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FileStorage } from '../../runtime/src/files/storage.js';
import type { StorageFactory, StorageHarness } from './file-storage.js';

export interface ConformanceOptions {
  /** A fresh key the storage accepts (default: the shape the server's `newFileKey` makes, `YYYY/MM/<22 base64url>`). */
  key?: () => string;
  /** Size of the large streamed body (default 30 MiB). */
  largeBytes?: number;
}

const MiB = 1024 * 1024;

/** Defines `FileStorage contract: <storage> storage`, opening the storage once for the suite. */
export function storageConformance(factory: StorageFactory, options: ConformanceOptions = {}): void {
  const newKey = options.key ?? fileKey;
  const largeBytes = options.largeBytes ?? 30 * MiB;
  const maxHeldGrowth = factory.maxHeldGrowth ?? 16 * MiB;

  describe(`FileStorage contract: ${factory.name} storage`, () => {
    let harness: StorageHarness;
    let storage: FileStorage;
    before(async () => {
      harness = await factory.open();
      storage = harness.storage;
    });
    after(() => harness?.close());

    const filesNow = () => harness.contents();

    it('put streams a body and resolves its size; get gives back the same bytes, content type and file name', async () => {
      const key = newKey();
      const bytes = randomBytes(300 * 1024 + 7);
      const filename = 'résumé "final" ../ 日本 %41.pdf';
      assert.deepEqual(await storage.put(key, chunked(bytes, 16 * 1024), { contentType: 'application/pdf', filename }), { size: bytes.length });
      const file = await storage.get(key);
      assert.ok(file, 'stored');
      assert.equal(file.size, bytes.length);
      assert.equal(file.contentType, 'application/pdf');
      assert.equal(file.filename, filename);
      assert.ok((await readAll(file.body)).equals(bytes), 'byte-exact');
    });

    it('a file without a file name has none; an empty body is stored as an empty file', async () => {
      const key = newKey();
      assert.deepEqual(await storage.put(key, Readable.from([]), { contentType: 'text/plain' }), { size: 0 });
      const file = await storage.get(key);
      assert.ok(file);
      assert.equal(file.size, 0);
      assert.equal(file.contentType, 'text/plain');
      assert.equal(file.filename, undefined);
      assert.equal((await readAll(file.body)).length, 0);
      assert.equal(await storage.exists(key), true);
    });

    it(`a ${largeBytes / MiB} MiB generated body streams in and out byte-exact with the memory it holds growing less than ${maxHeldGrowth / MiB} MiB`, async (t) => {
      const key = newKey();
      // Warm-up: the first large put loads code and grows the heap once; the measure is the next one.
      const warmUp = newKey();
      await storage.put(warmUp, generated(12 * MiB).stream, { contentType: 'application/octet-stream' });
      await pipeline((await storage.get(warmUp))!.body, hashingSink().stream);
      await storage.delete(warmUp);
      const source = generated(largeBytes);
      const put = await storage.put(key, source.stream, { contentType: 'application/octet-stream', filename: 'large.bin' });
      assert.equal(put.size, largeBytes);
      // What each step held at most, bounded; RSS beside it for the record.
      const bounded = (step: string, growth: Memory) => {
        t.diagnostic(`${step}: held memory grew ${mib(growth.held)} MiB, RSS ${mib(growth.rss)} MiB`);
        assert.ok(growth.held < maxHeldGrowth, `${step}: held memory grew ${mib(growth.held)} MiB for a ${mib(largeBytes)} MiB body`);
      };
      bounded('put', source.growth());

      const file = await storage.get(key);
      assert.ok(file);
      assert.equal(file.size, largeBytes);
      const sink = hashingSink();
      await pipeline(file.body, sink.stream);
      assert.equal(sink.bytes(), largeBytes);
      assert.equal(sink.digest(), source.digest(), 'byte-exact');
      bounded('get', sink.growth());
    });

    it('get with an inclusive byte range streams only those bytes and gives the full size', async () => {
      const key = newKey();
      const bytes = randomBytes(10_000);
      await storage.put(key, chunked(bytes, 999), { contentType: 'video/mp4', filename: 'clip.mp4' });
      for (const [start, end] of [
        [0, 0],
        [0, 9_999],
        [1_234, 5_678],
        [9_999, 9_999],
      ] as const) {
        const file = await storage.get(key, { start, end });
        assert.ok(file, `range ${start}-${end}`);
        assert.equal(file.size, 10_000, `range ${start}-${end}: the full size`);
        assert.equal(file.contentType, 'video/mp4');
        assert.equal(file.filename, 'clip.mp4');
        assert.ok((await readAll(file.body)).equals(bytes.subarray(start, end + 1)), `range ${start}-${end}: those bytes`);
      }
    });

    it('a range that ends past the end is cut at the end; one that starts past the end gives no bytes and the full size', async () => {
      const key = newKey();
      const bytes = randomBytes(100);
      await storage.put(key, chunked(bytes, 100), { contentType: 'application/octet-stream' });
      const tail = await storage.get(key, { start: 90, end: 1_000 });
      assert.ok(tail);
      assert.equal(tail.size, 100);
      assert.ok((await readAll(tail.body)).equals(bytes.subarray(90)));
      const beyond = await storage.get(key, { start: 100, end: 200 });
      assert.ok(beyond);
      assert.equal(beyond.size, 100);
      assert.equal((await readAll(beyond.body)).length, 0);
    });

    it('a missing key: get (with or without a range) resolves null, exists false, delete succeeds', async () => {
      const key = newKey();
      assert.equal(await storage.get(key), null);
      assert.equal(await storage.get(key, { start: 0, end: 10 }), null);
      assert.equal(await storage.exists(key), false);
      await storage.delete(key);
    });

    it('delete removes the file and is idempotent', async () => {
      const key = newKey();
      await storage.put(key, chunked(Buffer.from('bye'), 3), { contentType: 'text/plain' });
      assert.equal(await storage.exists(key), true);
      await storage.delete(key);
      assert.equal(await storage.exists(key), false);
      assert.equal(await storage.get(key), null);
      await storage.delete(key);
      assert.equal(await storage.exists(key), false);
    });

    for (const [what, bytesBeforeFailure] of [
      ['early (within the first megabyte)', 64 * 1024],
      ['late (after 12 MiB, past the first parts of a multipart upload)', 12 * MiB],
    ] as const) {
      it(`a body that errors ${what}: put rejects with the body's own error and nothing is left anywhere`, async () => {
        const key = newKey();
        const before = await filesNow();
        const failure = new Error('client went away');
        await assert.rejects(storage.put(key, failing(bytesBeforeFailure, failure), { contentType: 'application/octet-stream', filename: 'broken.bin' }), (error) => error === failure);
        assert.equal(await storage.exists(key), false);
        assert.equal(await storage.get(key), null);
        assert.deepEqual(await filesNow(), before, 'no stored file, temporary file or upload part left behind');
      });
    }

    it('a body destroyed without an error (a connection reset) is a failed put too, leaving nothing', async () => {
      const key = newKey();
      const before = await filesNow();
      let sent = 0;
      const body = new Readable({
        read() {
          if (sent >= 6 * MiB) return void this.destroy();
          sent += 64 * 1024;
          this.push(randomBytes(64 * 1024));
        },
      });
      await assert.rejects(storage.put(key, body, { contentType: 'application/octet-stream' }));
      assert.equal(await storage.exists(key), false);
      assert.deepEqual(await filesNow(), before);
    });

    it('concurrent puts each store their own bytes', async () => {
      const bodies = Array.from({ length: 8 }, (_, index) => ({ key: newKey(), bytes: randomBytes(index % 2 ? 1_500_000 : 6 * MiB + index) }));
      const sizes = await Promise.all(bodies.map(({ key, bytes }, index) => storage.put(key, chunked(bytes, 64 * 1024), { contentType: 'image/png', filename: `${index}.png` })));
      assert.deepEqual(
        sizes.map((put) => put.size),
        bodies.map(({ bytes }) => bytes.length),
      );
      for (const [index, { key, bytes }] of bodies.entries()) {
        const file = await storage.get(key);
        assert.ok(file);
        assert.equal(file.filename, `${index}.png`);
        assert.ok((await readAll(file.body)).equals(bytes), `body ${index} byte-exact`);
      }
    });
  });
}

/** A key of the shape `newFileKey` makes (diskStorage stores no other). */
export function fileKey(): string {
  const now = new Date();
  return `${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}/${randomBytes(16).toString('base64url')}`;
}

/** `bytes` as a stream of `size`-byte chunks. */
export function chunked(bytes: Buffer, size: number): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= bytes.length) return void this.push(null);
      this.push(bytes.subarray(offset, offset + size));
      offset += size;
    },
  });
}

export async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * `total` pseudo-random bytes made as they are read, 64 KiB at a time (never
 * held whole), hashed on the way; memory is sampled every SAMPLE_EVERY bytes.
 */
export function generated(total: number) {
  const hash = createHash('sha256');
  const block = randomBytes(64 * 1024);
  const start = sampledMemory();
  let peak = start;
  let made = 0;
  const stream = new Readable({
    read() {
      if (made % SAMPLE_EVERY === 0) peak = higher(peak, sampledMemory());
      if (made >= total) return void this.push(null);
      const chunk = Buffer.from(block.subarray(0, Math.min(block.length, total - made)));
      chunk.writeUInt32BE(made >>> 0, 0); // every chunk differs, so a misplaced one is seen
      hash.update(chunk);
      made += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, growth: () => grown(start, peak), digest: () => hash.copy().digest('hex') };
}

/** A body that sends `bytes` bytes, then errors. */
function failing(bytes: number, error: Error): Readable {
  return Readable.from(
    (async function* () {
      yield* generated(bytes).stream;
      throw error;
    })(),
  );
}

function hashingSink() {
  const hash = createHash('sha256');
  const start = sampledMemory();
  let peak = start;
  let bytes = 0;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      if (Math.floor(bytes / SAMPLE_EVERY) !== Math.floor((bytes + chunk.length) / SAMPLE_EVERY)) peak = higher(peak, sampledMemory());
      bytes += chunk.length;
      done();
    },
  });
  return { stream, growth: () => grown(start, peak), bytes: () => bytes, digest: () => hash.digest('hex') };
}

/**
 * Memory is sampled every 8 MiB after a full garbage collection, as two
 * figures: what JavaScript holds (the heap in use and the Buffers and other
 * memory outside it, `heapUsed + external`), which the check bounds, and RSS,
 * which is only reported. What a storage holds on to is the first; RSS adds
 * what the C allocator keeps after Buffers are freed (glibc keeps freed
 * blocks of a few MiB for reuse), which varied from 11 to 27 MiB across runs
 * of the same S3 upload.
 */
const SAMPLE_EVERY = 8 * MiB;
v8.setFlagsFromString('--expose-gc');
// Freed Buffers are counted out of `external` by the collection itself, not later by a helper thread.
v8.setFlagsFromString('--no-concurrent-array-buffer-sweeping');
const gc = runInNewContext('gc') as () => void;

interface Memory {
  held: number;
  rss: number;
}
function sampledMemory(): Memory {
  gc();
  const { heapUsed, external, rss } = process.memoryUsage();
  return { held: heapUsed + external, rss };
}
const higher = (a: Memory, b: Memory): Memory => ({ held: Math.max(a.held, b.held), rss: Math.max(a.rss, b.rss) });
const grown = (start: Memory, peak: Memory): Memory => ({ held: peak.held - start.held, rss: peak.rss - start.rss });

const mib = (bytes: number) => (bytes / MiB).toFixed(1);
