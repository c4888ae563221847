/**
 * Custom actions document themselves from their declarations (spec,
 * Endpoints: Custom actions): optional request and response schemas, a
 * description, security, and declared parameters (`in` defaults to query).
 * The declarations are documentation only; nothing validates them at runtime.
 */
import type { PathContribution } from './builder.js';
import type { SecurityScheme } from './security.js';
import type { HttpMethod, Operation, Parameter, Schema } from './types.js';

export interface ActionDoc {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under the prefix, with `:param` segments, e.g. `/auth/login` or `/posts/:id/publish`. */
  path: string;
  /** The model whose hooks and tag the action shares, if any. */
  model?: string;
  summary?: string;
  description?: string;
  request?: Schema;
  response?: Schema;
  /** Status of the success response (default 200). */
  status?: number;
  parameters?: { name: string; in?: 'query' | 'header' | 'cookie'; required?: boolean; description?: string; schema?: Schema }[];
  /** Security declared on the action itself, besides what its auth hooks document. */
  security?: { scheme: string; definition: SecurityScheme; scopes?: string[] }[];
  /** Error statuses the handler answers besides those of its hooks, e.g. ['400', '401', '422']. */
  errors?: string[];
}

/**
 * A contribution documenting actions; `list` is read on every build.
 *
 * @example
 * app.openapi.contribute(actionsContribution(() => registeredActions.map((a) => a.doc)));
 */
export function actionsContribution(list: () => readonly ActionDoc[]): PathContribution {
  return {
    name: 'custom actions',
    contribute(doc) {
      for (const action of list()) {
        const path = action.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        const pathParams: Parameter[] = [...action.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
        const operation: Operation = {
          operationId: `${action.method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
          ...(action.summary ? { summary: action.summary } : {}),
          ...(action.description ? { description: action.description } : {}),
          ...(action.model ? { tags: [action.model] } : { tags: ['actions'] }),
          parameters: [...pathParams, ...(action.parameters ?? []).map((p) => ({ name: p.name, in: p.in ?? 'query', ...(p.required ? { required: true } : {}), ...(p.description ? { description: p.description } : {}), schema: p.schema ?? { type: 'string' } }))],
          ...(action.request ? { requestBody: { required: true, content: { 'application/json': { schema: action.request } } } } : {}),
          responses: {
            [String(action.status ?? 200)]: { description: action.summary ?? 'done', ...(action.response ? { content: { 'application/json': { schema: action.response } } } : {}) },
            ...doc.errors(...(action.errors ?? []), '500'),
          },
        };
        const secured = doc.secured(action.model ?? null, 'action', operation);
        for (const declared of action.security ?? []) {
          doc.securityScheme(declared.scheme, declared.definition);
          secured.security = [...(secured.security ?? []), { [declared.scheme]: declared.scopes ?? [] }];
        }
        doc.operation(action.method.toLowerCase() as HttpMethod, path, secured);
      }
    },
  };
}
