/**
 * The `mfx` command line: `build` is the compiler's own command; `serve`,
 * `migrate`, `openapi`, `diff`, `rotate-keys` and `rollups` come from `@mfx/runtime/cli`. Each command loads
 * only when it runs, and TypeScript support (tsx) only when `--app` names a
 * TypeScript file: a compiled app under plain `node` never loads it.
 */
import { createRequire } from 'node:module';
import type { Command, readCommandLine } from '@mfx/runtime/cli';
import { compilerInfo } from './version.js';

export interface RunOptions {
  /**
   * Makes `.ts` files importable; called before a command whose `--app` is
   * a TypeScript file. Default: registers tsx.
   */
  loadTypeScript?: () => void | Promise<void>;
}

const BUILD_SUMMARY = 'build ENTRY.ts... [--project tsconfig.json] [--out DIR] [--strict] [--watch]   compile models into a manifest';
const TYPESCRIPT_FILE = /\.(ts|mts|cts|tsx)$/;

/** `@mfx/compiler X` and `@mfx/runtime Y`, one per line. */
export function versions(): string {
  const compiler = compilerInfo();
  const runtime = createRequire(import.meta.url)('@mfx/runtime/package.json') as { name: string; version: string };
  return `${compiler.name} ${compiler.version}\n${runtime.name} ${runtime.version}\n`;
}

async function registerTsx(): Promise<void> {
  const { register } = await import('tsx/esm/api');
  register();
}

/**
 * Run `mfx` with the arguments after the command name; resolves to the exit code
 * (`mfx serve` never resolves: it serves until a signal ends the process).
 *
 * @example process.exitCode = await run(process.argv.slice(2));
 */
export async function run(argv: string[], options: RunOptions = {}): Promise<number> {
  const [command, ...args] = argv;
  if (command === '--version' || command === '-v') {
    (await import('@mfx/runtime/cli')).endOnClosedPipe();
    process.stdout.write(versions());
    return 0;
  }
  try {
    if (command === 'build') return await (await import('./cli.js')).main(args);
    const runtime = await import('@mfx/runtime/cli');
    if (command === undefined || !Object.hasOwn(runtime.runtimeCommands, command)) {
      const help = command === undefined || command === '--help' || command === '-h';
      // A reader that went away (`mfx --help | head -1`) ends it quietly, as it does every command.
      runtime.endOnClosedPipe();
      const lines = [BUILD_SUMMARY, ...runtime.commandSummaries()];
      const text = `usage: mfx <command> [options]\n\ncommands:\n${lines.map((l) => `  ${l}`).join('\n')}\n\nmfx <command> --help describes its flags and environment.\nmfx --version prints the versions of @mfx/compiler and @mfx/runtime.\n`;
      (help ? process.stdout : process.stderr).write(command === undefined || help ? text : `mfx: unknown command "${command}"\n\n${text}`);
      return command === undefined || help ? 0 : 2;
    }
    const name = command as Command;
    if (TYPESCRIPT_FILE.test(appOf(runtime.readCommandLine, name, args) ?? '')) await (options.loadTypeScript ?? registerTsx)();
    return await (await runtime.runtimeCommands[name]()).main(args);
  } catch (error) {
    // Configuration and usage mistakes read best as one line; anything else keeps its stack.
    const known = error instanceof Error && ['ConfigError', 'RegistrationClosedError'].includes(error.name);
    const usageError = error instanceof Error && /^mfx [\w-]+: /.test(error.message);
    process.stderr.write(`${known || usageError ? (error as Error).message : ((error as Error)?.stack ?? String(error))}\n`);
    return 1;
  }
}

/** The `--app` file a command line names, if it parses (the command itself reports one that does not). */
function appOf(read: typeof readCommandLine, command: Command, argv: string[]): string | undefined {
  try {
    return read(command, argv).options.app;
  } catch {
    return undefined;
  }
}
