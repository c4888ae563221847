import type { SecurityScheme } from '../pipeline/hook-meta.js';
import type { SecurityDescription } from '../security/describe.js';
import type { ActionDescriptor } from './action.js';

/** An OpenAPI 3.1 operation object, as plain JSON. */
export type OpenApiOperation = Record<string, unknown>;

/** OpenAPI `components.securitySchemes` from the authenticators in use. */
export function securitySchemes(security: SecurityDescription): Record<string, SecurityScheme> {
  return { ...security.schemes };
}

/** The `security` array of an operation: any one scheme suffices; public adds `{}` (anonymous allowed). */
export function securityRequirement(schemes: readonly string[], anonymous: boolean): Array<Record<string, string[]>> | undefined {
  if (schemes.length === 0) return anonymous ? [] : undefined;
  const requirement = schemes.map((name) => ({ [name]: [] as string[] }));
  return anonymous ? [...requirement, {}] : requirement;
}

/** The OpenAPI operation of one action, from what it declared (nothing is validated at runtime). */
export function actionOperation(action: ActionDescriptor): OpenApiOperation {
  const parameters = [
    ...action.pathParameters.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...action.parameters.map((p) => ({ name: p.name, in: p.in, required: p.required, ...(p.description ? { description: p.description } : {}), schema: p.schema ?? { type: 'string' } })),
  ];
  const operation: OpenApiOperation = { operationId: action.name };
  if (action.summary) operation.summary = action.summary;
  if (action.description) operation.description = action.description;
  if (action.tags?.length) operation.tags = action.tags;
  if (parameters.length > 0) operation.parameters = parameters;
  if (action.request) {
    operation.requestBody = {
      required: action.request.required ?? true,
      ...(action.request.description ? { description: action.request.description } : {}),
      content: { 'application/json': { schema: action.request.schema } },
    };
  }
  const declared = action.response;
  const success = declared
    ? {
        description: declared.description ?? 'OK',
        content:
          declared.contentType && declared.contentType !== 'application/json'
            ? { [declared.contentType]: { schema: declared.schema } }
            : { 'application/json': { schema: { type: 'object', properties: { data: declared.schema }, required: ['data'] } } },
      }
    : { description: 'OK' };
  const error = { $ref: '#/components/responses/Error' };
  operation.responses = {
    [String(action.status)]: success,
    ...(action.security.length > 0 ? { '401': error } : {}),
    default: error,
  };
  const security = securityRequirement(action.security, action.public);
  if (security !== undefined) operation.security = security;
  return operation;
}

/**
 * OpenAPI path items of every action, keyed by the full path with `{param}`s.
 * The OpenAPI generator merges them into `paths` beside the model routes.
 *
 * @example
 * Object.assign(document.paths, actionPaths(app.describeSecurity(), app.config.pathPrefix));
 */
export function actionPaths(security: SecurityDescription, prefix: string): Record<string, Record<string, OpenApiOperation>> {
  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  for (const action of security.actions) {
    const item = (paths[`${prefix}${action.openapiPath}`] ??= {});
    item[action.method.toLowerCase()] = actionOperation(action);
  }
  return paths;
}
