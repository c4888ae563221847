import type { CancelSignal } from './adapter.js';

/**
 * A FIFO lock for the single SQLite write connection.
 *
 * better-sqlite3 runs each statement synchronously, so single statements are
 * already atomic; the lock is held only while an asynchronous transaction is
 * open, so other requests' statements do not slip into it.
 */
export class WriteLock {
  private held = false;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly waitTimeoutMs: number) {}

  get locked(): boolean {
    return this.held;
  }

  /** Takes the lock when nobody holds it (true), without waiting: false when it is held. */
  tryAcquire(): boolean {
    if (this.held) return false;
    this.held = true;
    return true;
  }

  /** Waits for the lock (FIFO); gives up on abort or after the wait timeout. */
  async acquire(signal?: CancelSignal): Promise<void> {
    if (!this.held) {
      this.held = true;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        cleanup();
        resolve();
      };
      const fail = (error: Error) => {
        const index = this.waiters.indexOf(grant);
        if (index !== -1) this.waiters.splice(index, 1);
        cleanup();
        reject(error);
      };
      const timer = setTimeout(
        () =>
          fail(
            new Error(
              `mfx: waited ${this.waitTimeoutMs} ms for the SQLite write lock; a transaction stayed open that long (a hook that uses the adapter instead of ctx.db inside a transaction waits for itself)`,
            ),
          ),
        this.waitTimeoutMs,
      );
      const onAbort = () => fail(signal!.reason instanceof Error ? (signal!.reason as Error) : new Error('aborted'));
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }

  /** Resolves when nobody holds the lock (without taking it). */
  async idle(signal?: CancelSignal): Promise<void> {
    if (!this.held) return;
    await this.acquire(signal);
    this.release();
  }
}
