/**
 * GET {prefix}/openapi.json: its own three-step pipeline (OpenAPI auth,
 * generate, response) that rebuilds the document from the registry on every
 * request (spec, Request pipeline rule 9).
 */
import type { ResolvedConfig } from '../config/config.js';
import { ConfigError } from '../errors/api-error.js';
import { type DispatchDeps, routeHandler } from '../http/dispatch.js';
import type { RouteTable } from '../http/route-table.js';
import type { Context } from '../pipeline/context.js';
import { type Chain, hookFailure } from '../pipeline/pipeline.js';
import type { Hook } from '../pipeline/types.js';
import type { OpenApiDocument } from './types.js';

export const DOCUMENT_PATH = '/openapi.json';

/** Classifies what an OpenAPI auth hook throws like any pipeline hook does; errors from later steps pass through. */
function guarded(hook: Hook): Hook {
  return async (ctx, next) => {
    let downstream: unknown = guarded;
    try {
      await hook(ctx, async () => {
        try {
          await next();
        } catch (error) {
          downstream = error;
          throw error;
        }
      });
    } catch (error) {
      if (error === downstream) throw error;
      throw hookFailure(error, ctx, 'auth');
    }
  };
}

/** The three steps, composed once at boot (also for /asyncapi.json). */
export function documentChain(authHooks: readonly Hook[], generate: () => OpenApiDocument | Record<string, unknown>): Chain {
  const links: Hook[] = [
    ...authHooks.map(guarded),
    async (ctx, next) => {
      ctx.result = generate();
      await next();
    },
    async (ctx, next) => {
      ctx.respond(200, ctx.result, { 'Cache-Control': 'no-store' });
      await next();
    },
  ];
  return (ctx: Context) => {
    const run = (i: number): Promise<void> => (i < links.length ? Promise.resolve(links[i](ctx, () => run(i + 1))) : Promise.resolve());
    return run(0);
  };
}

/**
 * Mounts the document route when Documentation is configured. A document
 * that is neither public nor guarded by OpenAPI auth hooks is refused at
 * startup, since it would otherwise be public by accident.
 */
export function mountDocumentRoute(table: RouteTable, config: ResolvedConfig, deps: DispatchDeps, generate: () => OpenApiDocument): void {
  const documentation = config.documentation;
  if (!documentation) return;
  const hooks = documentation.public ? [] : (documentation.auth ?? []);
  if (!documentation.public && hooks.length === 0) {
    throw new ConfigError('documentation is configured without public: true and without auth hooks; set documentation.public or give documentation.auth hooks that guard /openapi.json');
  }
  for (const hook of hooks) {
    if (typeof hook !== 'function') throw new ConfigError('documentation.auth must list hooks (ctx, next) => Promise<void>');
  }
  const chain = documentChain(hooks, generate);
  // The document is served as a read outside any model: hooks see ctx.model === null.
  const handler = routeHandler(deps, null, 'read', chain);
  table.add('GET', `${config.pathPrefix}${DOCUMENT_PATH}`, handler);
  table.add('HEAD', `${config.pathPrefix}${DOCUMENT_PATH}`, handler);
}
