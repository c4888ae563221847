// Starts the servers the suites measure, each in a child process of its own,
// compiled and under plain node as a user runs them in production: mfx from
// `compiler/dist/bin.js` (after `tsc -b`), the hand-written peers of
// bench/baselines/ transpiled once to JavaScript (bench/.generated/baselines).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '../..');
const generated = join(root, 'bench/.generated/baselines');

export interface Child {
  url: string;
  /** The server's process id (taskset execs node in place), for /proc. */
  pid: number;
  /** Where the server's output went (its access log, for one); removed by `stop()` unless BENCH_KEEP_LOGS=1. */
  logFile: string;
  stop(): Promise<void>;
}

/** Whether servers go on CPU 0 and the load generator on CPU 1 (bench/run.mjs pins itself). */
export const pinned = existsSync('/usr/bin/taskset') && availableParallelism() >= 2 && process.env.BENCH_NO_PIN !== '1';

/**
 * Spawns `node <args>`; resolves once its output matches `ready` (the first
 * group is the base URL). Output goes to a file, as it would to a log
 * shipper: a pipe drained by this process (which runs the load generator)
 * would back up and bill the server for it.
 */
export async function startChild(args: string[], ready: RegExp): Promise<Child> {
  const logDir = mkdtempSync(join(tmpdir(), 'mfx-bench-log-'));
  const logFile = join(logDir, 'server.log');
  // An access log of a measured run is tens of MB.
  const removeLog = () => {
    if (process.env.BENCH_KEEP_LOGS !== '1') rmSync(logDir, { recursive: true, force: true });
  };
  const fd = openSync(logFile, 'w');
  // The server gets CPU 0 and the load generator (this process) CPU 1, so the two never
  // fight over a core and the comparison measures the servers, not the scheduler.
  const command = pinned ? '/usr/bin/taskset' : process.execPath;
  const prefix = pinned ? ['-c', '0', process.execPath] : [];
  const child = spawn(command, [...prefix, ...args], { cwd: root, stdio: ['ignore', fd, fd] });
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
        pid: child.pid!,
        logFile,
        stop: () =>
          new Promise<void>((resolve) => {
            if (exited !== undefined) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }).then(removeLog),
      };
    }
    if (exited !== undefined) throw new Error(`server exited with ${exited}:\n${output.slice(-5000)}`);
    if (Date.now() - started > 60_000) throw new Error(`server did not start within 60 s:\n${output.slice(-5000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let built = false;

/** `tsc -b` of the packages (incremental: about a second when nothing changed) and the peers transpiled, once per run. */
export function buildServers(): void {
  if (built) return;
  const result = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('tsc -b failed: the bench runs the compiled mfx');
  mkdirSync(generated, { recursive: true });
  const sources = join(root, 'bench/baselines');
  for (const file of readdirSync(sources).filter((f) => f.endsWith('.ts'))) {
    const { outputText } = ts.transpileModule(readFileSync(join(sources, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      fileName: file,
    });
    writeFileSync(join(generated, file.replace(/\.ts$/, '.js')), outputText);
  }
  built = true;
}

/** Whether mfx runs with its access log (the default, as a user runs it); `BENCH_MFX_LOG=off` runs it with `--log-level warn`. */
export const mfxAccessLog = process.env.BENCH_MFX_LOG !== 'off';

/**
 * The node flags mfx is measured with: what docs/deployment.md (Memory) has a
 * deployment set and a scaffolded project's `npm start` passes. BENCH_MFX_NODE_FLAGS
 * replaces them (empty: V8's defaults). The peers run with V8's defaults.
 */
export const mfxNodeFlags = (process.env.BENCH_MFX_NODE_FLAGS ?? '--max-semi-space-size=2').split(' ').filter(Boolean);

/** The compiled `mfx serve` of a manifest on one database (no document route), access log as `mfxAccessLog` says, under `mfxNodeFlags` and `nodeFlags` (`--cpu-prof`); `extra` flags of mfx serve after its own (`--files DIR`). */
export function startMfx(manifestDir: string, db: string, nodeFlags: string[] = [], extra: string[] = []): Promise<Child> {
  buildServers();
  const quiet = mfxAccessLog ? [] : ['--log-level', 'warn'];
  return startChild([...mfxNodeFlags, ...nodeFlags, join(root, 'compiler/dist/bin.js'), 'serve', '--manifest', manifestDir, '--db', db, '--port', '0', '--no-docs', ...quiet, ...extra], /mfx serving (http:\/\/\S+)/);
}

/** A hand-written peer of bench/baselines/ (`raw`: node:http, `fastify`, or a suite's own such as `analytics-raw`) on one database (`sqlite:FILE` or a postgres:// URL), under node's defaults and `nodeFlags` (bench/perf.ts's). */
export function startPeer(name: string, db: string, nodeFlags: string[] = []): Promise<Child> {
  buildServers();
  return startChild([...nodeFlags, join(generated, `${name}.js`), '--db', db, '--port', '0'], new RegExp(`${name} serving (http://\\S+)`));
}

/** The hand-written server `bench/baselines/<name>.ts` with its own flags; it prints `<name> serving <url>`. */
export function startBaseline(name: string, args: string[]): Promise<Child> {
  buildServers();
  return startChild([join(generated, `${name}.js`), ...args, '--port', '0'], new RegExp(`${name} serving (http://\\S+)`));
}
