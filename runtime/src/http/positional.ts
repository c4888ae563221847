/**
 * Response sources that can also be read at byte positions into buffers the
 * reader brings (a file on disk). A Readable makes a fresh Buffer for every
 * chunk it reads: a 1 MB download is sixteen 64 KiB allocations outside V8's
 * heap, dead as soon as the socket took them, and V8 lets tens of MB of such
 * dead Buffers pile up before it collects them (RSS under a download load
 * rose by about 30 MB). `pipeSource` reads a positional source through a
 * small pool of buffers that go back to the pool once the socket has written
 * them, so downloads stream in bounded memory; the Readable is then only
 * released (it closes the file), never read.
 */

/** How to read a source's bytes `[start, end)` at positions. */
export interface PositionalRead {
  /** Reads up to `length` bytes at `position` into the start of `into`; resolves the count (0 at the end). */
  read(into: Buffer, length: number, position: number): Promise<number>;
  start: number;
  /** Exclusive. */
  end: number;
}

const POSITIONAL = Symbol('mfx.positionalRead');

/**
 * Marks `source` as readable at positions through `read`; the source itself
 * stays a plain Readable for every other consumer.
 *
 * @example
 * const body = handle.createReadStream();
 * withPositionalRead(body, { read: (into, n, at) => handle.read(into, 0, n, at).then((r) => r.bytesRead), start: 0, end: size });
 */
export function withPositionalRead<T extends object>(source: T, read: PositionalRead): T {
  Object.defineProperty(source, POSITIONAL, { value: read });
  return source;
}

/** The positional read of a source nothing has read from yet (once a consumer started on the Readable, it is read as one). */
export function positionalReadOf(source: object): PositionalRead | undefined {
  const read = (source as { [POSITIONAL]?: PositionalRead })[POSITIONAL];
  if (!read) return undefined;
  const readable = source as { readableDidRead?: boolean; destroyed?: boolean };
  return readable.readableDidRead || readable.destroyed ? undefined : read;
}

/** The size of a pooled buffer: the chunk size of node's file streams. */
export const POOLED_CHUNK = 64 * 1024;
/** Buffers kept for reuse (2 MiB); more in use at once are made afresh and left to the collector. */
const POOL_MAX = 32;
const pool: Buffer[] = [];

/** A buffer of POOLED_CHUNK bytes for a read; it must go back with `returnBuffer` only once nothing refers to it. */
export function takeBuffer(): Buffer {
  return pool.pop() ?? Buffer.allocUnsafeSlow(POOLED_CHUNK);
}

/** Gives a buffer back once the socket has written it (its write callback ran, with or without an error). */
export function returnBuffer(buffer: Buffer): void {
  if (pool.length < POOL_MAX) pool.push(buffer);
}
