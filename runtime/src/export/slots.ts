import { ApiError } from '../errors/api-error.js';

/** Seconds a client refused with 503 EXPORT_BUSY is asked to wait (Retry-After). */
export const EXPORT_RETRY_AFTER_S = 5;

/**
 * The export slots of one server (`maxConcurrentExports`): an export holds
 * one from before its count until its last byte is written or its client
 * leaves. Taking one when all are held is 503 EXPORT_BUSY with Retry-After.
 *
 * @example
 * const release = slots.take();
 * ctx.afterResponse(release);
 */
export class ExportSlots {
  private held = 0;

  constructor(readonly max: number) {}

  /** Exports running now. */
  get inUse(): number {
    return this.held;
  }

  /** Takes a slot; the function returned gives it back (once, however often it is called). */
  take(): () => void {
    if (this.held >= this.max) {
      throw new ApiError('EXPORT_BUSY', undefined, undefined, { 'Retry-After': String(EXPORT_RETRY_AFTER_S) });
    }
    this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
    };
  }
}
