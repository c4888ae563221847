/**
 * Progress of a long command (mfx rotate-keys, mfx rollups backfill) on
 * stderr: a bar redrawn in place on a terminal, one line per step otherwise.
 *
 * @example
 * const progress = progressWriter(process.stderr);
 * progress.show('rotated 10/20 rows (Patient)', 10 / 20);
 * progress.end();
 */
export function progressWriter(stream: NodeJS.WriteStream): { show(text: string, fraction: number | null): void; end(): void } {
  let drawn = false;
  return {
    show(text, fraction) {
      if (!stream.isTTY) return void stream.write(`${text}\n`);
      const width = 30;
      const filled = fraction === null ? 0 : Math.round(Math.min(1, Math.max(0, fraction)) * width);
      stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}\x1b[K`);
      drawn = true;
    },
    end() {
      if (drawn) stream.write('\n');
    },
  };
}

/**
 * Ctrl-C (or SIGTERM) during a batched command: says so on stderr and lets
 * the command stop after the current batch; `release()` removes the handlers.
 *
 * @example
 * const signals = stopAfterBatch(process.stderr);
 * try { await run({ onProgress: () => !signals.interrupted }); } finally { signals.release(); }
 */
export function stopAfterBatch(stream: NodeJS.WriteStream): { readonly interrupted: boolean; release(): void } {
  let interrupted = false;
  const stop = () => {
    interrupted = true;
    stream.write('\nstopping after the current batch...\n');
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    get interrupted() {
      return interrupted;
    },
    release() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}
