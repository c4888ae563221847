import type { HttpMiddleware } from '../probes/probes.js';

export interface MiddlewareMeta {
  label: string;
  /** False for middleware that never refuses a request (CORS): it cannot back HTTPAccessControlled. */
  controlsAccess: boolean;
}

const META = Symbol.for('mfx.middlewareMeta');

export function describeMiddleware<M extends HttpMiddleware>(middleware: M, meta: MiddlewareMeta): M {
  (middleware as unknown as Record<symbol, MiddlewareMeta>)[META] = meta;
  return middleware;
}

export function middlewareMeta(middleware: HttpMiddleware): MiddlewareMeta | undefined {
  return (middleware as unknown as Record<symbol, MiddlewareMeta | undefined>)[META];
}
