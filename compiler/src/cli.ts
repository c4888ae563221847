/**
 * `mfx build ENTRY.ts... [--project tsconfig.json] [--out DIR] [--strict]`
 */
import { relative } from 'node:path';
import { build } from './index.js';
import { formatDiagnostic } from './format.js';

const USAGE = `usage: mfx build ENTRY.ts... [--project tsconfig.json] [--out DIR] [--strict]

  Compiles the models reachable from the entry files into DIR (default .mfx):
  manifest.json and validators.js. Prints every diagnostic as
  file:line:col: error|warning: message, and exits non-zero on any error.

  --project, -p   tsconfig.json supplying compiler options (default: nearest above the first entry)
  --out, -o       output directory (default .mfx)
  --strict        warnings are errors: a misspelt directive fails the build, nothing is written
`;

interface Arguments {
  entries: string[];
  project?: string;
  out?: string;
  strict: boolean;
  help: boolean;
}

/** Parse `build` arguments; throws a message on a usage error. */
export function parseArguments(argv: string[]): Arguments {
  const parsed: Arguments = { entries: [], strict: false, help: false };
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
  const result = build({ entries: args.entries, project: args.project, outDir: args.out, cwd, strict: args.strict });
  for (const diagnostic of result.diagnostics) process.stderr.write(`${formatDiagnostic(diagnostic, cwd)}\n`);
  if (!result.ok) {
    const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
    process.stderr.write(`mfx build: ${errors} error${errors === 1 ? '' : 's'}${args.strict ? ' (--strict: warnings count as errors)' : ''}, nothing written\n`);
    return 1;
  }
  const count = result.manifest!.models.length;
  process.stdout.write(`mfx build: ${count} model${count === 1 ? '' : 's'} → ${relative(cwd, result.outDir) || '.'}\n`);
  return 0;
}
