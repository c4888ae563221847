import { ConfigError } from '../errors/api-error.js';

/**
 * A plugin: a function that sets an app up (hooks, actions, routes,
 * observers, system tables) before it starts. Satellites such as realtime
 * and the admin panel are plugins.
 *
 * @example
 * const audit: Plugin<App> = (app) => { app.observeWrites(auditObserver) };
 * await app.plugin(audit);
 */
export type Plugin<A> = (app: A) => void | Promise<void>;

interface Running {
  name: string;
  settled: boolean;
  error?: unknown;
  done: Promise<void>;
}

/** A plugin as messages name it: `"name"`, or (anonymous). */
export const pluginName = (fn: unknown): string => (typeof fn === 'function' && fn.name ? `"${fn.name}"` : '(anonymous)');

/**
 * The plugins of one app: each runs at once when added; an asynchronous one
 * is tracked, so start() waits for it (a plugin the caller forgot to await
 * still finishes before the app serves) and building the handler while one
 * is unfinished is an error rather than a half set-up app.
 */
export class Plugins<A> {
  private readonly running: Running[] = [];

  /** Runs `fn(app)`; the promise settles when it has finished, rejecting with a ConfigError naming it when it failed. */
  add(app: A, fn: Plugin<A>): Promise<void> {
    if (typeof fn !== 'function') throw new ConfigError(`a plugin is a function (app) => void | Promise<void>, got ${fn === null ? 'null' : typeof fn}`);
    const name = pluginName(fn);
    const failed = (error: unknown) => new ConfigError(`the plugin ${name} failed: ${(error as Error)?.message ?? String(error)}`);
    let result: void | Promise<void>;
    try {
      result = fn(app);
    } catch (error) {
      throw failed(error);
    }
    if (!(result instanceof Promise)) return Promise.resolve();
    const entry: Running = { name, settled: false, done: Promise.resolve() };
    entry.done = result.then(
      () => {
        entry.settled = true;
      },
      (error: unknown) => {
        entry.settled = true;
        entry.error = failed(error);
        throw entry.error;
      },
    );
    // The caller may not await it; start() reports the failure instead of an unhandled rejection.
    entry.done.catch(() => {});
    this.running.push(entry);
    return entry.done;
  }

  /** Resolves once every plugin has finished; rejects with the first failure. */
  async finished(): Promise<void> {
    await Promise.all(this.running.map((entry) => entry.done));
  }

  /** Throws when a plugin is still running or has failed (for synchronous sealing). */
  assertFinished(): void {
    const failed = this.running.find((entry) => entry.error);
    if (failed) throw failed.error;
    const unfinished = this.running.filter((entry) => !entry.settled).map((entry) => entry.name);
    if (unfinished.length > 0) {
      throw new ConfigError(`the plugin${unfinished.length > 1 ? 's' : ''} ${unfinished.join(', ')} ${unfinished.length > 1 ? 'have' : 'has'} not finished: await app.plugin(...) before building the handler, or let app.start() wait for it`);
    }
  }
}
