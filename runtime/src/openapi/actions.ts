/**
 * Custom actions in the document, from their declarations (spec, Endpoints:
 * Custom actions): the operation each action declared (`actionOperation`),
 * its security from the authenticators of its own and the action-scoped auth
 * hooks, and the schemes they use.
 */
import { actionOperation } from '../actions/openapi.js';
import type { SecurityDescription } from '../security/describe.js';
import { headOf, type PathContribution } from './builder.js';
import { type HttpMethod, type Operation, ref, type Schema } from './types.js';

/**
 * Built-in contribution for the app's actions; `describe` is read on every build.
 *
 * @example
 * actionsContribution(() => app.describeSecurity())
 */
export function actionsContribution(describe: () => SecurityDescription): PathContribution {
  return {
    name: 'custom actions',
    contribute(doc) {
      const security = describe();
      if (security.actions.length === 0) return;
      // Actions answer whatever their handler throws: one generic error response covers it.
      doc.responses.Error ??= { description: 'an error envelope', content: { 'application/json': { schema: ref('schemas', 'Error') } } };
      for (const action of security.actions) {
        for (const name of action.security) {
          const scheme = security.schemes[name];
          if (scheme) doc.securityScheme(name, scheme as unknown as Schema);
        }
        const operation = actionOperation(action) as unknown as Operation;
        const status = String(action.status);
        const success = operation.responses[status] as { description: string; content?: unknown };
        // Without a declared response schema the handler may still return data (wrapped in `data`) or nothing (204).
        if (!success.content) operation.responses[status] = { description: success.description, content: { 'application/json': { schema: { type: 'object', properties: { data: {} }, required: ['data'] } } } };
        operation.responses['204'] ??= { description: 'the handler returned nothing' };
        doc.operation(action.method.toLowerCase() as HttpMethod, action.openapiPath, operation);
        if (action.method === 'GET') doc.operation('head', action.openapiPath, headOf(operation));
      }
    },
  };
}
