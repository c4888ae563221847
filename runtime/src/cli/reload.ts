/**
 * `mfx serve --watch`: when the manifest changes, a new app is built from it
 * (the `--app` module's default export runs again on it), migrated, and
 * handed the listener (`App.handOver`); requests in flight finish on the
 * app they started on. What the previous app started (its outbox relay,
 * jobs worker, scheduled-transition runner) stops, and the new app starts
 * its own, as a first start does. A manifest that does not load, register, seal or
 * migrate is logged and the app serving goes on.
 */
import { resolve } from 'node:path';
import type { App } from '../app.js';
import type { Adapter } from '../db/adapter.js';
import { type LoadedManifest, loadManifest } from '../manifest/load.js';
import type { Registry } from '../registry/registry.js';
import { type FileWatcher, watchFiles } from './process.js';

/**
 * The database of the first app for an app built later from another
 * manifest: the same connections (a `sqlite::memory:` database keeps its
 * rows across reloads), the models of `registry`. The first app opened the
 * connections and closes them; this view's init and close do nothing.
 *
 * @example
 * next.setDB(sharedDatabase(app.db, next.registry));
 */
export function sharedDatabase(base: Adapter, registry: Registry): Adapter {
  return {
    dialect: base.dialect,
    inTransaction: false,
    models: registry.modelNames(),
    all: (sql, params, options) => base.all(sql, params, options),
    get: (sql, params, options) => base.get(sql, params, options),
    run: (sql, params, options) => base.run(sql, params, options),
    raw: (sql, params, options) => base.raw(sql, params, options),
    iterate: (sql, params, options) => base.iterate(sql, params, options),
    iterateBatches: base.iterateBatches && ((sql, params, options) => base.iterateBatches!(sql, params, options)),
    transaction: (fn, options) => base.transaction(fn, options),
    exec: (sql) => base.exec(sql),
    introspect: () => base.introspect(),
    migrationTransaction: (fn) => base.migrationTransaction(fn),
    ping: (signal) => base.ping(signal),
    init: async () => {},
    close: async () => {},
  };
}

/**
 * Reloads `front`'s models whenever `dir/manifest.json` changes (`mfx
 * build` writes validators.js first and renames manifest.json into place
 * last, so a change there is a whole build): `assemble` builds the next
 * app from the manifest, which is sealed, migrated and handed over.
 * Logs `manifest reloaded` or `manifest reload failed; still serving the
 * previous manifest` with the reason. A manifest equal to the one served
 * is left alone.
 *
 * @example
 * reloadOnChange(app, '.mfx', first, (loaded) => appFor(loaded, (registry) => sharedDatabase(app.db, registry)));
 */
export function reloadOnChange(front: App, dir: string, first: LoadedManifest, assemble: (loaded: LoadedManifest) => Promise<App>): FileWatcher {
  let served = JSON.stringify(first.manifest);
  let generation = 1;
  const watcher = watchFiles(async () => {
    try {
      const loaded = loadManifest(dir);
      const text = JSON.stringify(loaded.manifest);
      if (text === served) return;
      const next = await assemble(loaded);
      // Sealing first: a manifest the app refuses fails before the schema changes.
      next.handler();
      const report = await next.migrate();
      // Resolves once the previous app's relay and worker stopped and this app's started.
      await front.handOver(next);
      served = text;
      generation++;
      front.log.info(
        { manifest: loaded.dir, generation, models: loaded.manifest.models.length, createdTables: report.createdTables, addedColumns: report.addedColumns },
        'manifest reloaded',
      );
    } catch (error) {
      front.log.error({ manifest: resolve(dir), err: (error as Error)?.message ?? String(error) }, 'manifest reload failed; still serving the previous manifest');
    }
  });
  watcher.watch([resolve(dir, 'manifest.json')]);
  return watcher;
}
