import type { HttpMiddleware } from '../probes/probes.js';
import { metaSlot } from '../util/meta-slot.js';

export interface MiddlewareMeta {
  label: string;
  /** False for middleware that never refuses a request (CORS): it cannot back HTTPAccessControlled. */
  controlsAccess: boolean;
}

const slot = metaSlot<MiddlewareMeta>('mfx.middlewareMeta');

/** Attaches metadata to a ready-made router-level middleware (cors(), ...). */
export function describeMiddleware<M extends HttpMiddleware>(middleware: M, meta: MiddlewareMeta): M {
  return slot.attach(middleware, meta);
}

/** The metadata of a router-level middleware, if it has any. */
export function middlewareMeta(middleware: HttpMiddleware): MiddlewareMeta | undefined {
  return slot.read(middleware);
}
