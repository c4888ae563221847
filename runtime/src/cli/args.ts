/**
 * The command line of `mfx serve`, `mfx migrate` and `mfx openapi`, read
 * from the settings table: each command knows the flags whose rows name it,
 * flags win over the environment, which wins over the defaults, and usage
 * text is written from the same rows.
 */
import type { ServerConfig } from '../config/config.js';
import { type EnvConfig, loadEnv, readVariable } from '../config/env.js';
import { shown } from '../config/readers.js';
import { type Command, type CommandOptions, type Setting, settingRows } from '../config/settings.js';

/** What each command does. */
export const commands: Record<Command, string> = {
  serve: 'load the manifest, open the database, migrate and serve',
  migrate: 'migrate and print what changed',
  openapi: 'print the OpenAPI 3.1 document that serve publishes',
  diff: 'report schema and API changes between two manifests; exit 1 when one breaks clients',
  'rotate-keys': 're-encrypt every encrypted field to the key id --to, in batches, after a preflight',
  rollups: 'backfill: recompute every rollup column the --app module declares (app.rollup) on every parent row, in batches',
};

/** What a command takes besides flags, as usage writes it. */
const operands: Partial<Record<Command, string>> = { diff: 'OLD_MANIFEST NEW_MANIFEST', rollups: 'backfill' };

/** The subcommands a command takes as its first argument (the command reads which one itself). */
const subcommands: Partial<Record<Command, readonly string[]>> = { rollups: ['backfill'] };

export interface CommandLine {
  /** Server settings from flags and the environment; unset ones take resolveConfig's defaults. */
  server: Partial<ServerConfig>;
  /** The command's own settings, defaults filled in. */
  options: CommandOptions;
  /** `--help` or `-h` was given: print usage(command) instead. */
  help: boolean;
}

type Row = { key: string; setting: Setting<unknown> };

/** The rows a command reads, in table order. */
const rowsOf = (command: Command): Row[] => settingRows.filter(([, setting]) => setting.commands?.includes(command)).map(([key, setting]) => ({ key, setting }));

/** The rows with a flag of this command, in table order. */
const flagsOf = (command: Command) => rowsOf(command).flatMap(({ key, setting }) => (setting.flag ? [{ key, setting, flag: setting.flag }] : []));

/**
 * A mistake on the command line (an unknown flag, a missing or unreadable
 * value, an argument the command does not take): the command prints its one
 * line and exits 2, as usage errors do.
 */
export class UsageError extends Error {
  constructor(command: Command, message: string) {
    super(`mfx ${command}: ${message}`);
    this.name = 'UsageError';
  }
}

const isHelp = (arg: string) => arg === '--help' || arg === '-h';

/**
 * Reads a command's flags (`--name VALUE`, `--name=VALUE`, `--switch`) and
 * the variables of its settings (a command with none, like openapi, does
 * not read the environment). `--help` or `-h` anywhere wins: nothing else
 * is read. Unknown flags, unreadable values and arguments that are not
 * flags are UsageErrors naming them; an unreadable variable is a
 * ConfigError naming it.
 *
 * @example
 * readCommandLine('serve', ['--port', '0', '--no-docs']); // { server: { port: 0 }, options: { docs: false, manifest: '.mfx', ... }, help: false }
 */
