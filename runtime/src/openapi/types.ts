/**
 * The OpenAPI 3.1 shapes the generator writes. Schemas are plain JSON Schema
 * 2020-12 objects (OpenAPI 3.1's dialect), typed loosely on purpose: the
 * generator builds them from the registry and tests validate them with
 * third-party tools, which is a stronger check than a static type.
 */
import type { OpenAPIV3_1 } from 'openapi-types';

export type OpenApiDocument = OpenAPIV3_1.Document;

/** A JSON Schema (2020-12). */
export type Schema = Record<string, unknown>;

export type Ref = {
  $ref: string;
};

export type HttpMethod = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options';

export interface Parameter {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  description?: string;
  /** Either `schema`, or `content` with one media type (a JSON-encoded query parameter). */
  schema?: Schema;
  content?: Record<string, { schema: Schema }>;
  style?: 'form' | 'simple' | 'deepObject';
  explode?: boolean;
  [extension: `x-${string}`]: unknown;
}

export interface Header {
  description?: string;
  required?: boolean;
  schema: Schema;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | Ref>;
  content?: Record<string, { schema: Schema }>;
}

export interface RequestBody {
  description?: string;
  required?: boolean;
  content: Record<string, { schema: Schema }>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: (Parameter | Ref)[];
  requestBody?: RequestBody | Ref;
  responses: Record<string, Response | Ref>;
  security?: SecurityRequirement[];
  deprecated?: boolean;
  [extension: `x-${string}`]: unknown;
}

export interface PathItem {
  summary?: string;
  parameters?: (Parameter | Ref)[];
  get?: Operation;
  head?: Operation;
  post?: Operation;
  put?: Operation;
  patch?: Operation;
  delete?: Operation;
  options?: Operation;
}

/** `{ $ref: '#/components/<kind>/<name>' }`. */
export function ref(kind: 'schemas' | 'parameters' | 'responses' | 'securitySchemes', name: string): Ref {
  return { $ref: `#/components/${kind}/${name}` };
}
