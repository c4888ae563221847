import { write, writeSync } from 'node:fs';

/** A batch is written once its lines reach this many characters (16 KiB, what Docker's log copier reads at once; longer batches keep lines alive past young-generation collections)... */
const BATCH_CHARS = 16 * 1024;
/** ...or this long after its first line, so `tail -f` shows a quiet server's lines at once. */
const FLUSH_AFTER_MS = 100;
/** A full pipe (EAGAIN) is tried again after this long. */
const FULL_RETRY_MS = 50;
/** A synchronous flush waits for a full pipe this many times (FULL_RETRY_MS each) before giving up on the rest. */
const FULL_SYNC_ATTEMPTS = 20;

export interface LineWriterOptions {
  /** Called once when the reader of the output has gone (EPIPE, or `close()`); the lines after it are dropped. */
  onClosed?: () => void;
}

/**
 * Log lines to a file descriptor, batched: a line is added to an array, and
 * the lines are joined and written (one asynchronous write at a time) once
 * they reach 16 KiB or 100 ms after the first of them. A line costs an
 * array push; sonic-boom, which pino writes with, measured the byte length
 * of its whole pending buffer on every line. `flushSync()` writes what is
 * left before the process ends, `settle()` without blocking.
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
  private lines: string[] = [];
  private chars = 0;
  /** Batches waiting for the one being written, oldest first. */
  private readonly queued: Array<string | Buffer> = [];
  /** The batch an asynchronous write has (what is left of it), null while none is written. */
  private inFlight: string | Buffer | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private settled: Array<() => void> = [];

  constructor(
    private readonly fd: number,
    private readonly options: LineWriterOptions = {},
  ) {}

  /** Adds one line (with its newline). */
  write(line: string): void {
    if (this.closed) return;
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= BATCH_CHARS) this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(this.flushLater, FLUSH_AFTER_MS);
      this.timer.unref();
    }
  }

  /** Starts writing the lines added so far. */
  flush(): void {
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
        const rest = unwritten(next, typeof next === 'string' ? writeSync(this.fd, next) : writeSync(this.fd, next));
        if (rest === null) this.queued.shift();
        else this.queued[0] = rest;
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
    this.lines = [];
    this.chars = 0;
    this.queued.length = 0;
    this.resolveSettled();
    this.options.onClosed?.();
  }

  private readonly flushLater = (): void => {
    this.timer = null;
    this.flush();
  };

  /** Joins the lines added so far into a batch at the end of the queue. */
  private batch(): void {
    if (this.lines.length === 0) return;
    this.queued.push(this.lines.length === 1 ? this.lines[0] : this.lines.join(''));
    this.lines = [];
    this.chars = 0;
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

  private writeAsync(batch: string | Buffer): void {
    this.inFlight = batch;
    if (typeof batch === 'string') write(this.fd, batch, null, 'utf8', this.written);
    else write(this.fd, batch, 0, batch.length, null, this.written);
  }

  private readonly written = (error: NodeJS.ErrnoException | null, bytes: number): void => {
    const batch = this.inFlight!;
    if (error?.code === 'EAGAIN') {
      setTimeout(() => this.writeAsync(batch), FULL_RETRY_MS);
      return;
    }
    if (error?.code === 'EPIPE') this.close();
    const rest = error ? null : unwritten(batch, bytes);
    if (rest !== null && !this.closed) this.writeAsync(rest);
    else this.writeNext();
  };

  private resolveSettled(): void {
    if (this.settled.length === 0) return;
    const waiting = this.settled;
    this.settled = [];
    for (const resolve of waiting) resolve();
  }
}

/** What a write of `bytes` bytes left of a batch: null when all of it went out. */
function unwritten(batch: string | Buffer, bytes: number): Buffer | null {
  const buffer = typeof batch === 'string' ? (bytes === Buffer.byteLength(batch) ? null : Buffer.from(batch)) : batch;
  return buffer === null || bytes >= buffer.length ? null : buffer.subarray(bytes);
}

/** Blocks the thread for `ms` (a full pipe at exit, where nothing asynchronous runs any more). */
function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