export function readCommandLine(command: Command, argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CommandLine {
  if (argv.some(isHelp)) return { server: {}, options: {} as CommandOptions, help: true };
  const known = flagsOf(command);
  const fail = (message: string) => new UsageError(command, message);
  const given = new Map<string, unknown>();
  for (let i = subcommands[command]?.includes(argv[0]) ? 1 : 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-') || arg === '-') throw fail(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.replace(/^--?/, '') : arg.slice(2, eq);
    const row = arg.startsWith('--') ? known.find((r) => r.flag.name === name) : undefined;
    if (!row) throw fail(`unknown flag ${eq === -1 ? arg : arg.slice(0, eq)} (known: ${known.map((r) => `--${r.flag.name}`).join(', ')})`);
    if (!row.flag.read) {
      if (eq !== -1) throw fail(`--${name} takes no value`);
      given.set(row.key, row.flag.switchTo);
      continue;
    }
    let raw: string;
    if (eq !== -1) raw = arg.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) raw = argv[++i];
    else throw fail(`--${name} needs a value (${row.flag.placeholder})`);
    try {
      given.set(row.key, row.flag.read(raw));
    } catch (error) {
      throw fail(`flag --${name}=${shown(row.flag.read, raw)} ${(error as Error).message}`);
    }
  }

  const rows = rowsOf(command);
  // A command that reads the environment refuses any unreadable variable of the spec's, as loadEnv does.
  const fromEnv: EnvConfig = rows.some((r) => r.setting.env) ? loadEnv('', env) : {};
  const server: Record<string, unknown> = {};
  const options: Record<string, unknown> = {};
  for (const { key, setting } of rows) {
    const binding = setting.env;
    const variable = !binding ? undefined : binding.as ? fromEnv[binding.as] : readVariable(binding, env);
    const value = given.has(key) ? given.get(key) : variable !== undefined ? binding!.toSetting(variable) : undefined;
    if (setting.scope === 'server') {
      if (value !== undefined) server[key] = value;
    } else {
      options[key] = value ?? setting.default;
    }
  }
  return { server: server as Partial<ServerConfig>, options: options as unknown as CommandOptions, help: false };
}

/**
 * Reports a mistake in how a command was called, as every mfx command does:
 * the one line naming it, a blank line and the command's usage, on stderr.
 * Returns the exit code, 2.
 *
 * @example
 * if (!options.to) return usageFailure('rotate-keys', '--to KEYID is required');
 */
export function usageFailure(command: Command, error: UsageError | string): number {
  const message = typeof error === 'string' ? new UsageError(command, error).message : error.message;
  process.stderr.write(`${message}\n\n${usage(command)}`);
  return 2;
}

/**
 * The command line of a command, or its exit code when there is nothing to
 * run: 0 once `--help` printed the usage on stdout, 2 once a UsageError was
 * printed on stderr (its line and the usage). A bad environment variable
 * still throws.
 *
 * @example
 * const line = commandLine('migrate', argv);
 * if (typeof line === 'number') return line;
 */
export function commandLine(command: Command, argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Omit<CommandLine, 'help'> | number {
  let line: CommandLine;
  try {
    line = readCommandLine(command, argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usageFailure(command, error);
  }
  if (!line.help) return line;
  process.stdout.write(usage(command));
  return 0;
}

/**
 * The flags of a command as usage shows them.
 *
 * @example
 * synopsis('migrate'); // '[--manifest DIR] [--db URL]'
 */
export function synopsis(command: Command): string {
  const flags = flagsOf(command).map(({ flag }) => `[--${flag.name}${flag.placeholder ? ` ${flag.placeholder}` : ''}]`);
  return [...(operands[command] ? [operands[command]] : []), ...flags].join(' ');
}

const table = (lines: [string, string][]) => {
  const width = Math.max(...lines.map(([left]) => left.length));
  return lines.map(([left, right]) => `  ${left.padEnd(width)}   ${right}`).join('\n');
};

/**
 * The help text of a command: its flags and, when the environment applies,
 * its variables, each with its doc line.
 *
 * @example
 * process.stdout.write(usage('serve'));
 */
export function usage(command: Command): string {
  const flags = flagsOf(command).map(({ setting, flag }): [string, string] => {
    const notes = [setting.default !== undefined && flag.read ? `default ${String(setting.default)}` : '', setting.env ? `env ${setting.env.name}` : '']
      .filter(Boolean)
      .join('; ');
    return [`--${flag.name}${flag.placeholder ? ` ${flag.placeholder}` : ''}`, notes ? `${setting.doc} (${notes})` : setting.doc];
  });
  const variables = rowsOf(command).flatMap(({ setting }): [string, string][] => (setting.env && !setting.flag ? [[setting.env.name, setting.doc]] : []));
  const parts = [`usage: mfx ${command} ${synopsis(command)}`, `  ${commands[command]}`, table(flags)];
  if (variables.length > 0) {
    parts.push(`environment (flags win over it; it wins over the defaults):\n${table(variables)}`);
  }
  return `${parts.join('\n\n')}\n`;
}

/**
 * One line per command for `mfx --help`.
 *
 * @example
 * commandSummaries(); // ['serve [--manifest DIR] ...   load the manifest, ...', ...]
 */
export function commandSummaries(): string[] {
  return (Object.keys(commands) as Command[]).map((command) => `${command} ${synopsis(command)}   ${commands[command]}`);
}
