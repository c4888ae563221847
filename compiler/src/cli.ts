/**
 * `mfx build ENTRY.ts... [--project tsconfig.json] [--out DIR] [--strict] [--watch]`
 */
import { relative, resolve } from 'node:path';
import { endOnClosedPipe, untilSignal, watchFiles } from '@mfx/runtime/cli';
import { build, type BuildResult } from './index.js';
import { formatDiagnostic } from './format.js';

const USAGE = `usage: mfx build ENTRY.ts... [--project tsconfig.json] [--out DIR] [--strict] [--watch]

  Compiles the models reachable from the entry files into DIR (default .mfx):
  manifest.json and validators.js. Prints every diagnostic as
  file:line:col: error|warning: message, and exits non-zero on any error.

  --project, -p   tsconfig.json supplying compiler options (default: nearest above the first entry)
  --out, -o       output directory (default .mfx)
  --strict        warnings are errors: a misspelt directive fails the build, nothing is written
  --watch, -w     build again whenever a file the models come from (or the tsconfig.json) changes,
                  printing each build's diagnostics and result; Ctrl-C (or SIGTERM) stops, exit 0
`;

interface Arguments {
  entries: string[];
  project?: string;
  out?: string;
  strict: boolean;
  watch: boolean;
  help: boolean;
}

/** Parse `build` arguments; throws a message on a usage error. */
export function parseArguments(argv: string[]): Arguments {
  const parsed: Arguments = { entries: [], strict: false, watch: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '') throw new Error(`${flag} needs a value`);
      return next;
    };
    if (flag === '--help' || flag === '-h') parsed.help = true;
    else if (flag === '--project' || flag === '-p') parsed.project = value();
    else if (flag === '--out' || flag === '-o') parsed.out = value();
    else if (flag === '--strict') {
      if (inline !== undefined) throw new Error('--strict takes no value');
      parsed.strict = true;
    } else if (flag === '--watch' || flag === '-w') {
      if (inline !== undefined) throw new Error('--watch takes no value');
      parsed.watch = true;
    }
    else if (flag.startsWith('-')) throw new Error(`unknown option ${flag}`);
    else parsed.entries.push(arg);
  }
  return parsed;
}

/**
 * Run `mfx build` with the arguments after `build`; resolves to the exit code.
 *
 * @example await main(['fixtures/blog/models.ts', '--out', 'fixtures/blog/.mfx']) // 0
 */
export async function main(argv: string[]): Promise<number> {
  endOnClosedPipe();
  let args: Arguments;
  try {
    args = parseArguments(argv);
  } catch (error) {
    process.stderr.write(`mfx build: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.entries.length === 0) {
    process.stderr.write(`mfx build: name at least one entry file\n\n${USAGE}`);
    return 2;
  }
  const cwd = process.cwd();
  if (args.watch) return watch(args, cwd);
  return buildOnce(args, cwd).ok ? 0 : 1;
}

/** One build: its diagnostics on stderr, its result on stdout. */
function buildOnce(args: Arguments, cwd: string): BuildResult {
  const result = build({ entries: args.entries, project: args.project, outDir: args.out, cwd, strict: args.strict });
  for (const diagnostic of result.diagnostics) process.stderr.write(`${formatDiagnostic(diagnostic, cwd)}\n`);
  if (!result.ok) {
    const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
    process.stderr.write(`mfx build: ${errors} error${errors === 1 ? '' : 's'}${args.strict ? ' (--strict: warnings count as errors)' : ''}, nothing written\n`);
    return result;
  }
  const count = result.manifest!.models.length;
  process.stdout.write(`mfx build: ${count} model${count === 1 ? '' : 's'} → ${relative(cwd, result.outDir) || '.'}\n`);
  return result;
}

const SOURCE_FILE = /\.(ts|mts|cts|tsx|json)$/;

/**
 * `--watch`: builds, then builds again (debounced) whenever one of the files
 * the last build read changes. After a failed build any TypeScript or JSON
 * file appearing beside them counts too (the import that was missing).
 * Runs until SIGINT or SIGTERM, then exits 0.
 */
async function watch(args: Arguments, cwd: string): Promise<number> {
  const shown = (file: string) => relative(cwd, file) || file;
  let failed = false;
  const attempt = (): string[] => {
    try {
      const result = buildOnce(args, cwd);
      failed = !result.ok;
      return result.inputs;
    } catch (error) {
      // A crash of one build is reported like a failed build; the next change tries again.
      process.stderr.write(`mfx build: the build failed: ${(error as Error)?.stack ?? String(error)}\n`);
      failed = true;
      return [...args.entries, ...(args.project ? [args.project] : [])].map((file) => resolve(cwd, file));
    }
  };
  let inputs = attempt();
  const watcher = watchFiles(
    (files) => {
      process.stdout.write(`mfx build: ${files.map(shown).join(', ')} changed, building again\n`);
      inputs = attempt();
      watcher.watch(inputs);
    },
    { alsoAccept: (file) => failed && SOURCE_FILE.test(file) },
  );
  watcher.watch(inputs);
  process.stdout.write(`mfx build: watching ${inputs.length} file${inputs.length === 1 ? '' : 's'} for changes (Ctrl-C stops)\n`);
  await untilSignal();
  watcher.close();
  return 0;
}
