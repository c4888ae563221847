/**
 * The global search route in the document: parameters, the hit shape, and
 * the security of the searched models' list operations (a caller who may
 * list none of them still gets 200, with no hits from those models).
 */
import { headOf, type PathContribution } from '../openapi/builder.js';
import type { Operation } from '../openapi/types.js';
import type { ModelMeta } from '../registry/model-meta.js';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_PATH } from './global-search.js';

/**
 * Built-in contribution of the search route; `models` is read on every build
 * (the route is kept only when the router mounted it).
 *
 * @example
 * searchContribution(() => searchModels(registry.all()))
 */
export function searchContribution(models: () => readonly ModelMeta[]): PathContribution {
  return {
    name: 'global search',
    contribute(doc) {
      const searched = models();
      if (searched.length === 0) return;
      const names = searched.map((m) => m.name);
      const security: Record<string, string[]>[] = [];
      const seen = new Set<string>();
      for (const name of names) {
        const auth = doc.auth(name, 'list');
        for (const requirement of auth.security ?? [{}]) {
          const key = JSON.stringify(requirement);
          if (seen.has(key)) continue;
          seen.add(key);
          security.push(requirement as Record<string, string[]>);
        }
      }
      const hit = {
        type: 'object',
        properties: {
          model: { type: 'string', enum: names, description: 'the model name' },
          id: { type: 'string' },
          snippet: { type: 'string', description: 'plain text around the matched words; fragments joined by …' },
          score: { type: 'number', minimum: 0, maximum: 1, description: 'relevance, higher is better; comparable across models of one server' },
        },
        required: ['model', 'id', 'snippet', 'score'],
      };
      const operation: Operation = {
        operationId: 'globalSearch',
        summary: 'Search every model in the global search',
        description: `Ranks the live records of ${names.join(', ')} whose searchable fields hold every word of q. Each model runs its list operation's Auth hooks and scope hooks (tenancy, force filters): a model the caller may not list contributes nothing. Every model gets a fair share of limit before the hits are merged by score.`,
        tags: ['Search'],
        parameters: [
          { name: 'q', in: 'query', required: true, description: 'the words to search for (letters and digits; everything else separates words)', schema: { type: 'string', minLength: 1 } },
          {
            name: 'limit',
            in: 'query',
            description: `the most hits; default ${SEARCH_DEFAULT_LIMIT}; larger values are clamped to ${SEARCH_MAX_LIMIT}`,
            schema: { type: 'integer', minimum: 1, default: SEARCH_DEFAULT_LIMIT },
          },
          { name: 'models', in: 'query', description: `comma-separated model names to search, of: ${names.join(', ')}; default all`, schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'the hits, best first',
            content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'array', items: hit } }, required: ['data'] } } },
          },
          ...doc.errors('400', ...doc.commonStatuses()),
        },
      };
      if (security.length > 0) operation.security = security;
      doc.operation('get', SEARCH_PATH, operation);
      doc.operation('head', SEARCH_PATH, headOf(operation));
    },
  };
}
