// Starts a server in a child process and waits until it prints its URL.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export interface Child {
  url: string;
  stop(): Promise<void>;
}

/** Spawns `node --import tsx <args>`; resolves once a line matches `ready` (its first group is the base URL). */
export async function startChild(args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<Child> {
  // The server gets CPU 0 and the load generator (this process) CPU 1, so the two never
  // fight over a core and the comparison measures the servers, not the scheduler.
  const pinned = existsSync('/usr/bin/taskset') && availableParallelism() >= 2 && process.env.BENCH_NO_PIN !== '1';
  const command = pinned ? '/usr/bin/taskset' : process.execPath;
  const prefix = pinned ? ['-c', '0', process.execPath] : [];
  const child: ChildProcess = spawn(command, [...prefix, '--import', 'tsx', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve(match[1]);
      if (output.length > 100_000) output = output.slice(-10_000);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  // Keep draining output so the child never blocks on a full pipe.
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
