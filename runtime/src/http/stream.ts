import { type IncomingMessage, OutgoingMessage, type ServerResponse } from 'node:http';
import type { CancelSignal } from '../db/adapter.js';
import type { ResponseSource } from '../pipeline/context.js';
import { type PositionalRead, positionalReadOf, returnBuffer, takeBuffer } from './positional.js';

/** How piping a source ended. */
export type StreamOutcome =
  /** Every byte was handed to the socket (or headers only, for HEAD). */
  | { kind: 'sent' }
  /**
   * The request was cancelled (client gone, the deadline answered first, a
   * hook called ctx.abort): nothing more was written; a body under way was cut.
   */
  | { kind: 'stopped' }
  /** The source failed before its first byte: nothing was written, the caller answers an error. */
  | { kind: 'failed'; error: unknown }
  /** The source failed after the headers: the connection was destroyed so the client sees a truncated body. */
  | { kind: 'cut'; error: unknown };

/** What to send before the source's bytes. */
export interface StreamHead {
  status: number;
  headers: Record<string, string | number>;
  /** Announced byte length; the source must produce exactly this many bytes. */
  length?: number;
}

interface Chunks {
  next(): Promise<IteratorResult<unknown>>;
  /** Stops the source and frees what it holds (destroys a Readable, returns an iterator). */
  release(): void;
  /** The write callback of the chunk `next` gave last: it gives a pooled buffer back once the socket is done with it. */
  written?: () => () => void;
}

/**
 * Stops a response source and frees what it holds: destroys a Readable,
 * returns an iterator (an async generator runs its `finally`). Safe to call
 * on a source that has ended or was released already.
 *
 * @example
 * if (ctx.response?.kind === 'stream') releaseSource(ctx.response.source);
 */
export function releaseSource(source: ResponseSource, iterator?: AsyncIterator<unknown>): void {
  const destroy = (source as { destroy?: unknown }).destroy;
  if (typeof destroy === 'function') {
    (source as { destroy(): void }).destroy();
    return;
  }
  try {
    const it = iterator ?? (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    void Promise.resolve(it.return?.()).catch(() => {});
  } catch {
    // A source whose return() throws has nothing more to free.
  }
}

/**
 * The chunks of `source` as `res` gets them. A positional source goes
 * through pooled buffers only when `res` writes as node's own response does
 * (its write callback runs once the socket is done with the chunk); a
 * response whose `write` was replaced might keep a chunk past its callback.
 */
function chunksOf(source: ResponseSource, res: ServerResponse): Chunks {
  const positional = res.write === OutgoingMessage.prototype.write ? positionalReadOf(source) : undefined;
  if (positional) return pooledChunks(source, positional);
  const iterator = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  return { next: () => iterator.next(), release: () => releaseSource(source, iterator) };
}

const DONE: IteratorResult<unknown> = { done: true, value: undefined };

/** The chunks of a positional source, each read into a pooled buffer that goes back once written. */
function pooledChunks(source: ResponseSource, read: PositionalRead): Chunks {
  let position = read.start;
  let last: Buffer | null = null;
  return {
    async next() {
      const left = read.end - position;
      if (left <= 0) return DONE;
      const buffer = takeBuffer();
      const n = await read.read(buffer, Math.min(left, buffer.length), position);
      if (n <= 0) {
        returnBuffer(buffer);
        return DONE;
      }
      position += n;
      last = buffer;
      return { done: false, value: n === buffer.length ? buffer : buffer.subarray(0, n) };
    },
    release: () => releaseSource(source),
    written: () => {
      const buffer = last!;
      last = null;
      return () => returnBuffer(buffer);
    },
  };
}

function byteLengthOf(chunk: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk);
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  throw new TypeError(`a response stream yielded ${chunk === null ? 'null' : typeof chunk}; chunks must be Buffer, Uint8Array or string`);
}

const STOPPED = Symbol('stopped');

