import type { Adapter } from '../db/adapter.js';
import type { ModelMeta } from '../registry/model-meta.js';
import type { Registry } from '../registry/registry.js';
import type { ModelStore } from '../store/model-store.js';
import { hookMeta, type RegisteredHook } from './hook-meta.js';
import type { Hook, Op, Step } from './types.js';
import type { WriteObserver } from './write-observers.js';

/** A hook that lives outside the pipeline (an action's own auth or hooks), described like an entry. */
export function actionEntry(hook: Hook, step: Step): RegisteredHook {
  return { step, hook, position: 'before', models: null, ops: new Set<Op>(['action']), matches: (model, op) => model === null && op === 'action' };
}

export interface SetupDeps {
  registry: Registry;
  pathPrefix: string;
  store(model: string): ModelStore;
  adapterOf(model: ModelMeta): Adapter;
  onStop(fn: () => Promise<void> | void): void;
  onStart(fn: () => Promise<void> | void, stop?: () => Promise<void> | void): void;
  observeWrites(observer: WriteObserver, models: readonly string[] | null): void;
}

/**
 * Gives every ready-made hook its one-time setup at seal: the registry, its
 * scope and its neighbours. A hook that finds its configuration wrong throws,
 * so startup fails before the first request.
 */
export function setupHooks(entries: readonly RegisteredHook[], groups: ReadonlyArray<readonly RegisteredHook[]>, deps: SetupDeps): void {
  const all = deps.registry.all();
  const run = (entry: RegisteredHook, neighbours: readonly RegisteredHook[]) => {
    const meta = hookMeta(entry.hook);
    if (!meta?.setup) return;
    meta.setup({
      registry: deps.registry,
      entry,
      entries: neighbours,
      pathPrefix: deps.pathPrefix,
      models: entry.models ? all.filter((m) => entry.models!.has(m.name)) : entry.ops && [...entry.ops].every((op) => op === 'action') ? [] : all,
      store: deps.store,
      adapterOf: deps.adapterOf,
      onStop: deps.onStop,
      onStart: deps.onStart,
      observeWrites: deps.observeWrites,
    });
  };
  for (const entry of entries) run(entry, entries);
  for (const group of groups) {
    const neighbours = [...entries, ...group];
    for (const entry of group) run(entry, neighbours);
  }
}
