/**
 * `@mfx/runtime/cli`: the runtime's commands for the `mfx` command line
 * (shipped by @mfx/compiler). Each command loads only when it runs.
 */
export { commandSummaries, readCommandLine } from './args.js';
// What the mfx commands share with those of other packages (`mfx build --watch` in @mfx/compiler).
export { endOnClosedPipe, type FileWatcher, untilSignal, type WatchOptions, watchFiles } from './process.js';
export type { Command } from '../config/settings.js';
import type { Command } from '../config/settings.js';

/** A command's entry: the arguments after its name in, the exit code out. */
export type CommandMain = (argv: string[]) => Promise<number>;

/**
 * The runtime's commands by name, each loaded on use.
 *
 * @example
 * const { main } = await runtimeCommands.migrate();
 * process.exitCode = await main(['--db', 'sqlite:./app.db']);
 */
export const runtimeCommands: Record<Command, () => Promise<{ main: CommandMain }>> = {
  serve: () => import('./serve.js'),
  migrate: () => import('./migrate.js'),
  openapi: () => import('./openapi.js'),
  diff: () => import('./diff.js'),
  'rotate-keys': () => import('./rotate-keys.js'),
  rollups: () => import('./rollups.js'),
};