/** Resolves with STOPPED when the request is cancelled; `dispose` removes the listener. */
function whenStopped(cancel: CancelSignal): { promise: Promise<typeof STOPPED>; dispose(): void } {
  let onAbort: () => void = () => {};
  const promise = new Promise<typeof STOPPED>((resolve) => {
    onAbort = () => resolve(STOPPED);
    if (cancel.aborted) resolve(STOPPED);
    else cancel.addEventListener('abort', onAbort);
  });
  return { promise, dispose: () => cancel.removeEventListener('abort', onAbort) };
}

/** Resolves when `res` can take more bytes, or the request is cancelled. */
function drained(res: ServerResponse, stopped: Promise<typeof STOPPED>): Promise<unknown> {
  let onDrain: () => void = () => {};
  const drain = new Promise<void>((resolve) => {
    onDrain = resolve;
    res.once('drain', onDrain);
  });
  return Promise.race([drain, stopped]).finally(() => res.off('drain', onDrain));
}

/**
 * Ends the connection without finishing the body: the bytes written so far
 * still reach the client (they may sit corked in the socket), then the socket
 * closes, so a chunked body lacks its last chunk and a sized one its tail.
 */
function cut(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket || socket.destroyed) {
    res.destroy();
    return;
  }
  socket.end(() => socket.destroy());
}

/** Resolves once the last byte has left (`finish`) or the connection is gone (`close`). */
function settled(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      resolve();
    };
    res.once('finish', done);
    res.once('close', done);
  });
}

/**
 * Pipes `source` to the client with backpressure. The head is written with
 * the first chunk, so a source that fails before it leaves the response
 * untouched (`failed`); one that fails later, or produces a byte count other
 * than `head.length`, has the connection destroyed (`cut`). HEAD requests get
 * the head only. The source is released however it ends: a client that leaves
 * or a cancelled request stops it at once, even while it waits for its next
 * chunk.
 *
 * @example
 * const outcome = await pipeSource(req, res, createReadStream(path), { status: 200, headers, length: size }, ctx.cancel);
 */
export async function pipeSource(req: IncomingMessage, res: ServerResponse, source: ResponseSource, head: StreamHead, cancel: CancelSignal): Promise<StreamOutcome> {
  const chunks = chunksOf(source, res);
  const { length } = head;
  if (length !== undefined) head.headers['Content-Length'] = length;
  if (cancel.aborted) {
    chunks.release();
    return { kind: 'stopped' };
  }
  if (req.method === 'HEAD') {
    chunks.release();
    res.writeHead(head.status, head.headers);
    res.end();
    return { kind: 'sent' };
  }
  const stop = whenStopped(cancel);
  let started = false;
  let sent = 0;
  const stopped = (): StreamOutcome => {
    if (started) cut(res);
    return { kind: 'stopped' };
  };
  try {
    for (;;) {
      const step = await Promise.race([chunks.next(), stop.promise]);
      if (step === STOPPED || cancel.aborted) return stopped();
      if (step.done) break;
      const size = byteLengthOf(step.value);
      if (size === 0) continue;
      if (length !== undefined && sent + size > length) throw new Error(`the response stream produced more than the announced ${length} bytes`);
      if (!started) {
        res.writeHead(head.status, head.headers);
        started = true;
      }
      sent += size;
      if (!res.write(step.value as Uint8Array | string, chunks.written?.()) && (await drained(res, stop.promise)) === STOPPED) return stopped();
    }
    if (length !== undefined && sent !== length) throw new Error(`the response stream ended after ${sent} of the announced ${length} bytes`);
    if (!started) res.writeHead(head.status, head.headers);
    res.end();
    await settled(res);
    return { kind: 'sent' };
  } catch (error) {
    if (!started) return { kind: 'failed', error };
    cut(res);
    return { kind: 'cut', error };
  } finally {
    stop.dispose();
    chunks.release();
  }
}
