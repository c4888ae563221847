// File storages as every file storage suite sees them (the storage, what it
// holds, what unfinished writes it left; disk here, S3 in s3-server.ts), and
// multipart bodies built by hand
// (so tests can send names, types and broken framing no browser would).
import { mkdtempSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { diskStorage, type FileStorage } from '@mfx/runtime';

/**
 * A storage under test, opened by its factory, and what the suites need to
 * look into it. The one shape every file storage suite takes: the
 * FileStorage contract (storage-conformance.ts) and the end-to-end file
 * suite (files-suite.ts) run on disk and on S3 through it.
 */
export interface StorageHarness {
  storage: FileStorage;
  /** Every key stored now, sorted. */
  keys(): Promise<string[]>;
  /** Writes that never finished and were left behind (temporary files, incomplete uploads); empty when clean. */
  leftovers(): Promise<string[]>;
  /**
   * Everything the backing store holds, as sorted names: stored files, their
   * metadata, temporary files, parts of unfinished uploads. A failed put
   * must leave it as it was.
   */
  contents(): Promise<string[]>;
  /** Removes everything (after the suite). */
  close(): Promise<void>;
}

/** Makes fresh, empty storages of one kind: a suite's only dependency on which storage it tests. */
export interface StorageFactory {
  /** Named in suite titles: `disk`, `s3`. */
  name: string;
  open(): Promise<StorageHarness>;
  /** How far the memory JavaScript holds (heap and Buffers) may grow while a large body streams through (default 16 MiB): a storage that buffers parts needs more. */
  maxHeldGrowth?: number;
}

/** Every file under `dir`, relative to it (none when it is missing). */
export async function filesUnder(dir: string, at = dir): Promise<string[]> {
  const entries = await readdir(at, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const entry of entries) {
    const path = join(at, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(dir, path)));
    else out.push(relative(dir, path));
  }
  return out.sort();
}

/** diskStorage in a fresh temporary directory. */
export const diskStorageFactory: StorageFactory = {
  name: 'disk',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'mfx-files-'));
    return {
      storage: diskStorage({ dir }),
      keys: async () => (await filesUnder(dir)).filter((p) => !p.startsWith('.tmp') && !p.endsWith('.meta.json')),
      leftovers: async () => (await filesUnder(dir)).filter((p) => p.startsWith('.tmp')),
      contents: () => filesUnder(dir),
      close: () => rm(dir, { recursive: true, force: true }),
    };
  },
};

/** One part of a hand-built multipart body: a form value, or a file. */
/** A form value (with `type`, a declared Content-Type such as application/json) or a file part. */
export type Part = { name: string; value: string; type?: string } | { name: string; filename: string; type?: string; data: Buffer | string };

export const BOUNDARY = 'mfx-test-boundary-7d2c';

/**
 * A multipart/form-data body and its Content-Type; `cut` keeps only the
 * first bytes (a body that ends mid-part).
 *
 * @example
 * const { raw, contentType } = multipart([{ name: 'title', value: 'x' }, { name: 'avatar', filename: 'a.png', type: 'image/png', data: PNG }]);
 */
export function multipart(parts: readonly Part[], options: { cut?: number; boundary?: string } = {}): { raw: Buffer; contentType: string } {
  const boundary = options.boundary ?? BOUNDARY;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if ('filename' in part) head += `; filename="${part.filename.replace(/["\\]/g, '\\$&')}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
    else if (part.type) head += `\r\nContent-Type: ${part.type}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`, 'utf8'), Buffer.from('filename' in part ? part.data : part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const raw = Buffer.concat(chunks);
  return { raw: options.cut === undefined ? raw : raw.subarray(0, options.cut), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Leading bytes of real files of each type, followed by filler. */
export const SAMPLES = {
  png: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(200, 1)]),
  jpeg: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]), Buffer.from('JFIF'), Buffer.alloc(300, 2)]),
  gif: Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(50, 3)]),
  webp: Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x40, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(60, 4)]),
  pdf: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(400, 0x20)]),
  zip: Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(100, 5)]),
  exe: Buffer.concat([Buffer.from('MZ'), Buffer.from([0x90, 0, 3, 0, 0, 0]), Buffer.alloc(200, 6)]),
  text: Buffer.from('plain words, no magic number\n'.repeat(10)),
};

/** `size` bytes of a repeating, position-dependent pattern (so a shifted or truncated copy never compares equal). */
export function patterned(size: number, seed = 0): Buffer {
  const out = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return out;
}
