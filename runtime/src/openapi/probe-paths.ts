/**
 * The operational routes: /live, /ready, /health and /openapi.json itself.
 * Probes run outside the pipeline, so no auth hooks apply to them.
 */
import { headOf, type PathContribution } from './builder.js';
import type { Response, Schema } from './types.js';
import { operationAuth } from './security.js';

const statusBody = (values: string[], checks: boolean) => ({
  type: 'object',
  properties: {
    status: { type: 'string', enum: values },
    ...(checks ? { checks: { type: 'object', additionalProperties: { type: 'string', enum: ['ok', 'error'] } } } : {}),
  },
  required: ['status'],
  additionalProperties: false,
});

const json = (schema: Schema) => ({ 'application/json': { schema } });

/** Built-in contribution: the probes. */
export const probesContribution: PathContribution = {
  name: 'probes',
  contribute(doc) {
    const checks = doc.config.probes.publishReadinessChecks ?? false;
    const probe = (name: string, summary: string, responses: Record<string, Response>) => {
      const get = { operationId: `probe${name[0].toUpperCase()}${name.slice(1)}`, summary, tags: ['probes'], responses };
      doc.operation('get', `/${name}`, get);
      doc.operation('head', `/${name}`, headOf(get));
    };
    probe('live', 'Liveness: 200 while the process runs, also while draining', { '200': { description: 'alive', content: json(statusBody(['ok'], false)) } });
    probe('ready', 'Readiness: the database and every readiness check', {
      '200': { description: 'ready', content: json(statusBody(['ok'], checks)) },
      '503': { description: 'starting, stopping, or a dependency failed', content: json(statusBody(['not_ready', 'starting', 'stopping'], checks)) },
    });
    probe('health', doc.config.healthCheckDB ? 'Legacy health: pings the database' : 'Legacy health: always ok', {
      '200': { description: 'healthy', content: json(statusBody(['ok'], false)) },
      ...(doc.config.healthCheckDB ? { '503': { description: 'the database ping failed', content: json(statusBody(['degraded'], false)) } } : {}),
    });
  },
};

/** Built-in contribution: the document's own route. */
export const documentRouteContribution: PathContribution = {
  name: 'openapi document',
  contribute(doc) {
    const documentation = doc.config.documentation;
    const auth = documentation?.public ? null : operationAuth(documentation?.auth ?? [], 'read');
    for (const [name, scheme] of Object.entries(auth?.schemes ?? {})) doc.securityScheme(name, scheme);
    const get = {
      operationId: 'openapiDocument',
      summary: 'This OpenAPI 3.1 document, rebuilt from the registry on every request',
      tags: ['documentation'],
      ...(auth?.security ? { security: auth.security } : {}),
      responses: {
        '200': { description: 'the document', content: json({ type: 'object' }) },
        ...(auth && auth.statuses.length > 0 ? doc.errors(...auth.statuses) : {}),
        ...doc.errors('500'),
      },
    };
    doc.operation('get', '/openapi.json', get);
    doc.operation('head', '/openapi.json', headOf(get));
  },
};
