import type { IncomingMessage, ServerResponse } from 'node:http';

/** The path parameters of a match, raw (percent-encoded as in the URL). */
export type RouteParams = Record<string, string>;

/**
 * Serves a matched request. The router hands over what it already split off
 * the URL (the parameters, the path without the query, the query without its
 * `?`) so that nothing is stored on the request or split again.
 */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, params: RouteParams, path: string, search: string) => void;

interface Node {
  statics: Map<string, Node>;
  /** The longest static segment here: a longer segment (an id, mostly) is no static one, and is not hashed to find that out. */
  longestStatic: number;
  param: { name: string; node: Node } | null;
  /** A `*name` segment: takes the rest of the path, slashes included (`/files/*key`). */
  rest: { name: string; node: Node } | null;
  /** Method → handler, for a path that ends here. */
  methods: Map<string, RouteHandler> | null;
}

const node = (): Node => ({ statics: new Map(), longestStatic: 0, param: null, rest: null, methods: null });

export type RouteMatch =
  | { kind: 'found'; handler: RouteHandler; params: RouteParams }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'none' };

const NO_MATCH: RouteMatch = { kind: 'none' };

/**
 * The generated routes, compiled once into a segment tree: a lookup walks the
 * path's segments (static segments before parameters), never scanning the
 * route list. Paths that exist but lack the method answer 405 with Allow.
 *
 * @example
 * const table = new RouteTable();
 * table.add('GET', '/api/posts/:id', handler);
 * table.match('GET', '/api/posts/42'); // { kind: 'found', params: { id: '42' }, ... }
 * // The params object is the match's own: its handler may change it (dispatch decodes it in place).
 */
export class RouteTable {
  private readonly root = node();
  private readonly added: { method: string; pattern: string }[] = [];

  /**
   * Adds a route; method `*` answers every method the path has no own
   * handler for. A last segment `*name` matches one or more segments, its
   * parameter the rest of the path as sent (`/files/*key`).
   */
  add(method: string, pattern: string, handler: RouteHandler): void {
    let current = this.root;
    const segments = pattern.split('/').filter(Boolean);
    for (const [i, segment] of segments.entries()) {
      if (segment.startsWith('*')) {
        const name = segment.slice(1);
        if (i !== segments.length - 1) throw new Error(`mfx: route ${pattern} has *${name} before its last segment; a rest parameter ends the path`);
        if (current.rest && current.rest.name !== name) throw new Error(`mfx: route ${pattern} names parameter *${name} where another route has *${current.rest.name}`);
        current.rest ??= { name, node: node() };
        current = current.rest.node;
      } else if (segment.startsWith(':')) {
        const name = segment.slice(1);
        if (current.param && current.param.name !== name) {
          throw new Error(`mfx: route ${pattern} names parameter :${name} where another route has :${current.param.name}`);
        }
        current.param ??= { name, node: node() };
        current = current.param.node;
      } else {
        let next = current.statics.get(segment);
        if (!next) {
          next = node();
          current.statics.set(segment, next);
          current.longestStatic = Math.max(current.longestStatic, segment.length);
        }
        current = next;
      }
    }
    current.methods ??= new Map();
    if (current.methods.has(method)) throw new Error(`mfx: route ${method} ${pattern} is declared twice`);
    current.methods.set(method, handler);
    this.added.push({ method, pattern });
  }

  /** Every route as added (method and pattern with `:param` segments), for the OpenAPI document. */
  routes(): readonly { method: string; pattern: string }[] {
    return this.added;
  }

  /** Whether a route exists for this method and path (used to refuse colliding actions). */
  has(method: string, pattern: string): boolean {
    // A `:name` segment of the pattern walks the parameter branch like any value would.
    return this.match(method, pattern).kind === 'found';
  }

  /**
   * The methods already declared on exactly this pattern (a `:param` segment
   * stands for any parameter name; static segments only match themselves).
   */
  declared(pattern: string): string[] {
    let current: Node | undefined = this.root;
    for (const segment of pattern.split('/').filter(Boolean)) {
      current = segment.startsWith(':') ? current.param?.node : segment.startsWith('*') ? current.rest?.node : current.statics.get(segment);
      if (!current) return [];
    }
    return current.methods ? [...current.methods.keys()] : [];
  }

  match(method: string, path: string): RouteMatch {
    let current: Node | undefined = this.root;
    let params: Record<string, string> | null = null;
    let start = 1;
    while (current && start <= path.length) {
      let end = path.indexOf('/', start);
      if (end === -1) end = path.length;
      const segment = path.slice(start, end);
      const from = start;
      start = end + 1;
      if (segment === '') continue;
      const next: Node | undefined = segment.length <= current.longestStatic ? current.statics.get(segment) : undefined;
      if (next) {
        current = next;
      } else if (current.param) {
        (params ??= {})[current.param.name] = segment;
        current = current.param.node;
      } else if (current.rest) {
        (params ??= {})[current.rest.name] = path.slice(from);
        current = current.rest.node;
        break;
      } else {
        current = undefined;
      }
    }
    if (!current?.methods) return NO_MATCH;
    const handler = current.methods.get(method) ?? current.methods.get('*');
    if (handler) return { kind: 'found', handler, params: params ?? {} };
    return { kind: 'method-not-allowed', allow: [...current.methods.keys()] };
  }
}
