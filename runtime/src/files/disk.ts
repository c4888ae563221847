import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ConfigError } from '../errors/api-error.js';
import { withPositionalRead } from '../http/positional.js';
import { isFileKey } from './keys.js';
import type { ByteRange, FileStorage, StoredFile, StoredFileMeta } from './storage.js';

export interface DiskStorageOptions {
  /** The directory the files live in; created when missing. */
  dir: string;
}

/** Where unfinished writes live, inside the storage directory (on its file system, so a rename moves them). */
export const DISK_TEMP_DIR = '.tmp';
/** The metadata file beside a key's bytes. Keys have no dot, so no key ends like this. */
const META_SUFFIX = '.meta.json';

/**
 * Files on a local disk: `<dir>/<key>` holds the bytes and
 * `<dir>/<key>.meta.json` the content type and file name. A write goes to
 * `<dir>/.tmp/<random>` and is renamed into place once complete, so a
 * reader never sees half a file and a failed or aborted write leaves
 * nothing behind. Only keys of the shape `newFileKey` makes are stored or
 * looked up (`isFileKey`): a key cannot name a path outside `dir`.
 *
 * @example
 * createServer({ files: { storage: diskStorage({ dir: './uploads' }) } });
 */
export function diskStorage(options: DiskStorageOptions): FileStorage {
  if (!options || typeof options.dir !== 'string' || options.dir === '') {
    throw new ConfigError('diskStorage needs { dir }: the directory files are stored in, e.g. diskStorage({ dir: "./uploads" })');
  }
  const root = resolve(options.dir);
  const temp = join(root, DISK_TEMP_DIR);
  const pathOf = (key: string) => join(root, key);
  let ready: Promise<unknown> | null = null;
  /** Key directories (`YYYY/MM`) made by this storage: a key's month is made once, not on every write. */
  const made = new Set<string>();
  /** Renames `from` to `to`, making `to`'s directory first when it is new (or was removed meanwhile). */
  const renameInto = async (from: string, to: string) => {
    const dir = dirname(to);
    if (made.has(dir)) {
      try {
        return await rename(from, to);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        made.delete(dir);
      }
    }
    await mkdir(dir, { recursive: true });
    made.add(dir);
    await rename(from, to);
  };

  return {
    async put(key: string, body: Readable, meta: StoredFileMeta): Promise<{ size: number }> {
      if (!isFileKey(key)) throw new Error(`mfx: diskStorage stores only keys made by newFileKey, not ${JSON.stringify(key).slice(0, 80)}`);
      await (ready ??= mkdir(temp, { recursive: true }).catch((error) => ((ready = null), Promise.reject(error))));
      const part = join(temp, randomUUID());
      try {
        const sink = createWriteStream(part, { flags: 'wx' });
        await pipeline(body, sink);
        // Every byte reached the file once the pipeline resolves: the count is the file's size, no stat needed.
        const size = sink.bytesWritten;
        await writeFile(part + META_SUFFIX, JSON.stringify({ contentType: meta.contentType, filename: meta.filename ?? null }), { flag: 'wx' });
        const final = pathOf(key);
        // The metadata first: a key's bytes are only there once its metadata is.
        await renameInto(part + META_SUFFIX, final + META_SUFFIX);
        await rename(part, final);
        return { size };
      } catch (error) {
        body.destroy();
        await Promise.all([rm(part, { force: true }), rm(part + META_SUFFIX, { force: true })]);
        throw error;
      }
    },

    async get(key: string, range?: ByteRange): Promise<StoredFile | null> {
      if (!isFileKey(key)) return null;
      const path = pathOf(key);
      let handle;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      try {
        const { size } = await handle.stat();
        const meta = await readMeta(path);
        const opened = handle;
        const body = withPositionalRead(handle.createReadStream(range ? { start: range.start, end: range.end } : {}), {
          // A download reads the file into reused buffers instead of the stream's fresh Buffer per chunk (http/positional.ts).
          read: (into, length, position) => opened.read(into, 0, length, position).then((r) => r.bytesRead),
          start: range?.start ?? 0,
          end: range ? range.end + 1 : size,
        });
        return { body, size, contentType: meta.contentType, ...(meta.filename != null ? { filename: meta.filename } : {}) };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      if (!isFileKey(key)) return;
      const path = pathOf(key);
      await rm(path, { force: true });
      await rm(path + META_SUFFIX, { force: true });
    },

    async exists(key: string): Promise<boolean> {
      if (!isFileKey(key)) return false;
      try {
        return (await stat(pathOf(key))).isFile();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
    },
  };
}

/** A key's metadata; bytes whose metadata went missing are served as octet-stream. */
async function readMeta(path: string): Promise<{ contentType: string; filename: string | null }> {
  try {
    const meta = JSON.parse(await readFile(path + META_SUFFIX, 'utf8')) as { contentType?: unknown; filename?: unknown };
    return {
      contentType: typeof meta.contentType === 'string' ? meta.contentType : 'application/octet-stream',
      filename: typeof meta.filename === 'string' ? meta.filename : null,
    };
  } catch {
    return { contentType: 'application/octet-stream', filename: null };
  }
}
