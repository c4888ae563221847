// The per-backend set-up of the end-to-end suites: one describe per backend
// (skipped, with the reason, when the backend is unreachable) and a server
// started before its tests and closed after them.
import { after, before, describe } from 'node:test';
import { type Backend, backends } from './backends.js';
import { type ServerHandle, type StartOptions, startServer, type TestServer } from './server.js';

/** SQLite in memory and PostgreSQL: the matrix every end-to-end suite runs on. */
export const matrix: readonly Backend[] = await backends();
export const [sqlite, postgres] = matrix;

/**
 * Defines the suite `${title} on ${backend}` once per backend; a backend
 * that cannot run (PostgreSQL unreachable outside CI) shows as skipped with
 * its reason. `on` replaces the matrix (adding `sqliteFileBackend`, say).
 *
 * @example
 * eachBackend('generated routes', (backend) => {
 *   const server = useServer(backend);
 *   it('answers 201', async () => assert.equal((await server.request('POST', '/tags', { body: { name: 'a' } })).status, 201));
 * });
 */
export function eachBackend(title: string, define: (backend: Backend) => void, on: readonly Backend[] = matrix): void {
  for (const backend of on) describe(`${title} on ${backend.name}`, { skip: backend.skip }, () => define(backend));
}

/**
 * Starts a server on `backend` in a `before` hook of the enclosing suite and
 * closes it (dropping its database) in an `after` hook. The handle forwards
 * to the running server, so the suite's helpers can capture it; it works
 * inside tests and in `before` hooks registered after `useServer`.
 *
 * @example
 * const server = useServer(backend, { fixture: 'lifecycle', setup: (app) => void app.use('service', transaction()) });
 * it('lists', async () => assert.equal((await server.request('GET', '/notes')).status, 200));
 */
export function useServer(backend: Backend, options: StartOptions = {}): ServerHandle {
  let started: TestServer | undefined;
  before(async () => {
    started = await startServer(backend, options);
  });
  after(async () => started?.close());
  const running = (): TestServer => {
    if (!started) throw new Error('the test server is not running: use the handle inside it() or in a before() registered after useServer()');
    return started;
  };
  return {
    get app() {
      return running().app;
    },
    get url() {
      return running().url;
    },
    get logs() {
      return running().logs;
    },
    logLine: (match) => running().logLine(match),
    request: (method, path, init) => running().request(method, path, init),
  };
}

/**
 * node:test options that run a test only on the backends named and show it
 * as skipped on the others, saying why (`not on postgres: <why>`).
 *
 * @example
 * it('a NUL byte in JSON', onlyOn(backend, 'sqlite', "PostgreSQL's jsonb cannot hold it"), async () => { ... });
 */
export function onlyOn(backend: Backend, names: Backend['name'] | readonly Backend['name'][], why: string): { skip: string | false } {
  const on = typeof names === 'string' ? [names] : names;
  return { skip: on.includes(backend.name) ? false : `not on ${backend.name}: ${why}` };
}
