#!/usr/bin/env node
// The mfx command line. The packages are TypeScript; tsx loads them, and also
// loads the user's `--app FILE.ts` for `mfx serve`.
import { register } from 'tsx/esm/api';

register();

const [command, ...args] = process.argv.slice(2);
const commands = {
  build: () => import('../compiler/src/cli.ts'),
  serve: () => import('../runtime/src/cli/serve.ts'),
  migrate: () => import('../runtime/src/cli/migrate.ts'),
  openapi: () => import('../runtime/src/cli/openapi.ts'),
  diff: () => import('../runtime/src/cli/diff.ts'),
};

if (!command || command === '--help' || command === '-h' || !(command in commands)) {
  // The runtime commands' flags come from the settings table.
  const { commandSummaries } = await import('../runtime/src/cli/args.ts');
  const lines = ['build ENTRY.ts... [--project tsconfig.json] [--out DIR]   compile models into a manifest', ...commandSummaries()];
  process.stderr.write(`usage: mfx <command> [options]\n\ncommands:\n${lines.map((l) => `  ${l}`).join('\n')}\n\nmfx <command> --help describes its flags and environment.\n`);
  process.exit(command && command !== '--help' && command !== '-h' ? 2 : 0);
}

try {
  const { main } = await commands[command]();
  const code = await main(args);
  if (typeof code === 'number') process.exitCode = code;
} catch (error) {
  // Configuration and usage mistakes read best as one line; anything else keeps its stack.
  const known = error && ['ConfigError', 'RegistrationClosedError'].includes(error.name);
  const usageError = error instanceof Error && /^mfx \w+: /.test(error.message);
  process.stderr.write(`${known || usageError ? error.message : (error?.stack ?? String(error))}\n`);
  process.exitCode = 1;
}
