/**
 * The generated routes of a model, from one catalogue of route kinds: which
 * models get a kind, its method, its path and the pipeline operation it runs
 * as. The router mounts the rows, OPTIONS answers take Allow from them,
 * production validation names operations and routes from them, and the
 * OpenAPI document has one documenting function per kind. Adding a route
 * kind is one row here (plus what serves and documents it).
 */
import type { Op } from '../pipeline/types.js';
import type { ModelMeta } from './model-meta.js';

export type RouteMethod = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS';

interface RouteKindSpec {
  /** What hooks are scoped to: aggregate and export run as `list`. */
  op: Op;
  /** A GET route also answers HEAD, which mirrors it. */
  method: Exclude<RouteMethod, 'HEAD'>;
  /** Paths below `/<table>`; a singleton has no id, so `/:id` folds onto the table path. */
  at: readonly string[];
  /** Which models get the route. */
  models(model: ModelMeta): boolean;
  /** False while the feature that serves it is still to come: listed and documented, never mounted. */
  served: boolean;
}

const every = () => true;
const collections = (model: ModelMeta) => !model.options.singleton;
const writable = (model: ModelMeta) => !model.options.readOnly;

/**
 * Every kind of generated route. Order matters: it is the order of the
 * methods in Allow (`GET, HEAD, POST, OPTIONS`) and of the operations in the
 * document.
 */
export const routeKinds = {
  list: { op: 'list', method: 'GET', at: [''], models: collections, served: true },
  create: { op: 'create', method: 'POST', at: [''], models: (m) => collections(m) && writable(m), served: true },
  read: { op: 'read', method: 'GET', at: ['/:id'], models: every, served: true },
  update: { op: 'update', method: 'PATCH', at: ['/:id'], models: writable, served: true },
  delete: { op: 'delete', method: 'DELETE', at: ['/:id'], models: (m) => collections(m) && writable(m), served: true },
  options: { op: 'options', method: 'OPTIONS', at: ['', '/:id'], models: every, served: true },
  history: { op: 'history', method: 'GET', at: ['/:id/history'], models: (m) => collections(m) && Boolean(m.options.versioned), served: true },
  aggregate: { op: 'list', method: 'GET', at: ['/aggregate'], models: (m) => collections(m) && Boolean(m.options.aggregate), served: true },
  export: { op: 'list', method: 'GET', at: ['/export'], models: (m) => collections(m) && Boolean(m.options.export), served: true },
} as const satisfies Record<string, RouteKindSpec>;

export type RouteKind = keyof typeof routeKinds;

/** One generated route and method. */
export interface RouteRow {
  kind: RouteKind;
  op: Op;
  method: RouteMethod;
  /** Relative to the path prefix, with `:id` parameters: `/posts/:id`. */
  pattern: string;
  /** Mounted by the router (see RouteKindSpec.served). */
  served: boolean;
}

/** A path where every method answers 405 (a singleton's id subtree), and what to use instead. */
export interface ClosedPath {
  pattern: string;
  /** The methods the model serves instead, for the message: `GET or PATCH`. */
  instead: string;
  /** Where they are served: `/settings`. */
  at: string;
}

export interface ModelRoutes {
  /** One row per method, catalogue order; empty for headless models. */
  readonly rows: readonly RouteRow[];
  readonly closed: readonly ClosedPath[];
  /** The served methods of a pattern, for Allow: `GET, HEAD, PATCH, DELETE, OPTIONS`. */
  allow(pattern: string): string;
  /** The first served row of an operation (GET over its HEAD mirror), e.g. for production messages. */
  routeOf(op: Op): RouteRow | undefined;
}

const cache = new WeakMap<ModelMeta, ModelRoutes>();

/**
 * The routes of one model, computed once and kept (model options never
 * change after registration).
 *
 * @example
 * modelRoutes(post).rows.map((r) => `${r.method} ${r.pattern}`); // ['GET /posts', 'HEAD /posts', 'POST /posts', ...]
 * modelRoutes(post).allow('/posts/:id'); // 'GET, HEAD, PATCH, DELETE, OPTIONS'
 */
export function modelRoutes(model: ModelMeta): ModelRoutes {
  let routes = cache.get(model);
  if (!routes) {
    routes = build(model);
    cache.set(model, routes);
  }
  return routes;
}

function build(model: ModelMeta): ModelRoutes {
  const rows: RouteRow[] = [];
  const base = `/${model.table}`;
  const singleton = Boolean(model.options.singleton);
  if (model.mounted) {
    for (const [kind, spec] of Object.entries(routeKinds) as [RouteKind, RouteKindSpec][]) {
      if (!spec.models(model)) continue;
      const patterns = new Set(spec.at.map((at) => base + (singleton ? at.replace(/^\/:id/, '') : at)));
      for (const pattern of patterns) {
        for (const method of spec.method === 'GET' ? (['GET', 'HEAD'] as const) : [spec.method]) {
          rows.push({ kind, op: spec.op, method, pattern, served: spec.served });
        }
      }
    }
  }
  const served = rows.filter((r) => r.served);
  const allow = new Map<string, string>();
  for (const row of served) allow.set(row.pattern, allow.has(row.pattern) ? `${allow.get(row.pattern)}, ${row.method}` : row.method);
  const closed: ClosedPath[] = [];
  if (model.mounted && singleton) {
    const instead = served.filter((r) => r.pattern === base && r.method !== 'HEAD' && r.method !== 'OPTIONS').map((r) => r.method);
    closed.push({ pattern: `${base}/:id`, instead: instead.join(' or '), at: base });
  }
  return {
    rows,
    closed,
    allow: (pattern) => allow.get(pattern) ?? '',
    routeOf: (op) => served.find((r) => r.op === op && r.method !== 'HEAD'),
  };
}
