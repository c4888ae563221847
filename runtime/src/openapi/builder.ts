/**
 * The document under construction, and the contribution API: everything
 * that serves routes (models, probes, history, actions, ...) adds its paths
 * through a `PathContribution`, so a later feature documents itself without
 * editing the generator.
 */
import type { ResolvedConfig } from '../config/config.js';
import type { Hook, Op } from '../pipeline/types.js';
import type { Registry } from '../registry/registry.js';
import { type OperationAuth, operationAuth } from './security.js';
import { errorResponses, sharedSchemas } from './shared-components.js';
import type { HttpMethod, Operation, Parameter, PathItem, Ref, Response, Schema } from './types.js';
import { ref } from './types.js';

/** What a piece of the build added, for replaying it into later builds. */
export interface Recording {
  operations: [HttpMethod, string, Operation, (Parameter | Ref)[] | undefined][];
  responses: Record<string, Response>;
  securitySchemes: Record<string, Schema>;
}

/** One shared `$ref` object per error status: documents reference them, nobody mutates them. */
const errorRefs: Record<string, Ref> = Object.fromEntries(Object.entries(errorResponses).map(([status, entry]) => [status, ref('responses', entry.name)]));

/** What a contribution reads while it documents its routes. */
export interface DocumentSources {
  registry: Registry;
  config: ResolvedConfig;
  /** The hooks (every step) that run for one (model, op), as registered; `model` null for routes outside models. */
  hooks(model: string | null, op: Op): readonly Hook[];
  /** True once the registry, the pipeline and the routes can no longer change: per-model parts may then be reused between builds. */
  sealed?: boolean;
}

/**
 * Adds operations (and the components they need) to the document. Runs on
 * every build, so it must read the registry, not a copy of it.
 *
 * @example
 * app.openapi.contribute({
 *   name: 'login action',
 *   contribute(doc) {
 *     doc.operation('post', '/auth/login', { summary: 'Log in', responses: { '200': { description: 'a token' }, ...doc.errors('401') } });
 *   },
 * });
 */
export interface PathContribution {
  /** Named in error messages. */
  name: string;
  contribute(doc: DocumentBuilder): void;
}

/**
 * Collects paths and components. `operation` takes paths relative to the
 * path prefix with `{param}` placeholders; operations whose route the server
 * does not serve are dropped when the document is finished.
 */
export class DocumentBuilder {
  readonly paths: Record<string, PathItem> = {};
  readonly schemas: Record<string, Schema> = {};
  readonly responses: Record<string, Response> = {};
  readonly securitySchemes: Record<string, Schema> = {};
  private contributor = 'the generator';
  private recording: Recording | null = null;

  constructor(readonly sources: DocumentSources) {
    // Shared schemas first, so a model that takes one of their names is reported as a clash.
    Object.assign(this.schemas, sharedSchemas);
  }

  get registry(): Registry {
    return this.sources.registry;
  }

  get config(): ResolvedConfig {
    return this.sources.config;
  }

  /** Runs one contribution, naming it in any error it causes. */
  run(contribution: PathContribution): void {
    this.contributor = contribution.name;
    try {
      contribution.contribute(this);
    } finally {
      this.contributor = 'the generator';
    }
  }

  /** Adds an operation; a second one for the same method and path is an error naming both contributors. */
  operation(method: HttpMethod, path: string, operation: Operation, pathParameters?: (Parameter | Ref)[]): void {
    const item = (this.paths[path] ??= {});
    if (item[method]) throw new Error(`mfx openapi: ${this.contributor} documents ${method.toUpperCase()} ${path}, which is already documented`);
    item[method] = operation;
    if (pathParameters) item.parameters ??= pathParameters;
    this.recording?.operations.push([method, path, operation, pathParameters]);
  }

  /**
   * Runs `work` and returns the operations, shared responses and security
   * schemes it added, so a caller can replay them into a later build instead
   * of building them again.
   */
  record(work: () => void): Recording {
    const outer = this.recording;
    const recording: Recording = { operations: [], responses: {}, securitySchemes: {} };
    this.recording = recording;
    try {
      work();
    } finally {
      this.recording = outer;
    }
    return recording;
  }

  /** Adds what `record` captured. */
  replay(recording: Recording): void {
    for (const [method, path, operation, pathParameters] of recording.operations) this.operation(method, path, operation, pathParameters);
    for (const [name, response] of Object.entries(recording.responses)) this.responses[name] ??= response;
    for (const [name, scheme] of Object.entries(recording.securitySchemes)) this.securityScheme(name, scheme);
  }

  /** Adds a component schema; a name taken by another schema is an error naming the clash. */
  schema(name: string, schema: Schema): Ref {
    if (this.schemas[name] && this.schemas[name] !== schema) {
      throw new Error(`mfx openapi: ${this.contributor} adds schema ${name}, which another model or contribution already uses; rename the model or the schema`);
    }
    this.schemas[name] = schema;
    return ref('schemas', name);
  }

  securityScheme(name: string, scheme: Schema): void {
    this.securitySchemes[name] = scheme;
    if (this.recording) this.recording.securitySchemes[name] = scheme;
  }

  /** The documented auth of one operation; registers its security schemes. */
  auth(model: string | null, op: Op): OperationAuth {
    const auth = operationAuth(this.sources.hooks(model, op), op);
    for (const [name, scheme] of Object.entries(auth.schemes)) this.securityScheme(name, scheme);
    return auth;
  }

  /** References to the shared error responses of these statuses, e.g. `doc.errors('404', '500')`. */
  errors(...statuses: string[]): Record<string, Ref> {
    const out: Record<string, Ref> = {};
    for (const status of statuses) {
      const entry = errorResponses[status];
      if (!entry) throw new Error(`mfx openapi: no shared error response for status ${status}`);
      this.responses[entry.name] ??= entry.response;
      if (this.recording) this.recording.responses[entry.name] = entry.response;
      out[status] = errorRefs[status];
    }
    return out;
  }

  /** The statuses every operation that reaches the database can answer: 500, and 504 (QueryTimeout, or the database's own statement timeout). */
  commonStatuses(): string[] {
    return ['500', '504'];
  }

  /** Fills `security`, the statuses and the request headers of an operation from the hooks that run for it. */
  secured(model: string | null, op: Op, operation: Operation): Operation {
    const auth = this.auth(model, op);
    if (auth.security) operation.security = auth.security;
    const errors = auth.statuses.filter((s) => s >= '400');
    const responses = { ...operation.responses, ...this.errors(...errors) };
    if (auth.statuses.includes('304')) responses['304'] = { description: 'Not Modified: If-None-Match matched the ETag; no body' };
    operation.responses = responses;
    if (auth.headers.length > 0) {
      operation.parameters = [...(operation.parameters ?? []), ...auth.headers.map((h) => ({ name: h.name, in: 'header' as const, description: h.description, schema: { type: 'string' } }))];
    }
    return operation;
  }
}

/** HEAD mirrors a GET: same parameters and statuses, headers only. */
export function headOf(get: Operation): Operation {
  const responses: Record<string, Response | Ref> = {};
  for (const [status, response] of Object.entries(get.responses)) {
    responses[status] = '$ref' in response ? { description: 'as for GET, without a body' } : { description: response.description, ...(response.headers ? { headers: response.headers } : {}) };
  }
  return { ...get, operationId: `${get.operationId}Head`, ...(get.summary ? { summary: `${get.summary} (headers only)` } : {}), responses };
}
