/**
 * Assembles the OpenAPI 3.1 document: runs every path contribution, then
 * keeps only the operations whose route the server actually serves, so the
 * document can describe a route before its feature is mounted without ever
 * promising one that is not.
 */
import { type DocumentSources, DocumentBuilder, type PathContribution } from './builder.js';
import type { ResolvedConfig } from '../config/config.js';
import { sharedParameters } from './shared-components.js';
import type { HttpMethod, OpenApiDocument, PathItem } from './types.js';

const METHODS: readonly HttpMethod[] = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

export interface DocumentInputs extends DocumentSources {
  contributions: readonly PathContribution[];
  /** Every served route as `METHOD /prefix/path/:param`. */
  served: ReadonlySet<string>;
  /** Told about each documented operation the server does not serve (it is left out). */
  onUnserved?: (method: string, path: string) => void;
}

/** The route-table key of a documented operation: prefix added, `{param}` as `:param`. */
export function routeKey(prefix: string, method: HttpMethod, path: string): string {
  return `${method.toUpperCase()} ${prefix}${path.includes('{') ? path.replace(/\{([^}]+)\}/g, ':$1') : path}`;
}

/**
 * The document path of a route-table pattern: `:param` as `{param}`.
 *
 * @example
 * openApiPath('/posts/:id/history'); // '/posts/{id}/history'
 */
export function openApiPath(pattern: string): string {
  return pattern.replace(/[:*]([^/]+)/g, '{$1}');
}

/** Descriptions of the tags the built-in contributions use; a model's tag is described by the model. */
const BUILT_IN_TAGS: Readonly<Record<string, string>> = {
  probes: 'Liveness, readiness and health probes: outside the pipeline, public unless probe middleware guards them',
  documentation: 'This OpenAPI document',
  realtime: 'Events streamed over Server-Sent Events and WebSocket by the realtime plugin (the messages: docs/realtime.md)',
};

/**
 * The document's `tags`, so viewers group operations and explain each group:
 * every tag a served operation carries, in order of first use; a model's tag
 * carries the model's description (its JSDoc), or says what it holds.
 */
function documentTags(paths: Record<string, PathItem>, registry: DocumentSources['registry']): { name: string; description?: string }[] {
  const names: string[] = [];
  for (const item of Object.values(paths)) {
    for (const method of METHODS) for (const tag of item[method]?.tags ?? []) if (!names.includes(tag)) names.push(tag);
  }
  return names.map((name) => {
    const model = registry.get(name);
    const description = model ? (model.manifest.description ?? `${model.name} records, table ${model.table}`) : BUILT_IN_TAGS[name];
    return description ? { name, description } : { name };
  });
}

/** `info.title`: the documentation's title, else the service name, else `mfx API`. */
export function documentTitle(config: Pick<ResolvedConfig, 'documentation' | 'serviceName'>): string {
  return config.documentation?.title ?? config.serviceName ?? 'mfx API';
}

/**
 * Builds the document from the registry, the configuration, the hooks and
 * the served routes.
 *
 * @example
 * const doc = buildDocument({ registry, config, authHooks, contributions, served });
 * doc.paths['/posts'].get.operationId; // 'listPost'
 */
export function buildDocument(inputs: DocumentInputs): OpenApiDocument {
  const builder = new DocumentBuilder(inputs);
  for (const contribution of inputs.contributions) builder.run(contribution);

  const prefix = inputs.config.pathPrefix;
  const paths: Record<string, PathItem> = {};
  for (const path of Object.keys(builder.paths).sort()) {
    const item = builder.paths[path];
    const kept: PathItem = {};
    let any = false;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (inputs.served.has(routeKey(prefix, method, path))) {
        kept[method] = operation;
        any = true;
      } else {
        inputs.onUnserved?.(method, path);
      }
    }
    if (any) paths[path] = item.parameters ? { parameters: item.parameters, ...kept } : kept;
  }

  const documentation = inputs.config.documentation ?? {};
  const components: Record<string, unknown> = {
    schemas: builder.schemas,
    parameters: sharedParameters,
    responses: builder.responses,
  };
  if (Object.keys(builder.securitySchemes).length > 0) components.securitySchemes = builder.securitySchemes;
  return {
    openapi: '3.1.0',
    info: {
      title: documentTitle(inputs.config),
      version: documentation.version ?? '1.0.0',
      ...(documentation.description ? { description: documentation.description } : {}),
    },
    servers: [{ url: prefix || '/' }],
    tags: documentTags(paths, inputs.registry),
    paths,
    components,
  } as unknown as OpenApiDocument;
}
