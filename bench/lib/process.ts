// Starts a server in a child process and waits until it prints its URL.
import { type ChildProcess, spawn } from 'node:child_process';

export interface Child {
  url: string;
  stop(): Promise<void>;
}

/** Spawns `node --import tsx <args>`; resolves once a line matches `ready` (its first group is the base URL). */
export async function startChild(args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<Child> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ...args], {
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
