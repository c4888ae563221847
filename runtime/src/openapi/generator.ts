/**
 * One server's document generator: binds the registry, the configuration,
 * the pipeline's auth hooks, the contributions and the route table that the
 * router built, and rebuilds the document on demand.
 */
import type { ResolvedConfig } from '../config/config.js';
import type { RouteTable } from '../http/route-table.js';
import type { Logger } from '../log/logger.js';
import type { RegisteredHook } from '../pipeline/hook-meta.js';
import type { Op } from '../pipeline/types.js';
import type { Registry } from '../registry/registry.js';
import type { PathContribution } from './builder.js';
import { buildDocument } from './document.js';
import type { OpenApiDocument } from './types.js';

export interface GeneratorSources {
  registry: Registry;
  config: ResolvedConfig;
  /** Every registered hook that runs for (model, op), any step. */
  hooks(model: string | null, op: Op): readonly RegisteredHook[];
  contributions: readonly PathContribution[];
  routes: RouteTable;
  /** Paths served by an upgrade handler (WebSocket), outside the route table: their GET counts as served. */
  upgrades?: readonly string[];
  log: Logger;
}

export class DocumentGenerator {
  private readonly warned = new Set<string>();
  /** The routes are fixed once the router is built; the lookup set is made on the first build. */
  private served: Set<string> | null = null;

  constructor(private readonly sources: GeneratorSources) {}

  /** Builds the document now, from the registry as it is. */
  build(): OpenApiDocument {
    const served = (this.served ??= new Set([
      ...this.sources.routes.routes().map((r) => `${r.method} ${r.pattern.replace(/\/\*([^/]+)$/, '/:$1')}`),
      ...(this.sources.upgrades ?? []).map((path) => `GET ${path}`),
    ]));
    return buildDocument({
      registry: this.sources.registry,
      config: this.sources.config,
      hooks: (model, op) => this.sources.hooks(model, op).map((e) => e.hook),
      // The generator exists only once the handler is built: registry, pipeline and routes are sealed.
      sealed: this.sources.registry.sealed,
      contributions: this.sources.contributions,
      served,
      onUnserved: (method, path) => {
        const key = `${method} ${path}`;
        if (this.warned.has(key)) return;
        this.warned.add(key);
        // Expected for routes of features that are not mounted (history, aggregate, export); logged once.
        this.sources.log.debug({ method: method.toUpperCase(), path }, 'openapi: documented route is not served; left out of the document');
      },
    });
  }
}
