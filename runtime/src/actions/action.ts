import { ConfigError } from '../errors/api-error.js';
import type { Context } from '../pipeline/context.js';
import type { Hook } from '../pipeline/types.js';

/** A JSON Schema object, as OpenAPI 3.1 takes it. */
export type JsonSchema = Record<string, unknown>;

/** A declared parameter of an action (documentation only: nothing validates it). */
export interface ActionParameter {
  name: string;
  /** Where it is sent; `query` unless said otherwise (path parameters come from the path). */
  in?: 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface ActionInput {
  /** Reads and parses the JSON object body (the app's body limit applies); cached. */
  json(): Promise<Record<string, unknown>>;
}

/**
 * The handler of an action: return the `data` to answer with (status
 * `status`, default 200), or set the response yourself (`ctx.respond` for
 * JSON, `ctx.respondStream` for a download, `ctx.respondHtml` for a page);
 * returning nothing without responding answers 204.
 */
export type ActionHandler = (ctx: Context, input: ActionInput) => unknown | Promise<unknown>;

export const ACTION_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ActionMethod = (typeof ACTION_METHODS)[number];

/**
 * A custom action: a route with its own method, path and handler, served
 * through the trimmed pipeline Auth → action hooks → handler → Response.
 */
export interface ActionDefinition {
  method: ActionMethod;
  /** Under the path prefix; `:name` segments are path parameters (`/posts/:id/publish`). */
  path: string;
  handler: ActionHandler;
  /** operationId in the spec; derived from method and path when left out. */
  name?: string;
  /** Authenticators and gates for this action, run at its Auth step after app-wide action hooks. */
  auth?: Hook[];
  /** Hooks between Auth and the handler (rate limits, audit, ...). */
  hooks?: Hook[];
  /** The access flag: true declares the action public on purpose (production validation). */
  public?: boolean;
  /** Status of a returned value (default 200). */
  status?: number;
  summary?: string;
  description?: string;
  tags?: string[];
  request?: { schema: JsonSchema; description?: string; required?: boolean };
  /**
   * The success body. JSON by default (documented inside the `data`
   * envelope); a `contentType` such as `text/csv` documents a streamed or
   * HTML response as it is sent, `schema` describing the bytes
   * (`{ type: 'string' }`).
   */
  response?: { schema: JsonSchema; description?: string; contentType?: string };
  parameters?: ActionParameter[];
}

/**
 * What an action declares, as plain data for the OpenAPI generator and for
 * production validation. `security` is filled when the app seals.
 */
export interface ActionDescriptor {
  name: string;
  method: ActionMethod;
  /** As declared, relative to the path prefix, with `:name` parameters. */
  path: string;
  /** OpenAPI form: `/posts/{id}/publish`. */
  openapiPath: string;
  pathParameters: string[];
  parameters: Array<ActionParameter & Required<Pick<ActionParameter, 'in' | 'required'>>>;
  public: boolean;
  status: number;
  summary?: string;
  description?: string;
  tags?: string[];
  request?: ActionDefinition['request'];
  response?: ActionDefinition['response'];
  /** Names of the security schemes that may authenticate it (see App.describeSecurity). */
  security: string[];
}

const SEGMENT = /^(?::[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9._~-]+)$/;

/** Checks a definition and turns it into its descriptor. */
export function describeAction(def: ActionDefinition): ActionDescriptor {
  if (!def || typeof def !== 'object') throw new ConfigError('app.action() needs { method, path, handler }');
  if (!ACTION_METHODS.includes(def.method)) throw new ConfigError(`action ${String(def.path)}: method must be one of ${ACTION_METHODS.join(', ')}, got ${String(def.method)}`);
  if (typeof def.path !== 'string' || !def.path.startsWith('/')) throw new ConfigError(`action ${def.method} ${String(def.path)}: path must start with "/"`);
  const segments = def.path.split('/').filter(Boolean);
  if (segments.length === 0) throw new ConfigError(`action ${def.method} ${def.path}: path needs at least one segment`);
  for (const segment of segments) {
    if (!SEGMENT.test(segment)) throw new ConfigError(`action ${def.method} ${def.path}: segment "${segment}" must be a plain name or a :parameter`);
  }
  if (typeof def.handler !== 'function') throw new ConfigError(`action ${def.method} ${def.path}: handler must be a function (ctx, input) => data`);
  for (const hook of [...(def.auth ?? []), ...(def.hooks ?? [])]) {
    if (typeof hook !== 'function') throw new ConfigError(`action ${def.method} ${def.path}: auth and hooks must be hook functions (ctx, next) => Promise<void>`);
  }
  const contentType = def.response?.contentType;
  if (contentType !== undefined && !/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/.test(contentType)) {
    throw new ConfigError(`action ${def.method} ${def.path}: response.contentType must be a media type such as text/csv (no parameters), got ${JSON.stringify(contentType)}`);
  }
  const pathParameters = segments.filter((s) => s.startsWith(':')).map((s) => s.slice(1));
  if (new Set(pathParameters).size !== pathParameters.length) throw new ConfigError(`action ${def.method} ${def.path}: a path parameter is named twice`);
  const status = def.status ?? 200;
  if (!Number.isInteger(status) || status < 200 || status > 299) throw new ConfigError(`action ${def.method} ${def.path}: status must be a 2xx code, got ${status}`);
  const name = def.name ?? `${def.method.toLowerCase()}${segments.map((s) => s.replace(/^:/, 'by_').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())).map((s) => s.charAt(0).toUpperCase() + s.slice(1)).join('')}`;
  return {
    name,
    method: def.method,
    path: `/${segments.join('/')}`,
    openapiPath: `/${segments.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`,
    pathParameters,
    parameters: (def.parameters ?? []).map((p) => ({ ...p, in: p.in ?? 'query', required: p.required ?? false })),
    public: def.public === true,
    status,
    summary: def.summary,
    description: def.description,
    tags: def.tags,
    request: def.request,
    response: def.response,
    security: [],
  };
}
