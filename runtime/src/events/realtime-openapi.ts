/**
 * The realtime routes in the OpenAPI document (docs/realtime.md): the SSE
 * stream and the WebSocket upgrade, with the parameters and refusals of the
 * admission in realtime.ts. Contributed by the plugin, so an app without
 * realtime documents neither. The messages themselves are the AsyncAPI
 * document's and docs/realtime.md's: OpenAPI describes the handshake.
 */
import type { PathContribution } from '../openapi/builder.js';
import type { Operation, Parameter, Response } from '../openapi/types.js';

export interface RealtimeRoutes {
  /** The SSE and WebSocket paths, relative to the path prefix. */
  ssePath: string;
  wsPath: string;
  /** Whether the app's Auth-step hooks run on connect (the `auth` option). */
  auth: boolean;
  /** Whether an `origins` list refuses other origins. */
  origins: boolean;
  /** Patterns one connection may hold. */
  maxPatterns: number;
}

/**
 * The plugin's contribution; the Auth-step hooks are read on every build
 * (those of a read on no model, which admission runs).
 *
 * @example
 * app.openapi.contribute(realtimeContribution({ ssePath: '/realtime/sse', wsPath: '/realtime/ws', auth: true, origins: false, maxPatterns: 32 }));
 */
export function realtimeContribution(routes: RealtimeRoutes): PathContribution {
  return {
    name: 'realtime',
    contribute(doc) {
      const parameters = (patternsRequired: boolean): Parameter[] => [
        {
          name: 'subscribe',
          in: 'query',
          required: patternsRequired,
          description: `event patterns to receive: dotted segments of letters, digits, \`_\` or \`-\`, \`*\` for one whole segment (\`post.*\`, \`*.deleted\`); repeat the parameter or separate patterns with commas; at most ${routes.maxPatterns}`,
          schema: { type: 'array', items: { type: 'string', minLength: 1 }, ...(patternsRequired ? { minItems: 1 } : {}) },
          style: 'form',
          explode: true,
        },
        ...(routes.auth
          ? [{ name: 'access_token', in: 'query' as const, description: 'the bearer token, for clients that cannot send Authorization (EventSource, the browser WebSocket); checked once, at connect', schema: { type: 'string' } }]
          : []),
        { name: 'last_event_id', in: 'query', description: 'resume after this event id (the Last-Event-ID header wins)', schema: { type: 'string' } },
        { name: 'Last-Event-ID', in: 'header', description: 'resume after this event id: the events kept since then that match are sent first, or a gap is reported', schema: { type: 'string' } },
      ];
      // The security of the hooks admission runs (a read on no model); their 403 besides the origin check's.
      const auth = routes.auth ? doc.auth(null, 'read') : null;
      const forbidden = routes.origins || (auth?.statuses.includes('403') ?? false);
      // Refusals of the admission (docs/realtime.md, "Connecting"); 500 when admitting fails unexpectedly.
      const refusals = ['400', ...(auth ? ['401'] : []), ...(forbidden ? ['403'] : []), '500', '503'];
      const finish = (operation: Operation): Operation => ({
        ...operation,
        ...(auth?.security ? { security: auth.security } : {}),
        responses: { ...operation.responses, ...doc.errors(...refusals) },
      });

      const stream: Response = {
        description: 'the stream: `: connected`, then one `id: <event id>` / `data: {id, type, model, record_id, data}` event per matching event, `: keep-alive` comments, `event: gap` when a resumed id is no longer kept, `event: goodbye` when the server stops',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      };
      doc.operation(
        'get',
        routes.ssePath,
        finish({
          operationId: 'realtimeEvents',
          summary: 'Stream events over Server-Sent Events',
          description: 'Admission: the server is not stopping (503 REALTIME_BUSY), the Origin is allowed (403 FORBIDDEN), the patterns are valid (400 INVALID_QUERY), fewer than maxConnections streams are open (503 REALTIME_BUSY, Retry-After: 1), then the Auth-step hooks leave an identity (401). Other methods on this path answer 405 METHOD_NOT_ALLOWED with Allow: GET.',
          tags: ['realtime'],
          parameters: parameters(true),
          responses: { '200': stream },
        }),
      );

      const header = (description: string, values?: string[]) => ({ description, schema: { type: 'string', ...(values ? { enum: values } : {}) } });
      doc.operation(
        'get',
        routes.wsPath,
        finish({
          operationId: 'realtimeWebSocket',
          summary: 'Open a WebSocket for events',
          description:
            'An HTTP/1.1 upgrade to the WebSocket protocol of docs/realtime.md (subscribe, unsubscribe and ping messages; event, ack, pong, gap, error and goodbye answers). Admitted as the SSE stream is, patterns optional; a refusal is answered with the error envelope and the connection closes. A malformed handshake is answered 400 without an envelope; a request without Upgrade is not served here (404).',
          tags: ['realtime'],
          parameters: [
            ...parameters(false),
            { name: 'Upgrade', in: 'header', required: true, schema: { type: 'string', enum: ['websocket'] } },
            { name: 'Connection', in: 'header', required: true, description: 'Upgrade', schema: { type: 'string' } },
            { name: 'Sec-WebSocket-Key', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'Sec-WebSocket-Version', in: 'header', required: true, schema: { type: 'string', enum: ['13'] } },
          ],
          responses: {
            '101': {
              description: 'Switching Protocols: the connection speaks WebSocket from here on',
              headers: { Upgrade: header('websocket', ['websocket']), Connection: header('Upgrade'), 'Sec-WebSocket-Accept': header('the handshake answer of RFC 6455') },
            },
          },
        }),
      );
    },
  };
}
