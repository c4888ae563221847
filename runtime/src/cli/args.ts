/** Minimal flag parsing for the mfx commands: `--name value`, `--name=value` and boolean `--flag`. */
export interface ParsedArgs {
  flags: Map<string, string | true>;
  positional: string[];
}

export function parseArgs(argv: readonly string[], booleans: readonly string[]): ParsedArgs {
  const flags = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (eq !== -1) flags.set(name, arg.slice(eq + 1));
    else if (booleans.includes(name)) flags.set(name, true);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags.set(name, argv[++i]);
    else throw new Error(`--${name} needs a value`);
  }
  return { flags, positional };
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** Rejects flags a command does not know, naming them. */
export function checkFlags(args: ParsedArgs, known: readonly string[], command: string): void {
  for (const name of args.flags.keys()) {
    if (!known.includes(name)) throw new Error(`mfx ${command}: unknown flag --${name} (known: ${known.map((k) => `--${k}`).join(', ')})`);
  }
}
