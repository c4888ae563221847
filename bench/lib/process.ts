// Starts a server in a child process and waits until it prints its URL.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Child {
  url: string;
  /** Where the server's output went (its access log, for one). */
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Spawns `node --conditions=mfx-source --import tsx <args>` (from the sources: scripts/sources.mjs); resolves once its output matches `ready`
 * (the first group is the base URL). Output goes to a file, as it would to a
 * log shipper: a pipe drained by this process (which runs the load generator)
 * would back up and bill the server for it.
 */
export async function startChild(args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<Child> {
  const logFile = join(mkdtempSync(join(tmpdir(), 'mfx-bench-log-')), 'server.log');
  const fd = openSync(logFile, 'w');
  // The server gets CPU 0 and the load generator (this process) CPU 1, so the two never
  // fight over a core and the comparison measures the servers, not the scheduler.
  const pinned = existsSync('/usr/bin/taskset') && availableParallelism() >= 2 && process.env.BENCH_NO_PIN !== '1';
  const command = pinned ? '/usr/bin/taskset' : process.execPath;
  const prefix = pinned ? ['-c', '0', process.execPath] : [];
  const child = spawn(command, [...prefix, '--conditions=mfx-source', '--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const started = Date.now();
  for (;;) {
    const output = readFileSync(logFile, 'utf8');
    const match = ready.exec(output);
    if (match) {
      return {
        url: match[1],
        logFile,
        stop: () =>
          new Promise((resolve) => {
            if (exited !== undefined) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      };
    }
    if (exited !== undefined) throw new Error(`server exited with ${exited}:\n${output.slice(-5000)}`);
    if (Date.now() - started > 60_000) throw new Error(`server did not start within 60 s:\n${output.slice(-5000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const root = join(import.meta.dirname, '../..');

/** `mfx serve` of a compiled manifest on one database, as the bench runs it (no document route). */
export function startMfx(manifestDir: string, db: string): Promise<Child> {
  return startChild([join(root, 'bin/mfx.mjs'), 'serve', '--manifest', manifestDir, '--db', db, '--port', '0', '--no-docs'], /mfx serving (http:\/\/\S+)/);
}

/** A hand-written baseline of bench/baselines/ on one database. */
export function startBaseline(name: string, db: string): Promise<Child> {
  return startChild([join(root, 'bench/baselines', `${name}.ts`), '--db', db, '--port', '0'], /baseline serving (http:\/\/\S+)/);
}
