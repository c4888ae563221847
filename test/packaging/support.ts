// Helpers of the tests of the built packages: the build itself, and an app
// directory outside the repository whose node_modules holds a copy of a built
// package with only the packages a user would install beside it.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { once } from 'node:events';

export const root = resolve(import.meta.dirname, '../..');

/** The repository's own TypeScript compiler. */
export const tsc = join(root, 'node_modules/typescript/bin/tsc');

/** A finished child process. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node args...` under plain node: no loader, no flags, the parent's environment plus `env`. */
export function node(args: string[], options: { cwd: string; env?: Record<string, string> }): Ran {
  const run = spawnSync(process.execPath, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * `tsc -b`: builds every package into its dist/ (incremental: nothing to do
 * when `npm test` built them first, as it does for test/packaging/).
 */
export function buildPackages(): void {
  const built = node([tsc, '-b', 'tsconfig.build.json'], { cwd: root });
  if (built.code !== 0) throw new Error(`tsc -b failed:\n${built.stdout}${built.stderr}`);
}

/** A package of this repository as it ships, without its sources: package.json and dist/. */
function copyPackage(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  cpSync(join(from, 'package.json'), join(to, 'package.json'));
  cpSync(join(from, 'dist'), join(to, 'dist'), { recursive: true, filter: (path) => !path.endsWith('.tsbuildinfo') });
}

export interface AppDir {
  dir: string;
  path(...parts: string[]): string;
  remove(): void;
}

const dependenciesOf = (pkg: string) => Object.keys((JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies);

/**
 * A directory outside the repository with `files` copied into it and a
 * node_modules that holds: a copy of built @mfx/runtime (so it resolves its
 * own imports from there, as an installed package does), links to its
 * dependencies and to `extra` packages (a driver, say) from the repository's
 * node_modules, and @types/node. Nothing else: no other @types, no driver
 * that is not named. With `compiler`, a copy of built @mfx/compiler too (the
 * `mfx` command) and its dependencies, except tsx unless `extra` names it.
 */
export function appDir(files: string, extra: readonly string[] = [], options: { compiler?: boolean } = {}): AppDir {
  const dir = mkdtempSync(join(tmpdir(), 'mfx-app-'));
  cpSync(files, dir, { recursive: true });
  const modules = join(dir, 'node_modules');
  copyPackage(join(root, 'runtime'), join(modules, '@mfx/runtime'));
  const linked = new Set([...dependenciesOf('runtime'), ...extra, '@types/node']);
  if (options.compiler) {
    copyPackage(join(root, 'compiler'), join(modules, '@mfx/compiler'));
    for (const name of dependenciesOf('compiler')) if (!name.startsWith('@mfx/') && name !== 'tsx') linked.add(name);
  }
  for (const name of linked) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
  }
  return { dir, path: (...parts) => join(dir, ...parts), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A started `node FILE`, with the base URL it printed. */
export interface Started {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `node args...` under plain node and waits for the line matching
 * `ready` (its first group is the URL); rejects with the output when the
 * process exits first.
 */
export async function startNode(args: string[], options: { cwd: string; env?: Record<string, string>; ready: RegExp }): Promise<Started> {
  const file = args.join(' ');
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = options.ready.exec(output);
      if (match?.[1]) resolveUrl(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready:\n${output}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
