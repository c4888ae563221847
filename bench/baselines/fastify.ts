// Hand-written peer on Fastify 5: the same routes, SQL and envelopes as raw.ts
// (blog-routes.ts), the create body checked by Fastify's ajv against the model's
// JSON Schema, no logger (as raw.ts). `node fastify.js --db sqlite:FILE|postgres://... --port N`
import Fastify, { type FastifyReply } from 'fastify';
import { envelope, invalid, postCreateSchema, type Answer, type Row } from './blog-routes.js';
import { announce, peerOptions } from './serve.js';

const { routes, port } = await peerOptions();
const app = Fastify({ logger: false });

function send(reply: FastifyReply, answer: Answer): FastifyReply {
  const { status, text, headers } = envelope(answer);
  return reply.code(status).headers(headers).send(text);
}

function answer(reply: FastifyReply, result: Answer | Promise<Answer>): FastifyReply | Promise<FastifyReply> {
  return result instanceof Promise ? result.then((a) => send(reply, a)) : send(reply, result);
}

app.get<{ Params: { id: string } }>('/api/posts/:id', (req, reply) => answer(reply, routes.read(req.params.id)));
app.get<{ Querystring: Record<string, string | undefined> }>('/api/posts', (req, reply) => {
  const query = req.query;
  return answer(reply, routes.list({ get: (name) => query[name] }));
});
app.post<{ Body: Row }>('/api/posts', { schema: { body: postCreateSchema }, attachValidation: true }, (req, reply) =>
  req.validationError ? send(reply, invalid) : answer(reply, routes.create(req.body)),
);
app.setNotFoundHandler((_req, reply) => send(reply, routes.notFound));
app.setErrorHandler((_error, _req, reply) => send(reply, { status: 500, body: { error: { code: 'DB_ERROR', message: 'database error' } } }));

await app.listen({ port, host: '127.0.0.1' });
announce('fastify', (app.server.address() as { port: number }).port, () => app.close().then(routes.close));
