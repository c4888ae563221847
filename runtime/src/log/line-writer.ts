import { fstatSync, write, writeSync } from 'node:fs';

/** A batch is written once its lines reach this many bytes (16 KiB, what Docker's log copier reads at once)... */
const BATCH_BYTES = 16 * 1024;
/** ...or this long after its first line, so `tail -f` shows a quiet server's lines at once. */
const FLUSH_AFTER_MS = 100;
/**
 * The bytes a batch's buffer holds: a batch under BATCH_BYTES has room for
 * any line of up to (CHUNK_BYTES - BATCH_BYTES) / 3 characters, so the
 * common line is encoded without measuring it first.
 */
const CHUNK_BYTES = 32 * 1024;
/** Buffers of written batches kept for the next ones (one being written, one filling, one waiting). */
const SPARE_CHUNKS = 2;
/** A full pipe (EAGAIN) is tried again after this long. */
const FULL_RETRY_MS = 50;
/** A synchronous flush waits for a full pipe this many times (FULL_RETRY_MS each) before giving up on the rest. */
const FULL_SYNC_ATTEMPTS = 20;

export interface LineWriterOptions {
  /** Called once when the reader of the output has gone (EPIPE, or `close()`); the lines after it are dropped. */
  onClosed?: () => void;
}

/**
 * Log lines to a file descriptor, batched: each line is encoded as UTF-8
 * into the batch's buffer as it comes, and a batch is written (one
 * asynchronous write at a time) once it reaches 16 KiB or 100 ms after its
 * first line. A line's text is garbage at once: keeping lines as strings
 * until a batch was joined made young-generation collections copy them, and
 * joining and encoding the batch cost as much again. Written buffers are
 * reused. `flushSync()` writes what is left before the process ends,
 * `settle()` without blocking.
 *
 * A write that fails with EAGAIN (a full non-blocking pipe) is tried again;
 * EPIPE (the reader has gone) closes the writer and drops every line after
 * it; any other failure drops the batch it was writing (there is nowhere
 * left to say so).
 *
 * @example
 * const out = new LineWriter(1, { onClosed: () => stop() });
 * out.write('{"msg":"listening"}\n');
 * process.once('exit', () => out.flushSync());
 */
export class LineWriter {
  /** The batch being filled, and how many of its bytes hold lines. */
  private chunk: Buffer | null = null;
  private used = 0;
  private readonly spare: Buffer[] = [];
  /** Batches waiting for the one being written, oldest first. */
  private readonly queued: Buffer[] = [];
  /** The batch an asynchronous write has (what is left of it), null while none is written. */
  private inFlight: Buffer | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private settled: Array<() => void> = [];

  /**
   * A regular file takes a write at once (into the page cache): its batches
   * are written in the call, as node writes process.stdout to a file,
   * without a thread-pool round trip (two thread wake-ups) per batch.
   */
  private readonly toFile: boolean;

  constructor(
    private readonly fd: number,
    private readonly options: LineWriterOptions = {},
  ) {
    this.toFile = isRegularFile(fd);
  }

  /** Adds one line (with its newline). */
  write(line: string): void {
    if (this.closed) return;
    if (this.chunk === null) this.chunk = this.spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
    // A character is at most three bytes of UTF-8: only a long line is measured.
    if (line.length * 3 > CHUNK_BYTES - this.used && !this.room(line)) return;
    this.used += this.chunk!.write(line, this.used);
    if (this.used >= BATCH_BYTES) this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(this.flushLater, FLUSH_AFTER_MS);
      this.timer.unref();
    }
  }

  /** Starts writing the lines added so far (writes them, to a file). */
  flush(): void {
    if (this.toFile) return this.flushSync();
    this.batch();
    if (this.inFlight === null) this.writeNext();
  }

  /** Resolves once the lines added so far are written (or dropped: the reader has gone). */
  settle(): Promise<void> {
    this.flush();
    if (this.inFlight === null) return Promise.resolve();
    return new Promise((resolve) => this.settled.push(resolve));
  }

  /**
   * Writes every line not written yet, now, blocking: before the process
   * ends. A batch already handed to an asynchronous write is left to it.
   */
  flushSync(): void {
    this.batch();
    let fullTries = 0;
    while (!this.closed && this.queued.length > 0) {
      const next = this.queued[0];
      try {
        const written = writeSync(this.fd, next);
        if (written < next.length) this.queued[0] = next.subarray(written);
        else this.recycle(this.queued.shift()!);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' && ++fullTries <= FULL_SYNC_ATTEMPTS) sleep(FULL_RETRY_MS);
        else if (code === 'EPIPE') this.close();
        else this.queued.shift();
      }
    }
  }

  /** The reader has gone (seen here or by another writer of the same output): every line from now on is dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.chunk = null;
    this.used = 0;
    this.spare.length = 0;
    this.queued.length = 0;
    this.resolveSettled();
    this.options.onClosed?.();
  }

  /**
   * Makes room for a long line in the batch being filled: true when it fits
   * there now; otherwise that batch is queued, and a line longer than a
   * whole buffer is queued as a batch of its own (false: it is added).
   */
  private room(line: string): boolean {
    const bytes = Buffer.byteLength(line);
    if (bytes <= CHUNK_BYTES - this.used) return true;
    this.flush();
    if (bytes <= CHUNK_BYTES) {
      this.chunk = this.spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
      return true;
    }
    this.queued.push(Buffer.from(line));
    this.flush();
    return false;
  }

  private readonly flushLater = (): void => {
    this.timer = null;
    this.flush();
  };

  /** Queues the lines added so far as a batch. */
  private batch(): void {
    if (this.used === 0) return;
    this.queued.push(this.chunk!.subarray(0, this.used));
    this.chunk = null;
    this.used = 0;
  }

  /** Hands the oldest queued batch to an asynchronous write; with none left, the lines so far are written. */
  private writeNext(): void {
    const next = this.closed ? undefined : this.queued.shift();
    if (next === undefined) {
      this.inFlight = null;
      this.resolveSettled();
      return;
    }
    this.writeAsync(next);
  }

  private writeAsync(batch: Buffer): void {
    this.inFlight = batch;
    write(this.fd, batch, 0, batch.length, null, this.written);
  }

  private readonly written = (error: NodeJS.ErrnoException | null, bytes: number): void => {
    const batch = this.inFlight!;
    if (error?.code === 'EAGAIN') {
      setTimeout(() => this.writeAsync(batch), FULL_RETRY_MS);
      return;
    }
    if (error?.code === 'EPIPE') this.close();
    if (!error && bytes < batch.length && !this.closed) return this.writeAsync(batch.subarray(bytes));
    this.recycle(batch);
    this.writeNext();
  };

  /** Keeps the buffer of a batch that is done with for a later batch (a long line's own buffer is left to the collector). */
  private recycle(batch: Buffer): void {
    if (this.closed || this.spare.length >= SPARE_CHUNKS || batch.buffer.byteLength !== CHUNK_BYTES) return;
    this.spare.push(Buffer.from(batch.buffer, 0, CHUNK_BYTES));
  }

  private resolveSettled(): void {
    if (this.settled.length === 0) return;
    const waiting = this.settled;
    this.settled = [];
    for (const resolve of waiting) resolve();
  }
}

function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/** Blocks the thread for `ms` (a full pipe at exit, where nothing asynchronous runs any more). */
function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
