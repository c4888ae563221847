/**
 * What every mfx command does with its process: a closed output pipe ends it
 * quietly (`mfx openapi | head -1`), SIGINT and SIGTERM end a long-running
 * one, and watchers tell it when files change. Nothing here imports more
 * than Node, so `mfx build` can use it too.
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

type Closable = NodeJS.WriteStream | { on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown };

/**
 * Ends the command when a reader of its output goes away (EPIPE on stdout
 * or stderr): `onClosed` runs once, by default exiting with status 0 and
 * nothing more written. Unix tools end that way when `head` has read
 * enough. Any other write error stays fatal. `streams` adds outputs that
 * write to the same descriptors on their own (a logger's destination).
 *
 * @example
 * endOnClosedPipe(); // first thing in a command's main
 */
export function endOnClosedPipe(onClosed: () => void = () => process.exit(0), streams: Closable[] = []): void {
  let ended = false;
  const listener = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (ended) return;
    ended = true;
    onClosed();
  };
  for (const stream of [process.stdout, process.stderr, ...streams]) stream.on('error', listener);
}

/**
 * Resolves with the first of SIGINT or SIGTERM, for a command that runs
 * until stopped (`mfx build --watch`); the handlers are removed then.
 *
 * @example
 * await untilSignal(); // Ctrl-C
 */
export function untilSignal(signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      for (const name of signals) process.off(name, handler);
      resolve(signal);
    };
    for (const name of signals) process.on(name, handler);
  });
}

export interface FileWatcher {
  /** Watches these files from now on (and no others). */
  watch(files: Iterable<string>): void;
  close(): void;
}

export interface WatchOptions {
  /** Quiet time after the last event before `onChange` runs, so one save (or one build writing files) is one change. */
  debounceMs?: number;
  /** Also counts a change of any file in the watched directories that this accepts (a file just created, say). */
  alsoAccept?: (file: string) => boolean;
}

/**
 * Calls `onChange` with the changed files once they have settled. Watches
 * the directories of the files rather than the files, so an editor that
 * saves by writing a new file and renaming it over the old one (or a
 * writer that does, like `mfx build`) is seen, and a file that does not
 * exist yet is seen once created. Calls never overlap: changes during a
 * call are reported after it.
 *
 * @example
 * const watcher = watchFiles((files) => rebuild(files));
 * watcher.watch(['src/models.ts', 'tsconfig.json']);
 */
export function watchFiles(onChange: (files: string[]) => void | Promise<void>, options: WatchOptions = {}): FileWatcher {
  const debounceMs = options.debounceMs ?? 100;
  const directories = new Map<string, FSWatcher>();
  let files = new Set<string>();
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let closed = false;

  const flush = async () => {
    timer = null;
    if (running || closed) return;
    running = true;
    const batch = [...changed].sort();
    changed.clear();
    try {
      await onChange(batch);
    } finally {
      running = false;
      if (changed.size > 0 && !closed) schedule();
    }
  };
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void flush(), debounceMs);
  };
  const seen = (directory: string, name: string | null) => {
    if (!name) return;
    const file = resolve(directory, name);
    if (!files.has(file) && !options.alsoAccept?.(file)) return;
    changed.add(file);
    if (!running) schedule();
  };

  return {
    watch(list) {
      files = new Set([...list].map((file) => resolve(file)));
      const wanted = new Set([...files].map((file) => dirname(file)));
      for (const [directory, watcher] of directories) {
        if (wanted.has(directory)) continue;
        watcher.close();
        directories.delete(directory);
      }
      for (const directory of wanted) {
        if (directories.has(directory) || closed) continue;
        let watcher: FSWatcher;
        try {
          watcher = watch(directory, { persistent: true }, (_event, name) => seen(directory, name === null ? null : basename(name.toString())));
        } catch {
          // A directory that does not exist (yet) cannot be watched; the next watch() call tries again.
          continue;
        }
        // The directory went away: its files count as changed, and the next watch() call watches it again.
        watcher.on('error', () => {
          watcher.close();
          directories.delete(directory);
          for (const file of files) if (dirname(file) === directory) changed.add(file);
          if (!running) schedule();
        });
        directories.set(directory, watcher);
      }
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const watcher of directories.values()) watcher.close();
      directories.clear();
    },
  };
}
